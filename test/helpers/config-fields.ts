/**
 * Every field of the config schema, walked from the zod schema itself (src/config/schema.ts), with
 * its type and default as docs/configuration.md shows them: the docs test compares the two, so a
 * field added to the schema without its row fails with the row to add.
 */
import type { z } from 'zod';
import { CrawlConfigSchema } from '../../src/config/schema.js';

export interface ConfigField {
  /** Dotted path; `topics[]` for the elements of the topic list. */
  path: string;
  /** The type as the docs write it: `number`, `string[]`, `'a' or 'b'`, `object`. */
  type: string;
  /** The default as the docs write it: `(required)`, `–` (optional, none), `` `text` ``, `[]`, `(see below)`. */
  default: string;
}

// zod 4's internal definition: enough of it to walk wrappers, objects, arrays, unions and enums.
interface Def {
  type: string;
  innerType?: Z;
  in?: Z;
  shape?: Record<string, Z>;
  element?: Z;
  options?: Z[];
  entries?: Record<string, string>;
  defaultValue?: unknown;
}
type Z = { _zod: { def: Def } } | z.ZodType;
const defOf = (s: Z) => (s as { _zod: { def: Def } })._zod.def;

function unwrap(s: Z): { s: Z; optional: boolean; value?: unknown; hasDefault: boolean } {
  let optional = false;
  let hasDefault = false;
  let value: unknown;
  for (;;) {
    const d = defOf(s);
    if (d.type === 'optional') {
      optional = true;
      s = d.innerType!;
    } else if (d.type === 'default' || d.type === 'prefault') {
      hasDefault = true;
      value = typeof d.defaultValue === 'function' ? (d.defaultValue as () => unknown)() : d.defaultValue;
      s = d.innerType!;
    } else if (d.type === 'pipe') s = d.in!;
    else return { s, optional, value, hasDefault };
  }
}

function typeName(s: Z): string {
  const d = defOf(s);
  if (d.type === 'array') {
    const t = typeName(unwrap(d.element!).s);
    return t.includes(' or ') ? `(${t})[]` : `${t}[]`;
  }
  if (d.type === 'union') return d.options!.map((o) => typeName(unwrap(o).s)).join(' or ');
  if (d.type === 'enum') return Object.values(d.entries!).map((v) => `'${v}'`).join(' or ');
  return d.type;
}

export function formatDefault(f: { optional: boolean; value?: unknown; hasDefault: boolean }): string {
  if (!f.hasDefault) return f.optional ? '–' : '(required)';
  const v = f.value;
  if (typeof v === 'string') return `\`${v}\``;
  if (Array.isArray(v)) return v.length ? v.map((x) => `\`${String(x)}\``).join(', ') : '[]';
  if (v !== null && typeof v === 'object') return '(see below)';
  return String(v);
}

export function configFields(schema: Z = CrawlConfigSchema): ConfigField[] {
  const out: ConfigField[] = [];
  const walk = (s: Z, path: string) => {
    const u = unwrap(s);
    const d = defOf(u.s);
    if (d.type === 'object') {
      if (path) out.push({ path, type: 'object', default: formatDefault(u) });
      for (const [k, v] of Object.entries(d.shape!)) walk(v, path ? `${path}.${k}` : k);
    } else if (d.type === 'array' && defOf(unwrap(d.element!).s).type === 'object') {
      out.push({ path, type: 'object[]', default: formatDefault(u) });
      walk(d.element!, `${path}[]`);
    } else out.push({ path, type: typeName(u.s), default: formatDefault(u) });
  };
  walk(schema, '');
  return out.filter((f) => !f.path.endsWith('[]'));
}

/** The table row docs/configuration.md needs for a field (its meaning left for the writer). */
export function fieldRow(f: ConfigField, meaning = '…'): string {
  return `| \`${f.path}\` | ${f.type} | ${f.default} | ${meaning} |`;
}
