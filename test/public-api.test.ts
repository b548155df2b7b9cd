/**
 * The public surface is a promise: the package entry (`focused-crawler`, src/index.ts) and the
 * scorer's sub-path entry (`focused-crawler/score`, src/score/index.ts) export named things
 * only, each with a doc comment, and their list with each one's declared shape is kept in
 * test/__snapshots__/public-api.txt. A change to it fails here until the snapshot is updated
 * (`npx vitest run test/public-api.test.ts -u`) and the diff is committed: a deliberate change.
 * Importing the package starts nothing: Crawlee's browser pool (which opens a proxy server when
 * it loads) is not loaded until a crawl starts.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ENTRIES = { 'focused-crawler': 'src/index.ts', 'focused-crawler/score': 'src/score/index.ts' } as const;

const program = ts.createProgram(Object.values(ENTRIES), {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  strict: true,
  skipLibCheck: true,
  noEmit: true,
  types: ['node'],
});
const checker = program.getTypeChecker();
const FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseFullyQualifiedType;

interface Exported {
  name: string;
  declaration: ts.Declaration;
  shape: string;
}

/** One export's shape: a function's or constant's type, an interface's or class's members, a type alias's definition. */
function shapeOf(symbol: ts.Symbol, decl: ts.Declaration): string {
  const typeText = (t: ts.Type) => checker.typeToString(t, decl, FLAGS);
  const members = (t: ts.Type) =>
    checker
      .getPropertiesOfType(t)
      .filter(
        (p) => !p.name.startsWith('#') && !(ts.getCombinedModifierFlags(p.valueDeclaration ?? decl) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)),
      )
      .map((p) => `${p.name}${p.flags & ts.SymbolFlags.Optional ? '?' : ''}: ${typeText(checker.getTypeOfSymbol(p))}`)
      .map((m) => m.replace(/^__@(\w+)@\d+/, '[Symbol.$1]')) // a well-known symbol's member, without the checker's id
      .sort();
  if (ts.isClassDeclaration(decl)) {
    const ctor = checker.getTypeOfSymbol(symbol);
    const ctors = ctor.getConstructSignatures().map((s) => `new(${s.parameters.map((p) => `${p.name}: ${typeText(checker.getTypeOfSymbol(p))}`).join(', ')})`);
    // Static members the class declares itself (not those it inherits, such as Error's).
    const own = new Set(decl.members.filter((m) => ts.getCombinedModifierFlags(m) & ts.ModifierFlags.Static).map((m) => m.name?.getText()));
    const statics = members(ctor).filter((m) => own.has(m.slice(0, m.search(/\??:/))));
    return `class { ${[...ctors, ...statics.map((m) => `static ${m}`), ...members(checker.getDeclaredTypeOfSymbol(symbol))].join('; ')} }`;
  }
  if (ts.isInterfaceDeclaration(decl)) return `interface { ${members(checker.getDeclaredTypeOfSymbol(symbol)).join('; ')} }`;
  if (ts.isTypeAliasDeclaration(decl)) return `type = ${decl.type.getText().replace(/\s+/g, ' ')}`;
  if (ts.isEnumDeclaration(decl)) return `enum { ${decl.members.map((m) => m.name.getText()).join(', ')} }`;
  return typeText(checker.getTypeOfSymbol(symbol));
}

function exportsOf(file: string): Exported[] {
  const source = program.getSourceFile(file)!;
  return checker
    .getExportsOfModule(checker.getSymbolAtLocation(source)!)
    .map((e) => {
      const symbol = e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e;
      const declaration = symbol.declarations![0];
      return { name: e.name, declaration, shape: shapeOf(symbol, declaration) };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

describe('the public API', () => {
  it('is named exports only (no `export *`)', () => {
    for (const file of Object.values(ENTRIES)) expect(readFileSync(file, 'utf8'), file).not.toMatch(/^export \*/m);
  });

  it('has a doc comment on every export', () => {
    const undocumented = Object.values(ENTRIES).flatMap((file) =>
      exportsOf(file)
        .filter(({ declaration }) => ts.getJSDocCommentsAndTags(declaration).length === 0)
        .map(({ name, declaration }) => `${file}: ${name} (${declaration.getSourceFile().fileName})`),
    );
    expect(undocumented).toEqual([]);
  });

  it('is the recorded surface (update the snapshot deliberately when it changes)', async () => {
    const report = Object.entries(ENTRIES)
      .map(([entry, file]) => [`# ${entry}`, ...exportsOf(file).map((e) => `${e.name}: ${e.shape}`)].join('\n'))
      .join('\n\n');
    await expect(report + '\n').toMatchFileSnapshot('./__snapshots__/public-api.txt');
  });

  it("starts nothing when imported: Crawlee's browser pool (and its proxy server) is not loaded", async () => {
    await import('../src/index.js');
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => /@crawlee[/\\](browser-pool|playwright)|proxy-chain/.test(k));
    expect(loaded).toEqual([]);
  });
});
