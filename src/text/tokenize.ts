/**
 * Text → terms (METHODS §0): Chinese through jieba (search-engine mode, for recall), everything
 * else through a Unicode word rule; NFKC (full-width → ASCII), lower-case, Traditional →
 * Simplified; stopwords (stopwords-iso zh + en), punctuation and pure numbers dropped. The topic
 * model's terms (`termAnalyzer`) also keep the topic's keywords and stem English words.
 *
 * Fully synchronous: jieba-wasm's WASM module is instantiated at import time (see ./jieba.ts).
 * We only use jieba's word lists, never its `tokenize()` offsets (those count code points,
 * not UTF-16 units, so they must not be used to slice JS strings).
 */
import { stemmer } from 'stemmer';
import { cut, cutForSearch } from './jieba.js';
import * as OpenCC from 'opencc-js/t2cn';
import stopwordsIso from 'stopwords-iso/stopwords-iso.json' with { type: 'json' };

/** Taiwan Traditional → mainland Simplified (OpenCC tw → cn dictionaries). */
const convertTraditional = OpenCC.Converter({ from: 'tw', to: 'cn' });

/** The (source, target) pairs of the dictionaries that converter walks. */
const OPENCC_ENTRIES: readonly (readonly [string, string])[] = (() => {
  type Dict = string | readonly (readonly [string, string])[];
  const locale = OpenCC.Locale as unknown as { from: Record<string, Dict[][]>; to: Record<string, Dict[][]> };
  const out: (readonly [string, string])[] = [];
  for (const group of [...locale.from.tw, ...locale.to.cn])
    for (const dict of group)
      out.push(...(typeof dict === 'string' ? dict.split('|').map((e) => e.split(' ') as [string, string]) : dict));
  return out;
})();

/**
 * What makes the converter change a text: a character it maps to something else, or a phrase
 * that, converted alone, comes out different and holds no such character (the Taiwan-variant
 * phrases like 上梁 → 上樑 come back unchanged after the second step, so they do not count). A
 * text with neither is left unchanged by OpenCC, so the slow trie-walking conversion is
 * skipped: most pages are already Simplified, and the conversion was a third of the tokenizer.
 * Characters live in a bit set (probed for every Han character of every page); phrases are
 * looked up by their first character and matched in place (110 of them, under 44 characters).
 */
const { TRADITIONAL_CHARS, PHRASE_STARTS, PHRASES_BY_START } = (() => {
  const chars = new Uint32Array(0x110000 >>> 5);
  const starts = new Uint32Array(0x110000 >>> 5);
  const has = (bits: Uint32Array, cp: number) => (bits[cp >>> 5] & (1 << (cp & 31))) !== 0;
  const add = (bits: Uint32Array, cp: number) => (bits[cp >>> 5] |= 1 << (cp & 31));
  const phrases: string[] = [];
  for (const [src, dst] of OPENCC_ENTRIES) {
    if (!src || src === dst) continue;
    if ([...src].length === 1) add(chars, src.codePointAt(0)!);
    else phrases.push(src);
  }
  const byStart = new Map<number, string[]>();
  for (const p of phrases) {
    if ([...p].some((c) => has(chars, c.codePointAt(0)!)) || convertTraditional(p) === p) continue;
    const cp = p.codePointAt(0)!;
    add(starts, cp);
    byStart.set(cp, [...(byStart.get(cp) ?? []), p]);
  }
  return { TRADITIONAL_CHARS: chars, PHRASE_STARTS: starts, PHRASES_BY_START: byStart };
})();

/**
 * Every dictionary key is made of Han characters, so no OpenCC match crosses a non-Han character
 * and converting each Han run on its own gives exactly the whole-text conversion. (Ideographic
 * description characters ⿰…⿻ are Common script but OpenCC steps over them with the characters
 * they describe, so they count as part of a run.)
 */
const HAN_RUN = /[\p{Script=Han}\u2FF0-\u2FFF]+/gu;
const KEYS_ALL_HAN = OPENCC_ENTRIES.every(([src]) => !src || /^\p{Script=Han}+$/u.test(src));

/** Index of the first place OpenCC would change in `text` (see TRADITIONAL_CHARS), or -1. */
function firstTraditional(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x2e80) continue; // below the CJK blocks: nothing to convert
    const cp = text.codePointAt(i)!;
    const bit = 1 << (cp & 31);
    if (TRADITIONAL_CHARS[cp >>> 5] & bit) return i;
    if (PHRASE_STARTS[cp >>> 5] & bit) for (const p of PHRASES_BY_START.get(cp)!) if (text.startsWith(p, i)) return i;
    if (cp > 0xffff) i++;
  }
  return -1;
}

const IN_HAN_RUN = /^[\p{Script=Han}\u2FF0-\u2FFF]$/u;

/**
 * OpenCC's trie walk costs ~0.15 µs a character, so a page is converted only when it holds
 * something the converter would change, and then only the Han runs that do (a Simplified page
 * with one 著 converts one run, not 5,000 characters).
 */
function toSimplified(text: string): string {
  const first = firstTraditional(text);
  if (first < 0) return text;
  if (!KEYS_ALL_HAN) return convertTraditional(text);
  let start = first; // back to the start of the Han run holding it
  for (;;) {
    const low = start >= 2 && (text.charCodeAt(start - 1) & 0xfc00) === 0xdc00; // a surrogate pair ends here
    const prev = start - (low ? 2 : 1);
    if (prev < 0 || !IN_HAN_RUN.test(text.slice(prev, start))) break;
    start = prev;
  }
  return text.slice(0, start) + text.slice(start).replace(HAN_RUN, (run) => (firstTraditional(run) >= 0 ? convertTraditional(run) : run));
}

const iso = stopwordsIso as unknown as Record<string, string[]>;
/**
 * stopwords-iso's English list merges web-page boilerplate lists and so holds content words
 * (computer, web, fire, research…). A topical crawler must be able to match those, so they
 * are taken back out; the Chinese list is function words only and is used as is.
 */
const CONTENT_WORDS = new Set(
  ('act area areas bill biol big buy computer copy cry date face faces fact facts fire fix free goods group ' +
    'groups help home homepage information invention line man men member members microsoft million billion ' +
    'trillion mug netscape novel page pages problem problems research ring room rooms run site state states ' +
    'system test text value web webpage website work worked working works world young younger youngest ' +
    'interest interests important importance light width words old older oldest new newer newest ' +
    'sorry thick thin tip top turn kind keys name number numbers order orders part parts place places ' +
    'point points present results section side sides show stop value women')
    .split(' '),
);
/** Both lists, also in Simplified form (the zh list mixes a few Traditional entries). */
export const STOPWORDS: ReadonlySet<string> = new Set(
  [...iso.zh, ...iso.en]
    .filter((w) => !CONTENT_WORDS.has(w))
    .flatMap((w) => {
      const l = w.toLowerCase();
      return [l, toSimplified(l)];
    }),
);

/** A run of Han characters, or a word of letters/digits with inner apostrophes (don't, o'neil). */
// Built with `new RegExp` because the `v` flag (set difference) is newer than our TS target.
const WORD_CHAR = String.raw`[[\p{L}\p{M}\p{N}]--\p{Script=Han}]`;
const SEGMENT = new RegExp(String.raw`(\p{Script=Han}+)|(${WORD_CHAR}+(?:['’]${WORD_CHAR}+)*)`, 'gv');
/** Digits with separators, e.g. 2024, 3.5, 1,000 (decimals arrive as separate runs; both drop). */
const NUMBER = /^[\p{N}]+$/u;

export interface TokenizeOptions {
  /** jieba search-engine mode (overlapping sub-words, better recall); default true. */
  searchMode?: boolean;
  /** Keep stopwords (for diagnostics); default false. */
  keepStopwords?: boolean;
  /** Words never dropped as stopwords (a topic's own keywords). */
  keep?: ReadonlySet<string>;
}

/** Lower-case, full-width → half-width, Traditional → Simplified. Exposed for keyword matching. */
export function normalizeText(text: string): string {
  // Typographic apostrophes fold to ASCII so `weren’t` meets the stopword `weren't`.
  return toSimplified(text.normalize('NFKC').toLowerCase()).replace(/[’‘]/g, "'");
}

/** Separator between Han runs in one jieba call: punctuation, which jieba never joins to a word. */
const RUN_SEPARATOR = '，';

/**
 * Terms of `text`, in order (duplicates kept: callers count them).
 *
 * All Han runs go to jieba in ONE call, joined by a separator: a page has hundreds of short runs
 * between punctuation marks, and each WASM call costs more than its segmentation. Jieba segments
 * Han blocks independently (HMM included), so the result is the same as one call per run, and a
 * run that recurs on the page (a repeated label, list item or boilerplate line) is segmented
 * once. HMM on so unknown names (人名, 地名) come out as words.
 */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  if (!text) return [];
  if (text.length > MEMO_MAX_CHARS) return tokenizeNow(text, options);
  // Short texts (anchor texts, link contexts, URL words) recur: a site's navigation is on every
  // page, and one link's words are asked for by the scorer, the ranker and the judge in turn
  // (profiled on the mixed test web: a third of the engine's per-page time was tokenizing).
  const keep = options.keep;
  const memo = keep ? (MEMO_BY_KEEP.get(keep) ?? MEMO_BY_KEEP.set(keep, new Map()).get(keep)!) : MEMO;
  const key = `${options.searchMode === false ? 0 : 1}${options.keepStopwords ? 1 : 0}${text}`;
  let terms = memo.get(key);
  if (terms === undefined) {
    if (memo.size >= MEMO_ENTRIES) memo.clear();
    terms = tokenizeNow(text, options);
    memo.set(key, terms);
  }
  return terms.slice(); // callers may change their copy (termAnalyzer stems in place)
}

/** Texts up to this length are remembered (per option set), at most MEMO_ENTRIES of them; cleared when full. */
const MEMO_MAX_CHARS = 400;
const MEMO_ENTRIES = 20_000;
const MEMO = new Map<string, string[]>();
const MEMO_BY_KEEP = new WeakMap<ReadonlySet<string>, Map<string, string[]>>();

function tokenizeNow(text: string, options: TokenizeOptions): string[] {
  const searchMode = options.searchMode ?? true;
  const keepStop = options.keepStopwords ?? false;
  const keep = options.keep;
  const out: string[] = [];
  const norm = normalizeText(text);
  // Other words in place; the index of a distinct Han run where that run's words go.
  const slots: (string | number)[] = [];
  const runs: string[] = [];
  const runIndex = new Map<string, number>();
  for (const m of norm.matchAll(SEGMENT)) {
    const run = m[1];
    if (run === undefined) {
      slots.push(m[2]!);
      continue;
    }
    let k = runIndex.get(run);
    if (k === undefined) {
      k = runs.length;
      runs.push(run);
      runIndex.set(run, k);
    }
    slots.push(k);
  }
  const words = runs.length === 0 ? [] : searchMode ? cutForSearch(runs.join(RUN_SEPARATOR)) : cut(runs.join(RUN_SEPARATOR));
  // Run k's words are words[starts[k]] up to the next separator.
  const starts = new Int32Array(runs.length + 1);
  for (let i = 0, k = 1; i < words.length && k < starts.length; i++) if (words[i] === RUN_SEPARATOR) starts[k++] = i + 1;
  for (const slot of slots) {
    if (typeof slot === 'number') {
      for (let i = starts[slot]; i < words.length; i++) {
        const w = words[i];
        if (w === RUN_SEPARATOR) break;
        // A Han word is a number only if it is made of 〇/〡…〩/〸…〺 (all below U+3400).
        if ((keepStop || !STOPWORDS.has(w) || keep?.has(w)) && (w.charCodeAt(0) >= 0x3400 || !NUMBER.test(w))) out.push(w);
      }
    } else if ((keepStop || !STOPWORDS.has(slot) || keep?.has(slot)) && !NUMBER.test(slot)) out.push(slot);
  }
  return out;
}

/** Porter stems of words seen (English pages repeat a small vocabulary); cleared when large. */
const STEMS = new Map<string, string>();

/**
 * English stem (Porter, the `stemmer` package) of a lower-case ASCII word of 3+ letters, so
 * `students`/`student` and `mammals`/`mammal` meet; anything else (Han words, digits, other
 * scripts, accented words) is returned as is.
 */
export function stemEnglish(word: string): string {
  if (word.length < 3) return word;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c < 97 || c > 122) return word;
  }
  let s = STEMS.get(word);
  if (s === undefined) {
    if (STEMS.size >= 100_000) STEMS.clear();
    s = stemmer(word);
    STEMS.set(word, s);
  }
  return s;
}

/** Text → the terms vectors are made of. */
export type Analyzer = (text: string) => string[];

/**
 * The topic model's terms: tokens (stopwords out, except `keep`), English words stemmed. Used on
 * the topic's keywords and on every page and link context alike, so both sides meet.
 */
export function termAnalyzer(options: { keep?: ReadonlySet<string> } = {}): Analyzer {
  const keep = options.keep && options.keep.size > 0 ? options.keep : undefined;
  return (text) => {
    const terms = tokenize(text, { keep });
    for (let i = 0; i < terms.length; i++) terms[i] = stemEnglish(terms[i]);
    return terms;
  };
}

/** The words of `keyword` that the tokenizer would drop as stopwords. */
export function stopwordsIn(keyword: string): string[] {
  return tokenize(keyword, { keepStopwords: true }).filter((w) => STOPWORDS.has(w));
}

const URL_NOISE = new Set(['http', 'https', 'www', 'com', 'cn', 'net', 'org', 'html', 'htm', 'shtml', 'php', 'asp', 'aspx', 'jsp', 'index', 'default']);

/** Terms of a URL: host labels and path/query words, percent-decoded, minus scheme/TLD/extension noise. */
export function urlTokens(url: string, analyze: Analyzer = tokenize): string[] {
  let s = url;
  try {
    const u = new URL(url);
    s = `${u.hostname} ${u.pathname} ${u.search}`;
  } catch {
    /* not absolute: tokenize as is */
  }
  try {
    s = decodeURIComponent(s);
  } catch {
    /* malformed escapes: keep raw */
  }
  return analyze(s.replace(/[._\-/?=&+]/g, ' ')).filter((t) => !URL_NOISE.has(t));
}
