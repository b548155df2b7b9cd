/**
 * The steering journal: every action a user took on a running crawl from the dashboard (pause,
 * resume, stop, budget, block, label), one JSON line each in the run folder (steering.jsonl), so
 * the run's record says who changed what and when, and `--resume` re-applies what still holds.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../config/errors.js';
import { readJsonLines } from './jsonl.js';

export const STEERING_FILE = 'steering.jsonl';

/** One action of the user's. */
export type SteeringAction =
  | { action: 'pause' }
  | { action: 'resume' }
  | { action: 'stop' }
  | { action: 'budget'; maxPages: number }
  | { action: 'block'; pattern: string }
  | { action: 'label'; url: string; relevant: boolean };

export type SteeringRecord = SteeringAction & { time: string };

export function readSteering(runDir: string): SteeringRecord[] {
  return readJsonLines<SteeringRecord>(join(runDir, STEERING_FILE));
}

export function appendSteering(runDir: string, action: SteeringAction, at = new Date()): SteeringRecord {
  const r = { time: at.toISOString(), ...action } as SteeringRecord;
  appendFileSync(join(runDir, STEERING_FILE), JSON.stringify(r) + '\n');
  return r;
}

/**
 * What a resumed run re-applies: the last budget given and every block. A pause or a stop ended
 * with the run it was given in (a resumed crawl runs); labels are the judge's own journal's.
 */
export function steeringToReapply(records: SteeringRecord[]): { budget?: number; blocks: string[] } {
  let budget: number | undefined;
  const blocks: string[] = [];
  for (const r of records) {
    if (r.action === 'budget') budget = r.maxPages;
    else if (r.action === 'block' && !blocks.includes(r.pattern)) blocks.push(r.pattern);
  }
  return { budget, blocks };
}

/** A blocked host or URL pattern: what it matches, and how it is shown. */
export interface BlockRule {
  pattern: string;
  kind: 'host' | 'url';
  matches(url: URL): boolean;
}

const globToRegExp = (glob: string): RegExp => new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 'i');

/**
 * `news.example.cn` blocks the host and its subdomains, `*.example.cn` a host pattern; anything
 * with a `/` is a URL: `https://forum.example.cn/board/*` (`*` is any run of characters), or
 * without a `*` every URL that starts with it.
 */
export function parseBlock(raw: string): BlockRule {
  const pattern = raw.trim();
  if (!pattern) throw new UserError('block: give a host (news.example.cn) or a URL pattern (https://news.example.cn/ads/*)');
  if (/\s/.test(pattern)) throw new UserError(`block: "${pattern}" has a space in it; give one host or URL pattern`);
  if (!pattern.includes('/')) {
    const host = pattern.toLowerCase().replace(/\.$/, '');
    if (!/^[a-z0-9*.:[\]_-]+$/.test(host)) throw new UserError(`block: "${pattern}" is not a host name`);
    const re = host.includes('*') ? globToRegExp(host) : undefined;
    return { pattern: host, kind: 'host', matches: (u) => (re ? re.test(u.host) || re.test(u.hostname) : u.host === host || u.hostname === host || u.hostname.endsWith(`.${host}`)) };
  }
  if (pattern.includes('*')) {
    const re = globToRegExp(pattern);
    return { pattern, kind: 'url', matches: (u) => re.test(u.href) };
  }
  let prefix: string;
  try {
    prefix = new URL(pattern).href;
  } catch {
    throw new UserError(`block: "${pattern}" is not a URL (expected https://host/path, or a host name)`);
  }
  return { pattern, kind: 'url', matches: (u) => u.href.startsWith(prefix) };
}
