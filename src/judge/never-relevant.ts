/**
 * Pages that are never relevant, whatever their words: a page that is not a
 * page of content cannot be saved, join the seed set D (METHODS §1), or teach a learner that
 * its link looked good. Judged from structure (HTTP status, how much main text is left once
 * boilerplate lines are set aside, a password field) and from short multilingual phrase lists,
 * never from one site's markup:
 *
 * - `http-status`: any non-2xx response (a 404 page that echoes the requested URL, or a 500 page
 *   with the site's navigation, carries the topic's words without being about it);
 * - `error-page`: an error page served with 200 (a "soft 404"): an error phrase in the title,
 *   a heading, the opening of the main text or the visible page, on a page with little main text;
 * - `boilerplate-only`: no main-text line that is more than copyright or navigation, and no list
 *   of headline-like links either (a channel page's content is its headlines);
 * - `login-wall`: a "log in to see this" prompt (or a password form) and next to no other text.
 */

export type NeverRelevantReason = 'http-status' | 'error-page' | 'boilerplate-only' | 'login-wall';

export interface NeverRelevant {
  reason: NeverRelevantReason;
  /** One line for the crawl log, e.g. `HTTP 404` or `error-page: "页面不存在"`. */
  detail: string;
}

export interface PageSignals {
  /** HTTP status; 0 or absent = unknown (no verdict from it). */
  status?: number;
  title?: string;
  headings?: readonly string[];
  /** Main text, one block per line. */
  text?: string;
  /** Raw HTML, when at hand (password fields, error lines too short for the main text). */
  html?: string;
  /** Anchor texts of the page's links: a list page's headlines are its content. */
  linkTexts?: readonly string[];
}

/** Phrases of error pages (lower case, NFKC; Simplified and Traditional Chinese both listed). */
export const ERROR_PHRASES: readonly string[] = [
  // en
  'page not found', 'page cannot be found', "page can't be found", 'page could not be found', 'page does not exist',
  "page doesn't exist", 'page you requested', 'page you are looking for', 'requested url was not found', 'file not found',
  'not found on this server', 'no longer available', 'error 404', '404 error', '404 not found', 'http 404',
  'internal server error', 'service unavailable', 'bad gateway', 'access denied', '403 forbidden', 'this page has been removed',
  // zh
  '页面不存在', '页面未找到', '找不到页面', '找不到该页面', '页面找不到', '网页不存在', '找不到网页', '访问的页面不存在',
  '页面已被删除', '页面已删除', '文章不存在', '帖子不存在', '主题不存在', '内容不存在', '信息不存在', '无法找到该页',
  '404错误', '错误404', '服务器内部错误', '服务器错误', '访问出错', '頁面不存在', '找不到網頁', '網頁不存在', '頁面未找到',
  // de, fr, es, pt, it, ru, ja, ko
  'seite nicht gefunden', 'seite existiert nicht', 'page introuvable', "page n'existe pas", 'page non trouvée',
  'página no encontrada', 'no se encontró la página', 'página não encontrada', 'pagina non trovata', 'страница не найдена',
  'ページが見つかりません', 'お探しのページ', '페이지를 찾을 수 없습니다',
];

/** "Log in to see this" prompts (not "log in to reply": forum threads carry those under real content). */
export const LOGIN_PHRASES: readonly string[] = [
  'please log in', 'please login', 'please sign in', 'log in to continue', 'login to continue', 'sign in to continue',
  'log in to view', 'login to view', 'sign in to view', 'you must be logged in', 'you need to log in', 'login required',
  'members only', 'subscribe to continue',
  '请登录', '请先登录', '登录后查看', '登录后才能查看', '登录后才能访问', '登录后可见', '需要登录才能', '您尚未登录', '您还没有登录',
  '没有权限访问', '无权访问', '請登入', '請先登入', '登入後', 'bitte melden sie sich an', 'veuillez vous connecter',
  'inicie sesión', 'ログインしてください',
];

/** Lines that are page furniture: copyright and legal notes, registration numbers, "powered by". */
const BOILERPLATE_LINE =
  /©|\(c\)\s*\d{4}|copyright|all rights reserved|版权所有|版權所有|版权声明|icp备|icp证|公网安备|powered by|技术支持|免责声明|隐私政策|privacy policy|terms of (use|service)|cookie/i;

/** Navigation labels; a line made only of these (and separators) is navigation. */
const NAV_WORDS = new Set(
  (
    'home|homepage|main page|about|about us|contact|contact us|sitemap|site map|login|log in|sign in|logout|register|sign up|' +
    'search|help|faq|back|top|back to top|next|previous|prev|more|menu|skip to content|print|share|' +
    '首页|主页|网站首页|返回首页|关于我们|联系我们|网站地图|登录|注册|退出|帮助|返回|返回顶部|更多|上一页|下一页|设为首页|加入收藏|' +
    '打印|分享|搜索|网站导航|意见反馈|广告服务|招聘信息|首頁|關於我們|聯繫我們|登入'
  ).split('|'),
);
const SEPARATORS = /\s*(?:[|｜·•»›>\/\\]|\s{2,}|\u3000)\s*/;

const norm = (s: string | undefined) => (s ?? '').normalize('NFKC').toLowerCase();
const HAN = /\p{Script=Han}/gu;
const LATIN_WORD = /[\p{L}\p{N}]+/gu;

/** A separator-split line whose every piece is a short label (a menu, a breadcrumb, a tag list). */
function isNavigation(line: string): boolean {
  const parts = line.split(SEPARATORS).map((p) => p.replace(/[\p{P}\p{S}]+/gu, '').trim()).filter(Boolean);
  if (parts.length === 0) return true;
  if (parts.every((p) => NAV_WORDS.has(p))) return true;
  return parts.length >= 3 && parts.every((p) => (p.match(HAN)?.length ?? 0) <= 6 && (p.match(LATIN_WORD)?.length ?? 0) <= 3);
}

/** A line that says something: enough words, not furniture. */
function isContentLine(line: string): boolean {
  if (BOILERPLATE_LINE.test(line) || isNavigation(line)) return false;
  const han = line.match(HAN)?.length ?? 0;
  const words = line.replace(HAN, ' ').match(LATIN_WORD)?.length ?? 0;
  return han >= 8 || words >= 4 || han + 2 * words >= 10;
}

/** Characters of content lines (Han characters and Latin words weigh alike per character). */
export function contentLength(text: string | undefined, skip?: (line: string) => boolean): number {
  let n = 0;
  for (const raw of norm(text).split('\n')) {
    const line = raw.trim();
    if (line && isContentLine(line) && !skip?.(line)) n += line.length;
  }
  return n;
}

/** Error and login walls are short: beyond this much main text a page is content that mentions them. */
const ERROR_PAGE_MAX_CONTENT = 1500;
const LOGIN_WALL_MAX_CONTENT = 300;

/** Rough visible text of raw HTML (scripts, styles and comments out, tags to spaces), first 20,000 characters. */
function visibleText(html: string): string {
  return norm(
    html
      .slice(0, 200_000)
      .replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .slice(0, 20_000),
  );
}

/** A list page needs this many headline-like link labels to count as content. */
const MIN_HEADLINES = 3;

function countHeadlines(labels: readonly string[] | undefined): number {
  let n = 0;
  for (const l of labels ?? []) if (isContentLine(norm(l).trim()) && ++n >= MIN_HEADLINES) break;
  return n;
}

function findPhrase(haystacks: readonly string[], phrases: readonly string[]): string | undefined {
  for (const h of haystacks) if (h) for (const p of phrases) if (h.includes(p)) return p;
  return undefined;
}

/** Why this page can never be relevant, or undefined for an ordinary page. */
export function neverRelevant(p: PageSignals): NeverRelevant | undefined {
  if (p.status && (p.status < 200 || p.status > 299)) return { reason: 'http-status', detail: `HTTP ${p.status}` };
  const title = norm(p.title);
  const headings = (p.headings ?? []).slice(0, 3).map(norm);
  const text = norm(p.text);
  const content = contentLength(p.text);
  const opening = text.slice(0, 400);
  if (content <= ERROR_PAGE_MAX_CONTENT) {
    // The error line is often too short for the main-text extractor to keep: read the page's visible text too.
    const hit = findPhrase([title, ...headings, opening, p.html !== undefined ? visibleText(p.html) : ''], ERROR_PHRASES);
    if (hit) return { reason: 'error-page', detail: `error-page: "${hit}"` };
  }
  const login = findPhrase([title, ...headings, text.slice(0, 2000)], LOGIN_PHRASES);
  const password = p.html !== undefined && /<input\b[^>]*\btype\s*=\s*["']?password\b/i.test(p.html);
  if (login || password) {
    const rest = contentLength(p.text, (line) => LOGIN_PHRASES.some((x) => line.includes(x)));
    // A password form alone (a forum's header log-in box) walls a page only when nothing else is on it.
    if (rest <= (login ? LOGIN_WALL_MAX_CONTENT : 100))
      return { reason: 'login-wall', detail: `login-wall${login ? `: "${login}"` : ': password form'}` };
  }
  // A channel or forum index has its content in link labels (headlines), not in a main text.
  if (content === 0 && countHeadlines(p.linkTexts) < MIN_HEADLINES)
    return { reason: 'boilerplate-only', detail: text ? 'boilerplate-only: no line of main text beyond copyright and navigation' : 'boilerplate-only: no main text' };
  return undefined;
}
