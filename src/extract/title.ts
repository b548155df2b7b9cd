/**
 * Title cleaning. Readability keeps site suffixes on Chinese titles (`…_财经_凤凰网`,
 * `… - 新华网`): it splits only on spaced separators and treats a Chinese title as one word, so
 * its "too few words" checks never fire. We split on the separators Chinese sites use, drop
 * site and channel segments, and prefer an h1 whose text the title contains.
 */

// Private-use code points are decoding debris of legacy encodings (GBK user-defined area), never text.
const clean = (s: string) => s.replace(/[\ue000-\uf8ff]/g, '').replace(/[\s\u00a0\u3000]+/g, ' ').trim();

// `_`, `|`, `｜`, `—`, `–`, ` - `, `::`, `»`, `·` only when spaced. An unspaced `-` (`标题-新华网`)
// also joins place names (`北京-上海`), so it is split only when what follows looks like a site.
const SEPARATORS = /\s*(?:_+|\||｜|\s[-–—~·•»]\s|\s*[-–—]\s+|\s+[-–—]\s*|\s?[–—]{1,2}\s?|::|\s›\s|<|＜|>|＞|《(?=[^》]*$))\s*/;

const SITE_WORDS = /(网|網|新闻|新聞|频道|頻道|在线|在線|日报|日報|晚报|晚報|时报|時報|早报|周刊|週刊|杂志|中心|论坛|論壇|社区|社區|博客|官方|官网|首页|门户|平台|电视台|广播|传媒|报社|资讯|\.com|\.cn|\.net|\.org|\bnews\b|\btimes\b|\bpost\b|\bdaily\b|\bonline\b|\bmagazine\b|\bjournal\b|\bblog\b|\btribune\b|\bherald\b|\bguardian\b|\breuters\b|\bbbc\b|\bcnn\b|powered by|秘书处|编辑部)/i;

/** A trailing space-separated word longer than this (in `weight` units) is part of the headline. */
const MAX_SPACED_SITE_WEIGHT = 5;

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

/** A board name before an unspaced `-` is split off only when the rest is at least this many times heavier. */
const BOARD_PREFIX_RATIO = 3;
/** A leading column name before a pipe is at most this heavy, and the headline after it at least twice as heavy. */
const MAX_COLUMN_WEIGHT = 8;

/** `栏目 | 标题`: the first segment is a column name (short, no punctuation) followed by a pipe and a far longer headline. */
function columnFirst(raw: string, first: string, second: string): boolean {
  const after = raw.slice(raw.indexOf(first) + first.length).trimStart();
  return /^[|｜]/.test(after) && weight(first) <= MAX_COLUMN_WEIGHT && !/[，。：:！？、“”"]/.test(first)
    && weight(second) >= 2 * weight(first);
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
  // A forum board before an unspaced `-` (`大话四川-[原创]朋友,…`): 3 to 6 Han characters, then a
  // much longer headline (3 times). Latin words (`Wi-Fi`) and place pairs (`北京-上海高铁`) are not split.
  const board = segs.length ? /^([\u3400-\u9fff]{3,6})-(.+)$/.exec(segs[0]!) : null;
  if (board && weight(board[2]!) >= BOARD_PREFIX_RATIO * weight(board[1]!)) segs = [clean(board[1]!), clean(board[2]!), ...segs.slice(1)];
  // Drop site/channel segments from the end, then from the start, keeping at least one.
  while (segs.length > 1 && (siteLike(segs[segs.length - 1]!, siteNames) || channelLike(segs[segs.length - 1]!))) segs.pop();
  while (segs.length > 1 && (siteLike(segs[0]!, siteNames) || (channelLike(segs[0]!) && weight(segs[1]!) > weight(segs[0]!) * 2))) segs.shift();
  let candidate = segs.length > 0 ? segs.join(' - ') : raw;
  // A site name after a plain space (`标题 松花江网`): Chinese titles rarely end in such a word.
  const spaced = /^(.+\S)\s+(\S+)$/.exec(candidate);
  // Only a short word: `挑逗传统传媒业` after a space is the headline's second half, not a site.
  if (spaced && isCjk(spaced[2]!) && weight(spaced[2]!) <= MAX_SPACED_SITE_WEIGHT && siteLike(spaced[2]!, siteNames) && weight(spaced[1]!) > weight(spaced[2]!)) candidate = spaced[1]!;
  candidate = candidate.replace(/[\s\-–—_|｜:：]+$/, '');
  // Several long segments left: a headline with a subtitle, or headline + unknown site name.
  // Keep the heaviest one when it dominates.
  // Chinese titles put the headline first; what follows is a subtitle, column or organiser.
  // ... except a column name before a pipe (`书记市长这一周 | 奋马扬鞭争春色，“虎”力全开向未来`, the
  // `栏目 | 标题` style of Chinese portals and WeChat): short, bare, and the next segment far longer.
  if (segs.length > 1 && isCjk(segs[0]!) && columnFirst(raw, segs[0]!, segs[1]!)) candidate = segs[1]!;
  else if (segs.length > 1 && isCjk(segs[0]!) && !channelLike(segs[0]!)) candidate = segs[0]!;
  else if (segs.length > 1) {
    const best = segs.reduce((a, b) => (weight(b) > weight(a) ? b : a));
    const rest = segs.filter((s) => s !== best);
    if (rest.every((s) => weight(s) * 2 <= weight(best))) candidate = best;
  }

  // An h1 that is one whole segment of the title (`金锺国` in `金锺国 - 维基百科，自由的百科全书`)
  // is the headline, whatever the segments' lengths say.
  const whole = heads.find((h) => parts.length > 1 && parts.includes(h) && !siteLike(h, siteNames));
  if (whole) return stripDecorations(whole);
  // Prefer the page's own headline when the title agrees with it.
  for (const h of heads) {
    if (weight(h) < 2 || siteLike(h, siteNames)) continue;
    // An h1 that carries its own separators (`图说洛阳| …`) is no cleaner than the title.
    if (SEPARATORS.test(h) && !SEPARATORS.test(candidate)) continue;
    if (raw.includes(h) && weight(h) * 2 >= weight(candidate)) return stripDecorations(h);
    if (h.includes(candidate) && weight(h) <= weight(candidate) * 2) return stripDecorations(h);
  }
  if (!candidate && heads[0]) return stripDecorations(heads[0]);
  return stripDecorations(candidate);
}

/**
 * A forum's field label before the headline (`主题: …`, `Subject: …`), a page marker after it
 * (`…(页 1)`, `… (page 2)`) and an error-page marker (`…错误信息`) are not part of it. A bare number in brackets (`投身外交(3)`) is an
 * instalment and stays.
 */
export function stripDecorations(title: string): string {
  const t = title
    .replace(/^(?:原标题|主题|标题|題目|题目|帖子标题|文章标题|subject|title|topic)\s*[:：]\s*/i, '')
    .replace(/\s*[(（]\s*(?:页|頁|第|page)\s*\d+\s*(?:页|頁)?\s*[)）]\s*$/i, '')
    // What forum software appends on its error and notice pages (Dvbbs `…错误信息`, Discuz `提示信息`).
    .replace(/(?<=\S)\s*(?:错误信息|錯誤信息|提示信息)$/, '')
    .trim();
  return t || title;
}

/** Whether a (cleaned) title is only a site or column name (`北医新闻网`), not a headline. */
export function looksLikeSiteName(title: string, siteName?: string, host?: string): boolean {
  const names = [siteName ?? ''].filter(Boolean);
  if (host) names.push(...host.toLowerCase().split('.').filter((l) => l.length >= 3 && !/^(www|com|net|org|gov|edu|html?)$/.test(l)));
  return title.length === 0 || siteLike(title, names);
}

const NOT_HEADLINE = /[>›»＞]|&gt;|您的位置|当前位置|你的位置|所在位置|版主|精华区|登录|注册|首页|打印|关闭窗口|字号|来源[:：]|作者[:：]|发布时间|\d{4}\s*[-年/.]\s*\d{1,2}/;
/** Two or more `|` / `│` separators: a row of navigation links, not a headline. */
const NAV_ROW = /[|│｜].*[|│｜]/;
/** A dateline: a short line with a full date (`2005-03-21 11:21 《理财周刊》`, `发布日期： 7/5/2005 9:23 PM`); `2003年5月` is not one. */
const DATELINE = /(?<!\d)(?:19|20)\d\d\s*[-年/.]\s*\d{1,2}\s*[-月/.]\s*\d{1,2}|\d{1,2}\/\d{1,2}\/(?:19|20)\d\d|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.? \d{1,2}, (?:19|20)\d\d/i;

/** How far above the main text's first line a headline is looked for (visible lines). */
const HEADLINE_WINDOW_LINES = 8;
/** How far above that a fuller version of the headline (`茉莉：我是…` over `我是…`) is looked for. */
const FULLER_HEADLINE_LINES = 4;
/** Longest line taken as a headline (characters); longer lines are text. */
const MAX_HEADLINE_CHARS = 80;
/** Shortest headline in `weight` units: shorter lines are names, labels and buttons. */
const MIN_HEADLINE_WEIGHT = 6;

/** A visible line that is a site's or column's name ends like one (`北医新闻网`); `很高兴入住博客堂` does not. */
const ENDS_LIKE_SITE = /(网|網|网站|频道|頻道|论坛|論壇|社区|社區|博客|在线|在線|日报|日報|晚报|晚報|时报|時報|首页|官网|\.com|\.cn|\.net|\.org)$/i;

function headlineLike(l: string, siteName?: string, host?: string, minWeight = MIN_HEADLINE_WEIGHT): boolean {
  // A line ending in a full stop is a sentence of the text (headlines end bare, or in ？ or ！).
  if (weight(l) < minWeight || l.length > MAX_HEADLINE_CHARS || NOT_HEADLINE.test(l) || NAV_ROW.test(l) || /[。.]$/.test(l)) return false;
  const names = [siteName ?? '', ...(host ?? '').toLowerCase().split('.').filter((x) => x.length >= 3 && !/^(www|com|net|org|gov|edu|html?)$/.test(x))]
    .filter(Boolean).map((n) => n.toLowerCase());
  const low = l.toLowerCase();
  return !ENDS_LIKE_SITE.test(l) && !names.some((n) => low === n || low.includes(n));
}

/** Index of the line where the main text starts in `bodyLines`, or -1. */
export function mainTextStart(bodyLines: readonly string[], mainText: string): number {
  // A breadcrumb Readability kept on top (`当前位置：首页->军事技术`) is not where the text starts.
  const first = mainText.split('\n').map(clean).find((l) => l.length > 0 && !breadcrumb(l));
  if (!first) return -1;
  const probe = first.slice(0, 20);
  return bodyLines.findIndex((l) => l.length > 0 && (l.includes(probe) || (l.length >= 6 && first.startsWith(l))));
}

/**
 * The headline shown above the main text: of the headline-like lines (long enough, not a
 * breadcrumb, byline, date, navigation row or site name) within a few lines above the main
 * text's first line, the nearest one followed by a dateline (`标题` / `2005-03-21 11:21 来源：…`,
 * the classic news layout), else the nearest one. A line just above it that contains it
 * (`茉莉：我是怎样卷入八九民运的` over `我是怎样卷入八九民运的`) is the fuller headline.
 * `bodyLines` is the page's visible text, one block per line, read before Readability ran.
 */
export function headlineAbove(
  bodyLines: readonly string[], mainText: string, siteName?: string, host?: string, firstLineMinWeight = MIN_HEADLINE_WEIGHT,
): { line: string; dated: boolean } | undefined {
  const at = mainTextStart(bodyLines, mainText);
  if (at < 0) return undefined;
  const lo = Math.max(0, at - HEADLINE_WINDOW_LINES);
  let nearest: number | undefined;
  let dated: number | undefined;
  // The main text often starts with the headline itself (Readability keeps an in-article title):
  // its first line counts when a dateline or more text follows it. A caller that knows the page
  // has no other title may accept a shorter one there or on the line right above (`犬儒病(上)`).
  const start = bodyLines[at + 1] !== undefined && headlineLike(clean(bodyLines[at]!), siteName, host, firstLineMinWeight) ? at : at - 1;
  for (let i = start; i >= lo; i--) {
    const l = clean(bodyLines[i]!);
    if (!headlineLike(l, siteName, host, i >= at - 1 ? firstLineMinWeight : MIN_HEADLINE_WEIGHT)) continue;
    nearest ??= i;
    const next = clean(bodyLines[i + 1] ?? '');
    if (next.length <= MAX_HEADLINE_CHARS && DATELINE.test(next)) { dated = i; break; }
  }
  const pick = dated ?? nearest;
  if (pick === undefined) return undefined;
  let line = stripDecorations(clean(bodyLines[pick]!));
  for (let i = pick - 1; i >= Math.max(0, pick - FULLER_HEADLINE_LINES); i--) {
    const l = stripDecorations(clean(bodyLines[i]!));
    if (l !== line && l.includes(line) && headlineLike(l, siteName, host)) { line = l; break; }
  }
  return { line, dated: dated !== undefined };
}

/** Whether `title` is shown as a line of its own among the `span` lines above line `at`. */
export function shownNear(bodyLines: readonly string[], at: number, title: string, span: number): boolean {
  const t = clean(title);
  if (!t) return false;
  for (let i = Math.max(0, at - span); i < Math.min(bodyLines.length, at + 2); i++) {
    const l = clean(bodyLines[i]!);
    if (l === t || (l.includes(t) && weight(l) <= weight(t) * 2)) return true;
    // A headline broken over two lines (`<h1>…<br>…</h1>`).
    const two = (l + clean(bodyLines[i + 1] ?? '')).replace(/\s/g, '');
    if (two === t.replace(/\s/g, '')) return true;
  }
  return false;
}

/** Titles this short (`weight`) are a blog's or author's name more often than a headline. */
export const NAME_LIKE_WEIGHT = 4;
export { weight as titleWeight };

/**
 * The visible headline block that holds `title` whole with a short prefix or suffix the <title>
 * cleaning cut (`对比试车—测试昌河北斗星、爱迪尔(图)` for `测试昌河北斗星、爱迪尔(图)`), among the
 * `span` lines above line `at`; not when the extra part is a site name or a `|`/`_` separator.
 */
export function fullerShownLine(bodyLines: readonly string[], at: number, title: string, span: number, siteName?: string, host?: string): string | undefined {
  const t = clean(title);
  // A name-like title (`海姑娘`) sits inside many lines (`爱海的海姑娘`) that are not its headline.
  if (!t || at < 0 || weight(t) <= NAME_LIKE_WEIGHT) return undefined;
  for (let i = Math.max(0, at - span); i < Math.min(bodyLines.length, at + 2); i++) {
    const l = stripDecorations(clean(bodyLines[i]!));
    if (l === t || !l.includes(t) || /[|_｜]/.test(l) || !headlineLike(l, siteName, host)) continue;
    const extra = clean(l.replace(t, ' '));
    if (weight(extra) <= weight(t) && !looksLikeSiteName(extra.replace(/[-–—:：\s]+/g, ''), siteName, host)) return l;
  }
  return undefined;
}

const CRUMB_LABEL = /^(?:当前位置|您的位置|你的位置|所在位置|您现在的位置|现在位置|位置|you are here)\s*[:：]\s*/i;
const CRUMB_SEP = /\s*(?:->|>|&gt;|»|›|＞|→)\s*/;
/** Longest line read as a breadcrumb (characters). */
const MAX_CRUMB_LINE_CHARS = 120;

/**
 * The crumbs of a breadcrumb line (`您的位置：主页>艺术史研究>方法与规范>第一编 古代`), or null: a
 * labelled line with two or more parts, or any short line with three or more.
 */
export function breadcrumb(line: string): string[] | null {
  const l = clean(line);
  if (l.length > MAX_CRUMB_LINE_CHARS) return null;
  const labelled = CRUMB_LABEL.test(l);
  const parts = l.replace(CRUMB_LABEL, '').split(CRUMB_SEP).map(clean).filter(Boolean);
  return parts.length >= (labelled ? 2 : 3) ? parts : null;
}

/** Decorations some templates put before a headline line (`*第一编 古代`, `● 标题`). */
const LEAD_MARK = /^[*·•●■◆◇□○★☆※>\s]+/;

/**
 * The page's own title from its breadcrumb: the last crumb, when the page also shows it as a line
 * of its own between the breadcrumb and the main text (the headline), and the title we have is
 * one of the breadcrumb's other crumbs (a column: `艺术史研究`) or not shown with the article.
 */
export function crumbHeadline(bodyLines: readonly string[], at: number, title: string, span: number, titleShown: boolean): string | undefined {
  if (at < 0) return undefined;
  for (let i = at; i >= Math.max(0, at - span); i--) {
    const crumbs = breadcrumb(bodyLines[i]!);
    if (!crumbs) continue;
    const last = stripDecorations(crumbs[crumbs.length - 1]!);
    if (weight(last) < 2 || last === clean(title)) return undefined;
    const column = crumbs.slice(0, -1).some((c) => clean(c) === clean(title));
    if (!column && titleShown && title) return undefined;
    for (let j = i + 1; j <= Math.min(bodyLines.length - 1, at + 1); j++) {
      if (clean(bodyLines[j]!).replace(LEAD_MARK, '') === last) return last;
    }
    return undefined;
  }
  return undefined;
}

/**
 * A category tag before the headline (`[湖湘文化]陈天华《警世钟》`) when the page lists that
 * category elsewhere (`湖湘文化(49)` in the blog's category list): the category, not the title.
 * A tag the page does not list (`[原创]`, a post type) stays.
 */
export function dropCategoryTag(title: string, bodyLines: readonly string[]): string {
  const m = /^[\[【]([^\]】]{1,12})[\]】]\s*(.+)$/.exec(title);
  if (!m) return title;
  const tag = clean(m[1]!);
  const listed = (line: string) => {
    const l = clean(line);
    return l === tag || (l.startsWith(tag) && /^\s*[(（]\d+[)）]$/.test(l.slice(tag.length)));
  };
  return bodyLines.some(listed) ? clean(m[2]!) : title;
}
