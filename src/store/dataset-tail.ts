/**
 * The dataset's crash window, closed on `--resume`. A page's dataset item is written before its
 * crawl-log line (src/store/write-behind.ts), so a kill -9 between the two leaves an item whose
 * page the crawl log does not have: `--resume` fetches that page again and would save it a second
 * time. The crawl log is the run's commit point (the frontier, scorer, judge and near-duplicate
 * journals are all read back up to it), so the item goes, not the log's view: its page is fetched
 * again and saved once. Re-logging the item instead would need the line's score, verdict and the
 * scorer input of its links, which a crash may have lost with it.
 *
 * Which items have a line: items and lines are written in the same order, and an item's
 * `fetchedAt` is its line's `time` (both the page's fetch time), so the saved lines match the
 * items in order; an item with no line (or a torn file) is dropped. The kept items are then
 * numbered 1..n again: Crawlee's file storage takes the number of files as the item count and
 * writes the next item under count + 1, which would overwrite an item after a gap.
 *
 * A crash leaves such items only past the last line, so the usual case is read at its tail: when
 * the items are numbered 1..n and the n-th of the saved lines' items is the n-th file, the first n
 * files are those lines' items (a missing or extra item before it would shift it) and only the
 * files after it are read. Anything else (a gap, a failed write mid-run) is matched item by item.
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { CrawlLogEntry } from './crawl-log.js';

const ITEM_FILE = /^(\d+)\.json$/;

/** Crawlee's name for the n-th item's file (its LOCAL_ENTRY_NAME_DIGITS). */
const itemFile = (n: number) => `${String(n).padStart(9, '0')}.json`;

/**
 * The dataset's item files that have their crawl-log line (in item order) and those that do not,
 * or undefined when a saved line has no item (not the dataset this log wrote: items removed by
 * hand, a changed format), so nothing is to be touched.
 */
export function loggedItems(datasetDir: string, log: readonly CrawlLogEntry[]): { kept: string[]; dropped: { name: string; url: string }[] } | undefined {
  if (!existsSync(datasetDir)) return { kept: [], dropped: [] };
  const files = readdirSync(datasetDir)
    .flatMap((f) => (ITEM_FILE.test(f) ? [{ name: f, n: Number(ITEM_FILE.exec(f)![1]) }] : []))
    .sort((a, b) => a.n - b.n);
  const savedTimes = log.filter((e) => e.decision === 'saved').map((e) => e.time);
  const tail = alignedTail(datasetDir, files, savedTimes);
  if (tail) return tail;
  const kept: string[] = [];
  const dropped: { name: string; url: string }[] = [];
  let next = 0;
  for (const f of files) {
    const item = readItem(join(datasetDir, f.name));
    if (item && next < savedTimes.length && item.fetchedAt === savedTimes[next]) {
      kept.push(f.name);
      next++;
    } else dropped.push({ name: f.name, url: item?.url ?? f.name });
  }
  return next < savedTimes.length ? undefined : { kept, dropped };
}

/**
 * Drop the dataset items written without their crawl-log line, and number the rest 1..n.
 * Call before the dataset is opened. Returns the URLs of the items dropped.
 */
export function dropUnloggedItems(datasetDir: string, log: readonly CrawlLogEntry[]): string[] {
  const items = loggedItems(datasetDir, log);
  if (!items || !existsSync(datasetDir)) return [];
  const { kept, dropped } = items;
  for (const d of dropped) rmSync(join(datasetDir, d.name), { force: true });
  // A write killed mid-way leaves its lock (a folder) behind, and nothing writes the dataset now.
  for (const f of readdirSync(datasetDir)) if (f.endsWith('.json.lock')) rmSync(join(datasetDir, f), { recursive: true, force: true });
  // Ascending, each to a lower free number: a crash half-way leaves every item once, repaired next time.
  kept.forEach((name, i) => {
    if (name !== itemFile(i + 1)) renameSync(join(datasetDir, name), join(datasetDir, itemFile(i + 1)));
  });
  return dropped.map((d) => d.url);
}

/** The files past the saved lines' items, when those are the first files as numbered (see above). */
function alignedTail(datasetDir: string, files: readonly { name: string; n: number }[], savedTimes: readonly string[]): ReturnType<typeof loggedItems> {
  const n = savedTimes.length;
  if (files.length < n || files.some((f, i) => f.n !== i + 1)) return undefined;
  if (n > 0 && readItem(join(datasetDir, files[n - 1]!.name))?.fetchedAt !== savedTimes[n - 1]) return undefined;
  const dropped = files.slice(n).map((f) => ({ name: f.name, url: readItem(join(datasetDir, f.name))?.url ?? f.name }));
  return { kept: files.slice(0, n).map((f) => f.name), dropped };
}

function readItem(path: string): { url?: string; fetchedAt?: string } | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as { url?: string; fetchedAt?: string };
  } catch {
    return undefined; // torn by the crash: its line was never written
  }
}
