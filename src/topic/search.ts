/**
 * Search-engine seeding (METHODS §1; seed 002 takes the top 4 ≤ k ≤ 7 results, seed 000 the
 * top w): render a results page for the keywords and take the top-k organic result links.
 */
import type { Page } from 'playwright';
import { SearchSeedingError } from './errors.js';

/** A results page: where to go and which links are organic results. */
export interface SearchProvider {
  name: string;
  /** `{q}` = the URL-encoded query. */
  urlTemplate: string;
  /** CSS selector of organic result links (`a` elements). */
  resultSelector: string;
  /** Links that are ads; excluded even when the result selector also matches them. */
  adSelector?: string;
  /** Unwrap a redirect link to the real target (DuckDuckGo's `/l/?uddg=`). */
  unwrap?: (href: string) => string;
}

export const PROVIDERS: Record<'baidu' | 'bing' | 'duckduckgo', SearchProvider> = {
  baidu: {
    name: 'baidu',
    urlTemplate: 'https://www.baidu.com/s?wd={q}',
    // Organic results carry class `result`; ads are `.ec_tuiguang_*` / data-tuiguang blocks.
    resultSelector: '#content_left > div.result h3 a, #content_left > div.result-op h3 a',
    adSelector: '#content_left [data-tuiguang] a, #content_left .ec_tuiguang_link',
  },
  bing: {
    name: 'bing',
    urlTemplate: 'https://www.bing.com/search?q={q}',
    resultSelector: '#b_results > li.b_algo h2 a',
    adSelector: '#b_results > li.b_ad a',
  },
  duckduckgo: {
    name: 'duckduckgo',
    urlTemplate: 'https://html.duckduckgo.com/html/?q={q}',
    resultSelector: '#links .result:not(.result--ad) a.result__a',
    adSelector: '.result--ad a',
    unwrap: (href) => {
      try {
        const u = new URL(href);
        const target = u.searchParams.get('uddg');
        return u.pathname === '/l/' && target ? target : href;
      } catch {
        return href;
      }
    },
  },
};

/** The local test web's search site (`/s?wd=`): organic `div.result h3 a`, ads `div.ad a`. */
export function testwebProvider(origin: string): SearchProvider {
  return {
    name: 'testweb',
    urlTemplate: `${origin.replace(/\/$/, '')}/s?wd={q}`,
    resultSelector: 'div.result h3 a',
    adSelector: 'div.ad a',
  };
}

/** Config `search` block → provider; `urlTemplate`/`resultSelector` override the named one. */
export function resolveProvider(
  cfg: { provider: string; urlTemplate?: string; resultSelector?: string },
  options: { testwebOrigin?: string } = {},
): SearchProvider {
  let base: SearchProvider | undefined;
  if (cfg.provider === 'testweb') {
    if (options.testwebOrigin) base = testwebProvider(options.testwebOrigin);
    else if (!cfg.urlTemplate) throw new SearchSeedingError('search provider "testweb" needs the test web origin or search.urlTemplate');
    else base = { ...testwebProvider(''), urlTemplate: cfg.urlTemplate };
  } else base = (PROVIDERS as Record<string, SearchProvider>)[cfg.provider];
  if (!base) {
    if (!cfg.urlTemplate || !cfg.resultSelector)
      throw new SearchSeedingError(
        `unknown search provider "${cfg.provider}" (known: baidu, bing, duckduckgo, testweb); a custom one needs search.urlTemplate and search.resultSelector`,
      );
    base = { name: cfg.provider, urlTemplate: cfg.urlTemplate, resultSelector: cfg.resultSelector };
  }
  return { ...base, urlTemplate: cfg.urlTemplate ?? base.urlTemplate, resultSelector: cfg.resultSelector ?? base.resultSelector };
}

export function searchUrl(provider: SearchProvider, keywords: string[]): string {
  if (!provider.urlTemplate.includes('{q}')) throw new SearchSeedingError(`search provider "${provider.name}": urlTemplate has no {q}`);
  return provider.urlTemplate.replace('{q}', encodeURIComponent(keywords.join(' ')));
}

export interface SearchSeedOptions {
  /** How long to wait for the result selector, ms; default 15000. */
  timeoutMs?: number;
}

/**
 * Open the results page in `page` and return the top `k` organic result URLs (absolute,
 * http(s), deduplicated, ads removed, in page order). Throws SearchSeedingError naming the
 * provider and URL when there are none.
 */
export async function searchSeeds(
  page: Page,
  provider: SearchProvider,
  keywords: string[],
  k: number,
  options: SearchSeedOptions = {},
): Promise<string[]> {
  const url = searchUrl(provider, keywords);
  const timeout = options.timeoutMs ?? 15_000;
  try {
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout });
  } catch (e) {
    // Playwright's message ends "at URL": the URL is said once, here.
    const why = (e as Error).message.split('\n')[0].replace(/^page\.goto:\s*/, '').replace(/\s+at\s+https?:\/\/\S+\s*$/, '');
    throw new SearchSeedingError(`search provider "${provider.name}" could not open ${url}: ${why}`);
  }
  // Results are often rendered by script: wait for the first one, but an empty page is not an exception yet.
  await page.waitForSelector(provider.resultSelector, { timeout, state: 'attached' }).catch(() => undefined);
  const hrefs = await page.$$eval(
    provider.resultSelector,
    (els, adSelector) =>
      els
        .filter((el) => !(adSelector && el.matches(adSelector)))
        .map((el) => (el as HTMLAnchorElement).href)
        .filter(Boolean),
    provider.adSelector ?? '',
  );
  const out: string[] = [];
  for (const h of hrefs) {
    const target = provider.unwrap ? provider.unwrap(h) : h;
    if (!/^https?:\/\//i.test(target) || out.includes(target)) continue;
    out.push(target);
    if (out.length >= k) break;
  }
  if (out.length === 0)
    throw new SearchSeedingError(
      `search provider "${provider.name}" found no results at ${url} (selector "${provider.resultSelector}"); ` +
        'check the keywords, or set search.resultSelector for this results page',
    );
  return out;
}
