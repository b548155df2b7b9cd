/** Test helper: on-topic forum threads of the test web with replies by three or more authors (each has an "only this author" view). */
import type { TestWeb } from '../../src/testweb/index.js';

/** Up to `count` such threads' first pages (read off the forum's home page, then its boards' first pages). */
export async function threadsWithAuthorViews(w: TestWeb, count = 1): Promise<string[]> {
  const forum = w.sites.find((s) => s.kind === 'forum')!.origin;
  const home = await (await fetch(`${forum}/`)).text();
  let text = home;
  if (count > 1) for (const b of new Set([...home.matchAll(/forum-\d+-1\.html/g)].map((m) => m[0]))) text += await (await fetch(`${forum}/${b}`)).text();
  const tids = [...new Set([...text.matchAll(/tid=(\d+)|thread-(\d+)-/g)].map((m) => m[1] ?? m[2]))];
  const out: string[] = [];
  for (const tid of tids) {
    const url = `${forum}/thread-${tid}-1-1.html`;
    if (!w.isRelevant(url, w.demo.topic)) continue;
    const authors = new Set([...(await (await fetch(url)).text()).matchAll(/authorid=(\d+)/g)].map((m) => m[1]));
    if (authors.size >= 3) out.push(url);
    if (out.length >= count) break;
  }
  return out;
}

/** The first such thread, or '' when the test web has none. */
export async function threadWithAuthorViews(w: TestWeb): Promise<string> {
  return (await threadsWithAuthorViews(w))[0] ?? '';
}
