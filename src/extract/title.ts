/**
 * Title cleaning. Readability keeps site suffixes on Chinese titles (`…_财经_凤凰网`,
 * `… - 新华网`): it splits only on spaced separators and treats a Chinese title as one word, so
 * its "too few words" checks never fire. We split on the separators Chinese sites use, drop
 * site and channel segments, and prefer an h1 whose text the title contains.
 */

const clean = (s: string) => s.replace(/[\s\u00a0\u3000]+/g, ' ').trim();

// `_`, `|`, `｜`, `—`, `–`, ` - `, `::`, `»`, `·` only when spaced. An unspaced `-` (`标题-新华网`)
// also joins place names (`北京-上海`), so it is split only when what follows looks like a site.
const SEPARATORS = /\s*(?:_+|\||｜|\s[-–—~·•»]\s|\s*[-–—]\s+|\s+[-–—]\s*|\s?[–—]{1,2}\s?|::|\s›\s|<|＜|《(?=[^》]*$))\s*/;

const SITE_WORDS = /(网|網|新闻|新聞|频道|頻道|在线|在線|日报|日報|晚报|晚報|时报|時報|早报|周刊|週刊|杂志|中心|论坛|論壇|社区|社區|博客|官方|官网|首页|门户|平台|电视台|广播|传媒|报社|资讯|\.com|\.cn|\.net|\.org|\bnews\b|\btimes\b|\bpost\b|\bdaily\b|\bonline\b|\bmagazine\b|\bjournal\b|\bblog\b|\btribune\b|\bherald\b|\bguardian\b|\breuters\b|\bbbc\b|\bcnn\b)/i;

function isCjk(s: string): boolean {
  return /[\u3400-\u9fff]/.test(s);
}

/** Rough length in "words": each Han character counts as one, Latin words as one. */
function weight(s: string): number {
  const han = (s.match(/[\u3400-\u9fff]/g) ?? []).length;
  const words = (s.replace(/[\u3400-\u9fff]/g, ' ').match(/[\p{L}\p{N}]+/gu) ?? []).length;
  return han + words * (han > 0 ? 2 : 1);
}

function siteLike(seg: string, siteNames: string[]): boolean {
  const s = seg.toLowerCase();
  for (const n of siteNames) {
    const name = n.toLowerCase();
    if (name && (s === name || s.includes(name) || (name.includes(s) && s.length >= 2))) return true;
  }
  if (SITE_WORDS.test(seg) && weight(seg) <= 14) return true;
  return false;
}

/** A short segment beside the headline is a channel name (`财经`, `国内`, `Tech`). */
function channelLike(seg: string): boolean {
  return isCjk(seg) ? weight(seg) <= 4 : weight(seg) <= 2;
}

export interface CleanTitleOptions {
  /** Host of the page; its labels (`ifeng`, `xinhuanet`) count as site names. */
  host?: string;
}

/**
 * The article title without site and channel parts. `siteName` (og:site_name) helps spot the
 * site segment; an `h1` contained in the title wins, as it is the page's own headline.
 */
export function cleanTitle(rawTitle: string, h1s: string[] = [], siteName?: string, opts: CleanTitleOptions = {}): string {
  const raw = clean(rawTitle);
  const heads = h1s.map(clean).filter((h) => h.length > 0);
  const siteNames = [siteName ?? ''].map(clean).filter(Boolean);
  if (opts.host) {
    for (const label of opts.host.toLowerCase().split('.')) {
      if (label.length >= 3 && !/^(www|com|net|org|gov|edu|news|html?)$/.test(label)) siteNames.push(label);
    }
  }

  const parts = raw.split(SEPARATORS).map(clean).filter((p) => p.length > 0);
  let segs = parts.slice();
  const last = segs[segs.length - 1];
  const dash = last ? /^(.+)-([^-]+)$/.exec(last) : null;
  if (dash && siteLike(dash[2]!, siteNames)) segs = [...segs.slice(0, -1), clean(dash[1]!), clean(dash[2]!)];
  // Drop site/channel segments from the end, then from the start, keeping at least one.
  while (segs.length > 1 && (siteLike(segs[segs.length - 1]!, siteNames) || channelLike(segs[segs.length - 1]!))) segs.pop();
  while (segs.length > 1 && (siteLike(segs[0]!, siteNames) || (channelLike(segs[0]!) && weight(segs[1]!) > weight(segs[0]!) * 2))) segs.shift();
  let candidate = segs.length > 0 ? segs.join(' - ') : raw;
  // A site name after a plain space (`标题 松花江网`): Chinese titles rarely end in such a word.
  const spaced = /^(.+\S)\s+(\S+)$/.exec(candidate);
  if (spaced && isCjk(spaced[2]!) && siteLike(spaced[2]!, siteNames) && weight(spaced[1]!) > weight(spaced[2]!)) candidate = spaced[1]!;
  candidate = candidate.replace(/[\s\-–—_|｜:：]+$/, '');
  // Several long segments left: a headline with a subtitle, or headline + unknown site name.
  // Keep the heaviest one when it dominates.
  if (segs.length > 1) {
    const best = segs.reduce((a, b) => (weight(b) > weight(a) ? b : a));
    const rest = segs.filter((s) => s !== best);
    if (rest.every((s) => weight(s) * 2 <= weight(best))) candidate = best;
  }

  // Prefer the page's own headline when the title agrees with it.
  for (const h of heads) {
    if (weight(h) < 2) continue;
    // An h1 that carries its own separators (`图说洛阳| …`) is no cleaner than the title.
    if (SEPARATORS.test(h) && !SEPARATORS.test(candidate)) continue;
    if (raw.includes(h) && weight(h) * 2 >= weight(candidate)) return h;
    if (h.includes(candidate) && weight(h) <= weight(candidate) * 2) return h;
  }
  if (!candidate && heads[0]) return heads[0];
  return candidate;
}
