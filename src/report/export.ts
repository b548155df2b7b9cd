/**
 * Exports of a run's relevant pages for other tools: JSON Lines (one record a line) or CSV
 * (RFC 4180 via csv-stringify, UTF-8 with a BOM so spreadsheet programs read Chinese text).
 * Written after a crawl with `--export jsonl|csv`, by `--report RUN --export …` after the fact,
 * and beside every report for its download links. Format: docs/output-formats.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { UserError } from '../config/errors.js';
import type { RunStateData } from '../store/run-state.js';
import { topicName } from '../config/schema.js';
import { relevantItems, type DatasetItem } from './html.js';
import type { CrawlLogEntry } from '../store/crawl-log.js';

export const EXPORT_FORMATS = ['jsonl', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** One relevant page as exported. */
export interface ExportRecord {
  title: string;
  url: string;
  /** Publish time, ISO 8601 with offset; empty when the page shows none. */
  publishTime: string;
  /** The topic's name (its keywords when it has no name). */
  topic: string;
  relevance: number;
  text: string;
}

export const EXPORT_COLUMNS: (keyof ExportRecord)[] = ['title', 'url', 'publishTime', 'topic', 'relevance', 'text'];

/** `jsonl`, `csv` or `jsonl,csv` → formats; anything else is a user error. */
export function parseExportFormats(value: string): ExportFormat[] {
  const list = value
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .filter(Boolean);
  const bad = list.filter((v) => !(EXPORT_FORMATS as readonly string[]).includes(v));
  if (!list.length || bad.length) throw new UserError(`--export "${value}": expected ${EXPORT_FORMATS.join(' or ')} (or both, comma separated)`);
  return [...new Set(list)] as ExportFormat[];
}

export function exportRecords(input: { dataset: DatasetItem[]; log: CrawlLogEntry[]; state?: RunStateData }): ExportRecord[] {
  return relevantItems(input).map((it) => ({
    title: it.title ?? '',
    url: it.url,
    publishTime: it.publishTime ?? '',
    // Older datasets hold the topic's id (topic1): map it to the name through the run's config.
    topic: exportTopic(input.state, it.topic),
    relevance: it.relevance ?? 0,
    text: it.text ?? '',
  }));
}

function exportTopic(state: RunStateData | undefined, id: string | undefined): string {
  if (!id) return '';
  const topics = state?.config.topics ?? [];
  const t = topics.find((x, k) => x.name === id || `topic${k + 1}` === id || topicName(x) === id);
  return t ? topicName(t) : id;
}

export function formatExport(records: ExportRecord[], format: ExportFormat): string {
  if (format === 'jsonl') return records.map((r) => JSON.stringify(r)).join('\n') + (records.length ? '\n' : '');
  return '\uFEFF' + stringify(records, { header: true, columns: EXPORT_COLUMNS });
}

export function writeExport(path: string, records: ExportRecord[], format: ExportFormat): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, formatExport(records, format));
  return path;
}
