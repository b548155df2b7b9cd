/**
 * The dataset's crash window on `--resume` (src/store/dataset-tail.ts): items without a crawl-log
 * line are dropped, a torn item too, the rest numbered 1..n again (Crawlee writes the next item
 * under the file count + 1), a stale write lock removed; a dataset the log does not describe is
 * left as it is; a Redis crawl's merged dataset leaves such items out.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { CrawlLogEntry } from '../src/store/crawl-log.js';
import { mergeWorkerRuns } from '../src/report/merge-workers.js';
import { dropUnloggedItems } from '../src/store/dataset-tail.js';
import { RunDir } from '../src/store/run-dir.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function dataset(items: Record<string, string | object>): string {
  const d = mkdtempSync(join(tmpdir(), 'fc-dataset-tail-'));
  dirs.push(d);
  for (const [name, item] of Object.entries(items)) writeFileSync(join(d, name), typeof item === 'string' ? item : JSON.stringify(item));
  return d;
}
const item = (i: number) => ({ url: `http://a.test/${i}`, fetchedAt: `2026-11-24T10:00:0${i}.000Z`, text: 'x' });
const line = (i: number, decision: CrawlLogEntry['decision'] = 'saved'): CrawlLogEntry => ({ time: `2026-11-24T10:00:0${i}.000Z`, url: `http://a.test/${i}`, status: 200, depth: 0, decision });
const urls = (d: string) => readdirSync(d).filter((f) => f.endsWith('.json')).sort().map((f) => (JSON.parse(readFileSync(join(d, f), 'utf8')) as { url: string }).url);

it('drops items written after the last saved line, and a torn one, keeping the logged ones', () => {
  const d = dataset({ '000000001.json': item(1), '000000002.json': item(2), '000000003.json': item(4), '000000004.json': '{"url": "http://a.te' });
  mkdirSync(join(d, '000000004.json.lock'));
  const dropped = dropUnloggedItems(d, [line(1), line(3, 'recorded'), line(2)]);
  expect(dropped).toEqual(['http://a.test/4', '000000004.json']);
  expect(urls(d)).toEqual(['http://a.test/1', 'http://a.test/2']);
  expect(existsSync(join(d, '000000004.json.lock'))).toBe(false);
});

it('numbers the kept items 1..n again, so the next item cannot overwrite one after a gap', () => {
  const d = dataset({ '000000001.json': item(1), '000000003.json': item(2), '000000004.json': item(3) });
  expect(dropUnloggedItems(d, [line(1), line(2)])).toEqual(['http://a.test/3']);
  expect(readdirSync(d).sort()).toEqual(['000000001.json', '000000002.json']);
  expect(urls(d)).toEqual(['http://a.test/1', 'http://a.test/2']);
});

it('leaves a dataset alone when a saved line has no item (not the dataset this log wrote)', () => {
  const d = dataset({ '000000001.json': item(1), '000000002.json': item(3) });
  expect(dropUnloggedItems(d, [line(1), line(2), line(3)])).toEqual([]);
  expect(urls(d)).toEqual(['http://a.test/1', 'http://a.test/3']);
  expect(dropUnloggedItems(join(d, 'none'), [line(1)])).toEqual([]);
});

it("merges a Redis crawl's workers' datasets without an item a killed worker wrote without its line", () => {
  const storage = mkdtempSync(join(tmpdir(), 'fc-merge-tail-'));
  dirs.push(storage);
  const worker = (id: string, lines: CrawlLogEntry[], items: object[]) => {
    const run = new RunDir(storage, id);
    mkdirSync(run.dir, { recursive: true });
    writeFileSync(run.file('crawlLog'), lines.map((l) => JSON.stringify(l) + '\n').join(''));
    mkdirSync(run.datasetDir, { recursive: true });
    items.forEach((it, i) => writeFileSync(join(run.datasetDir, `${String(i + 1).padStart(9, '0')}.json`), JSON.stringify(it)));
  };
  // Worker 1 was killed right after writing page 2's item; worker 2 fetched page 2 once its lease ran out.
  worker('c.w1', [line(1)], [item(1), item(2)]);
  worker('c.w2', [line(3), { ...line(2), time: '2026-11-24T10:00:09.000Z' }], [item(3), { ...item(2), fetchedAt: '2026-11-24T10:00:09.000Z' }]);
  mergeWorkerRuns(storage, 'c');
  expect(urls(new RunDir(storage, 'c').datasetDir).sort()).toEqual(['http://a.test/1', 'http://a.test/2', 'http://a.test/3']);
});

it('reads an aligned dataset at its tail: the items before the last saved one are not opened', () => {
  // Item 2 is not JSON: matched item by item it would be dropped. Numbered 1..n with the last saved
  // line's item in place, the first n files are the lines' items and are kept unread.
  const d = dataset({ '000000001.json': item(1), '000000002.json': 'not read', '000000003.json': item(3), '000000004.json': item(4) });
  expect(dropUnloggedItems(d, [line(1), line(2), line(3)])).toEqual(['http://a.test/4']);
  expect(readdirSync(d).sort()).toEqual(['000000001.json', '000000002.json', '000000003.json']);
  expect(readFileSync(join(d, '000000002.json'), 'utf8')).toBe('not read');
  // The last saved line's item out of place (an extra item before it): matched item by item.
  const shifted = dataset({ '000000001.json': item(1), '000000002.json': item(5), '000000003.json': item(2), '000000004.json': item(6) });
  expect(dropUnloggedItems(shifted, [line(1), line(2)])).toEqual(['http://a.test/5', 'http://a.test/6']);
  expect(urls(shifted)).toEqual(['http://a.test/1', 'http://a.test/2']);
});
