/** Test helper: an on-topic forum thread of the test web with replies by three or more authors (each has an "only this author" view). */
import type { TestWeb } from '../../src/testweb/index.js';

export async function threadWithAuthorViews(w: TestWeb): Promise<string> {
  const forum = w.sites.find((s) => s.kind === 'forum')!.origin;
  // Read off the forum's home page.
  const home = await (await fetch(`${forum}/`)).text();
  const tids = [...new Set([...home.matchAll(/tid=(\d+)/g)].map((m) => m[1]))];
  for (const tid of tids) {
    const url = `${forum}/thread-${tid}-1-1.html`;
    if (!w.isRelevant(url, w.demo.topic)) continue;
    const authors = new Set([...(await (await fetch(url)).text()).matchAll(/authorid=(\d+)/g)].map((m) => m[1]));
    if (authors.size >= 3) return url;
  }
  return '';
}
