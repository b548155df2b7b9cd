/**
 * Text → terms (METHODS §0): Chinese through jieba (search-engine mode, for recall), everything
 * else through a Unicode word rule; NFKC (full-width → ASCII), lower-case, Traditional →
 * Simplified; stopwords (stopwords-iso zh + en), punctuation and pure numbers dropped.
 *
 * Fully synchronous: jieba-wasm's node build instantiates its WASM module at import time.
 * We only use jieba's word lists, never its `tokenize()` offsets (those count code points,
 * not UTF-16 units, so they must not be used to slice JS strings).
 */
import { cut_for_search, cut } from 'jieba-wasm';
import * as OpenCC from 'opencc-js/t2cn';
import stopwordsIso from 'stopwords-iso/stopwords-iso.json' with { type: 'json' };

/** Taiwan Traditional → mainland Simplified (OpenCC tw → cn dictionaries). */
const convertTraditional = OpenCC.Converter({ from: 'tw', to: 'cn' });

/**
 * Code points that make the converter change a text: the single characters it maps to something
 * else, plus the first character of any phrase that, converted alone, comes out different
 * (the Taiwan-variant phrases like 上梁 → 上樑 come back unchanged after the second step). A
 * text with none of them is left unchanged by OpenCC, so the slow trie-walking conversion is
 * skipped: most pages are already Simplified, and the conversion was a third of the tokenizer.
 */
const TRADITIONAL_STARTS: ReadonlySet<number> = (() => {
  type Dict = string | readonly (readonly [string, string])[];
  const locale = OpenCC.Locale as unknown as { from: Record<string, Dict[][]>; to: Record<string, Dict[][]> };
  const set = new Set<number>();
  const phrases: string[] = [];
  for (const group of [...locale.from.tw, ...locale.to.cn])
    for (const dict of group) {
      const entries = typeof dict === 'string' ? dict.split('|').map((e) => e.split(' ')) : dict;
      for (const [src, dst] of entries) {
        if (!src || src === dst) continue;
        if ([...src].length === 1) set.add(src.codePointAt(0)!);
        else phrases.push(src);
      }
    }
  for (const p of phrases) if (![...p].some((c) => set.has(c.codePointAt(0)!)) && convertTraditional(p) !== p) set.add(p.codePointAt(0)!);
  return set;
})();

function toSimplified(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x2e80) continue; // below the CJK blocks: nothing to convert
    const cp = text.codePointAt(i)!;
    if (TRADITIONAL_STARTS.has(cp)) return convertTraditional(text);
    if (cp > 0xffff) i++;
  }
  return text;
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
}

/** Lower-case, full-width → half-width, Traditional → Simplified. Exposed for keyword matching. */
export function normalizeText(text: string): string {
  // Typographic apostrophes fold to ASCII so `weren’t` meets the stopword `weren't`.
  return toSimplified(text.normalize('NFKC').toLowerCase()).replace(/[’‘]/g, "'");
}

function keep(term: string, keepStopwords: boolean): boolean {
  if (NUMBER.test(term)) return false;
  return keepStopwords || !STOPWORDS.has(term);
}

/** Terms of `text`, in order (duplicates kept: callers count them). */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const searchMode = options.searchMode ?? true;
  const keepStop = options.keepStopwords ?? false;
  const out: string[] = [];
  if (!text) return out;
  const norm = normalizeText(text);
  const segments = [...norm.matchAll(SEGMENT)];
  const hanWords = segmentHanRuns(
    segments.filter((m) => m[1] !== undefined).map((m) => m[1]!),
    searchMode,
  );
  let run = 0;
  for (const m of segments) {
    if (m[1] !== undefined) {
      for (const w of hanWords[run++]) if (keep(w, keepStop)) out.push(w);
    } else {
      const w = m[2]!;
      if (keep(w, keepStop)) out.push(w);
    }
  }
  return out;
}

/** Separator between Han runs in one jieba call: punctuation, which jieba never joins to a word. */
const RUN_SEPARATOR = '，';

/**
 * jieba's words for each Han run, from ONE call over all runs joined by a separator: a page has
 * hundreds of short runs between punctuation marks, and each WASM call costs more than its
 * segmentation. Jieba segments Han blocks independently (HMM included), so the result is the
 * same as one call per run. HMM on so unknown names (人名, 地名) come out as words.
 */
function segmentHanRuns(runs: string[], searchMode: boolean): string[][] {
  if (runs.length === 0) return [];
  const words = searchMode ? cut_for_search(runs.join(RUN_SEPARATOR), true) : cut(runs.join(RUN_SEPARATOR), true);
  const out: string[][] = [[]];
  for (const w of words) {
    if (w === RUN_SEPARATOR) out.push([]);
    else out[out.length - 1].push(w);
  }
  return out;
}

/** Kept for API symmetry with async tokenizers; the node build needs no initialisation. */
export async function initTokenizer(): Promise<void> {}

const URL_NOISE = new Set(['http', 'https', 'www', 'com', 'cn', 'net', 'org', 'html', 'htm', 'shtml', 'php', 'asp', 'aspx', 'jsp', 'index', 'default']);

/** Terms of a URL: host labels and path/query words, percent-decoded, minus scheme/TLD/extension noise. */
export function urlTokens(url: string): string[] {
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
  return tokenize(s.replace(/[._\-/?=&+]/g, ' ')).filter((t) => !URL_NOISE.has(t));
}
