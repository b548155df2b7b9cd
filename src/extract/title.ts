/**
 * Title cleaning. Readability keeps site suffixes on Chinese titles (`…_财经_凤凰网`,
 * `… - 新华网`): it splits only on spaced separators and treats a Chinese title as one word, so
 * its "too few words" checks never fire. We split on the separators Chinese sites use, drop
 * site and channel segments, and prefer an h1 whose text the title contains.
 */

const clean = (s: string) => s.replace(/[\s\u00a0\u3000]+/g, ' ').trim();

// `_`, `|`, `｜`, `—`, `–`, ` - `, `::`, `»`, `·` only when spaced. An unspaced `-` (`标题-新华网`)
// also joins place names (`北京-上海`), so it is split only when what follows looks like a site.
const SEPARATORS = /\s*(?:_+|\||｜|\s[-–—~·•»]\s|\s*[-–—]\s+|\s+[-–—]\s*|\s?[–—]{1,2}\s?|::|\s›\s|<|＜|>|＞|《(?=[^》]*$))\s*/;

const SITE_WORDS = /(网|網|新闻|新聞|频道|頻道|在线|在線|日报|日報|晚报|晚報|时报|時報|早报|周刊|週刊|杂志|中心|论坛|論壇|社区|社區|博客|官方|官网|首页|门户|平台|电视台|广播|传媒|报社|资讯|\.com|\.cn|\.net|\.org|\bnews\b|\btimes\b|\bpost\b|\bdaily\b|\bonline\b|\bmagazine\b|\bjournal\b|\bblog\b|\btribune\b|\bherald\b|\bguardian\b|\breuters\b|\bbbc\b|\bcnn\b|powered by|秘书处|编辑部)/i;

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
  // Portal + channel (`搜狐财经`, `网易娱乐`, `新浪体育`).
  if (/^(搜狐|新浪|网易|腾讯|凤凰|中新|人民|新华|央视|环球|澎湃)\S{0,4}$/.test(seg)) return true;
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
  // A bracketed site tag at the end (`…[麻辣社区]`, `…【天涯社区】`).
  const tag = segs.length ? /^(.+?)\s*[\[【(（]([^\]】)）]+)[\]】)）]$/.exec(segs[segs.length - 1]!) : null;
  if (tag && siteLike(tag[2]!, siteNames)) segs[segs.length - 1] = clean(tag[1]!);
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
  // Chinese titles put the headline first; what follows is a subtitle, column or organiser.
  if (segs.length > 1 && isCjk(segs[0]!) && !channelLike(segs[0]!)) candidate = segs[0]!;
  else if (segs.length > 1) {
    const best = segs.reduce((a, b) => (weight(b) > weight(a) ? b : a));
    const rest = segs.filter((s) => s !== best);
    if (rest.every((s) => weight(s) * 2 <= weight(best))) candidate = best;
  }

  // Prefer the page's own headline when the title agrees with it.
  for (const h of heads) {
    if (weight(h) < 2 || siteLike(h, siteNames)) continue;
    // An h1 that carries its own separators (`图说洛阳| …`) is no cleaner than the title.
    if (SEPARATORS.test(h) && !SEPARATORS.test(candidate)) continue;
    if (raw.includes(h) && weight(h) * 2 >= weight(candidate)) return h;
    if (h.includes(candidate) && weight(h) <= weight(candidate) * 2) return h;
  }
  if (!candidate && heads[0]) return heads[0];
  return candidate;
}

/** Whether a (cleaned) title is only a site or column name (`北医新闻网`), not a headline. */
export function looksLikeSiteName(title: string, siteName?: string, host?: string): boolean {
  const names = [siteName ?? ''].filter(Boolean);
  if (host) names.push(...host.toLowerCase().split('.').filter((l) => l.length >= 3 && !/^(www|com|net|org|gov|edu|html?)$/.test(l)));
  return title.length === 0 || siteLike(title, names);
}

const NOT_HEADLINE = /[>›»＞]|&gt;|您的位置|当前位置|你的位置|所在位置|版主|精华区|登录|注册|首页|打印|关闭窗口|字号|来源[:：]|作者[:：]|发布时间|\d{4}\s*[-年/.]\s*\d{1,2}/;

/**
 * The headline of a page whose <title> and headings name only the site (old table layouts,
 * `<title>网易娱乐</title>` over a forum post): the nearest line above the main text's first
 * line that reads like a headline (long enough, not a breadcrumb, byline, date or site name).
 * `bodyLines` is the page's visible text, one block per line, read before Readability ran.
 */
export function headlineAbove(bodyLines: readonly string[], mainText: string, siteName?: string, host?: string): string | undefined {
  const first = mainText.split('\n').map(clean).find((l) => l.length > 0);
  if (!first) return undefined;
  const probe = first.slice(0, 20);
  const at = bodyLines.findIndex((l) => l.length > 0 && (l.includes(probe) || (l.length >= 6 && first.startsWith(l))));
  if (at <= 0) return undefined;
  for (let i = at - 1; i >= Math.max(0, at - 8); i--) {
    const l = clean(bodyLines[i]!);
    if (weight(l) < 6 || l.length > 80 || NOT_HEADLINE.test(l) || looksLikeSiteName(l, siteName, host)) continue;
    return l;
  }
  return undefined;
}
