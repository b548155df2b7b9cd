/**
 * A site's home page given as a seed is where the crawl starts, not an example of the topic: a
 * home page is about its site (a department's welcome, a portal's masthead), whatever the topic
 * is. Taken as an example it sets the topic's θ from a page that shares none of its words (θ
 * calibrated to 0: every page with one keyword relevant) and teaches the term model the site's
 * words. Seeds deeper in a site (an article, a thread, a category) stay examples, including the
 * ones about the topic in other words. Measured on bench:replay's university web, whose seeds are
 * the department home pages; the Wikispeedia seeds are articles.
 */
const HOME_PATH = /^\/(?:(?:index|default|home|welcome)\.(?:html?|php|aspx?|jsp|shtml))?$/i;

/** `url` is a site's home page: the root path (or its index document), no query. */
export function isSiteHomePage(url: string | undefined): boolean {
  if (!url) return false;
  try {
    const u = new URL(url);
    return HOME_PATH.test(u.pathname) && u.search === '';
  } catch {
    return false;
  }
}
