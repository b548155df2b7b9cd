/**
 * The test web's page analyses as `bench:replay` cached them ($REPLAY_CACHE/testweb-42.FINGERPRINT.json, see replay-cache.ts: run
 * `npm run bench:replay -- --web testweb` once to fill it), rebased onto a running test web's
 * origins, for the benches that replay a crawl's route without a network (bench/in-flight.ts,
 * bench/redis-split.ts). A page no replay cached is fetched from the test web over HTTP once.
 */
import { existsSync, readFileSync } from 'node:fs';
import { analyzePage } from '../src/extract/page.js';
import type { PageAnalysis } from '../src/extract/types.js';
import { startTestWeb, type TestWeb } from '../src/testweb/index.js';
import { rebaseOntoOrigins } from './rebase-origins.js';
import { replayCacheFile } from './replay-cache.js';

export interface CachedPage {
  status: number;
  analysis?: PageAnalysis;
}

export const testWebCacheFile = replayCacheFile('testweb-42');

/**
 * The cached pages of the test web started here (a page by its URL). Without a cache, `bench`
 * says how to fill it and the process ends (exit 0: nothing to measure).
 */
export async function cachedTestWeb(bench: string): Promise<{ web: TestWeb; pageOf: (url: string) => Promise<CachedPage> }> {
  if (!existsSync(testWebCacheFile)) {
    process.stderr.write(`${bench}: no cached test web at ${testWebCacheFile}: run npm run bench:replay -- --web testweb first\n`);
    process.exit(0);
  }
  const web = await startTestWeb();
  // The cache was written with other ports: URLs rebased onto today's origins by hostname (as bench:replay does).
  const rebase = rebaseOntoOrigins(web.sites.map((s) => s.origin));
  const cached = new Map<string, CachedPage>();
  for (const [u, c] of Object.entries(JSON.parse(readFileSync(testWebCacheFile, 'utf8')) as Record<string, CachedPage>)) {
    const a = c.analysis;
    if (c.status !== 0) cached.set(rebase(u), a ? { ...c, analysis: { ...a, url: rebase(a.url), links: a.links.map((l) => ({ ...l, url: rebase(l.url) })) } } : c);
  }
  return { web, pageOf: async (url) => cached.get(url) ?? (await fetchMiss(url, cached)) };
}

/** A page no replay has cached yet: fetched from the test web over HTTP (as bench:replay does without a browser). */
async function fetchMiss(url: string, cached: Map<string, CachedPage>): Promise<CachedPage> {
  try {
    const res = await fetch(url);
    const html = /html/.test(res.headers.get('content-type') ?? '') ? await res.text() : undefined;
    const c = { status: res.status, analysis: html !== undefined && res.status < 400 ? analyzePage({ html, url: res.url, fetchedAt: new Date('2008-06-01T04:00:00.000Z') }) : undefined };
    cached.set(url, c);
    return c;
  } catch {
    return { status: 0 };
  }
}
