/**
 * The fetch gate: the one place that decides whether a URL may be fetched at all. Every fetch
 * asks it — seeds and links (before they are queued), each redirect hop and every browser
 * sub-request (through the gate proxy, src/fetch/gate/gate-proxy.ts), robots.txt requests and
 * comment-API requests.
 *
 * Policy (docs/fetchers.md, "The fetch gate"):
 * - only `http:` and `https:`; URLs longer than `maxUrlLength` are refused;
 * - `denyDomains` always wins; with `allowDomains` set, only those hosts and their subdomains;
 * - the address is checked after DNS resolution (every address a name resolves to), and the
 *   connection is then made to the checked address (`lookup` below), so a name cannot resolve to
 *   a public address for the check and a private one for the fetch;
 * - only globally routable unicast addresses are allowed (ipaddr.js ranges), except
 *   - the exact origins of the seeds and of `allowPrivate` (scheme, host and port: a seed on
 *     127.0.0.2:8080 does not open 127.0.0.1:9999), or every private address with
 *     `allowPrivate: true`;
 *   - cloud metadata endpoints are never allowed, whatever the settings.
 * URL parsing is the WHATWG parser's (it reads `0x7f000001`, `2852039166`, `0177.0.0.1` and
 * `127.1` as the IPv4 addresses they are); address classes are ipaddr.js's.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface GateOptions {
  allowDomains?: string[];
  denyDomains?: string[];
  /** true: every private/loopback/link-local address; a list: these exact origins as well as the seeds'. */
  allowPrivate?: boolean | string[];
  /** Origins of the seeds: allowed even when they are on private addresses. */
  seedUrls?: string[];
  /** Longest URL fetched (characters of the serialised URL). */
  maxUrlLength?: number;
  /** DNS, injectable for tests (default: the system resolver, all addresses). */
  resolve?: (host: string) => Promise<string[]>;
}

/** What of a crawl's configuration the gate reads (structural, so fetch/ does not import config/). */
export interface GateConfig {
  allowDomains: string[];
  denyDomains: string[];
  allowPrivate?: boolean | string[];
  maxUrlLength?: number;
  score: { allowDomains: string[]; denyDomains: string[] };
  topics: { seeds: string[] }[];
}

/** The gate options of a crawl: one definition for the engine and the CLI's seed check. */
export function gateOptionsOf(config: GateConfig, extraOrigins: string[] = []): GateOptions {
  return {
    allowDomains: [...config.score.allowDomains, ...config.allowDomains],
    denyDomains: [...config.score.denyDomains, ...config.denyDomains],
    allowPrivate: config.allowPrivate,
    // the seeds' own origins may be private (a local test web); other private addresses only with allowPrivate
    seedUrls: [...config.topics.flatMap((t) => t.seeds), ...extraOrigins],
    maxUrlLength: config.maxUrlLength,
  };
}

export type GateVerdict = { ok: true; addresses?: string[] } | { ok: false; reason: string };

/** Cloud metadata services: refused even with allowPrivate (AWS/GCP/Azure/OpenStack, ECS, Alibaba, AWS IPv6). */
const METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254']);
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

export const DEFAULT_MAX_URL_LENGTH = 2048;

function systemResolve(host: string): Promise<string[]> {
  return new Promise((ok, fail) =>
    dnsLookup(host, { all: true, verbatim: true }, (err, addrs: LookupAddress[]) => (err ? fail(err) : ok(addrs.map((a) => a.address)))),
  );
}

/** The canonical textual address and its ipaddr.js range, with IPv4-mapped IPv6 read as IPv4. */
export function classifyAddress(address: string): { address: string; range: string } | undefined {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return undefined;
  const a = ipaddr.process(bare);
  return { address: a.toString(), range: a.range() };
}

/** Why an address may not be fetched, or undefined when it is a public unicast address. */
export function addressProblem(address: string): string | undefined {
  const c = classifyAddress(address);
  if (!c) return `not an IP address: ${address}`;
  if (METADATA.has(c.address)) return `cloud metadata address ${c.address}`;
  if (c.range === 'unicast') return undefined;
  return `${c.range} address ${c.address}`;
}

function hostMatches(host: string, pattern: string): boolean {
  const p = pattern.toLowerCase().replace(/^\*\./, '').replace(/^\./, '');
  // `host:port` patterns match exactly; bare names match the host and its subdomains.
  if (p.includes(':') && !p.startsWith('[')) return host === p;
  const name = host.replace(/:\d+$/, '');
  return name === p || name.endsWith(`.${p}`);
}

function originKey(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

export class FetchGate {
  private readonly allow: string[];
  private readonly deny: string[];
  private readonly allowAllPrivate: boolean;
  private readonly privateOrigins = new Set<string>();
  readonly maxUrlLength: number;
  private readonly resolveHost: (host: string) => Promise<string[]>;
  /** Hosts and URL patterns the user blocked while the crawl runs (src/crawl/steering.ts): each says why, or undefined. */
  private readonly blocks: ((url: URL) => string | undefined)[] = [];
  /** Counts of refusals by reason class, for the summary and tests. */
  readonly refusals = new Map<string, number>();

  constructor(opts: GateOptions = {}) {
    this.allow = (opts.allowDomains ?? []).map((d) => d.toLowerCase());
    this.deny = (opts.denyDomains ?? []).map((d) => d.toLowerCase());
    this.allowAllPrivate = opts.allowPrivate === true;
    for (const o of [...(opts.seedUrls ?? []), ...(Array.isArray(opts.allowPrivate) ? opts.allowPrivate : [])]) this.allowOrigin(o);
    this.maxUrlLength = opts.maxUrlLength ?? DEFAULT_MAX_URL_LENGTH;
    this.resolveHost = opts.resolve ?? systemResolve;
  }

  /** The exact origins allowed on private addresses (seeds and allowPrivate's list). */
  allowedOrigins(): string[] {
    return [...this.privateOrigins];
  }

  /** Refuse, from now on, every URL `blocked` names a reason for (a host or pattern the user blocked). */
  addBlock(blocked: (url: URL) => string | undefined): void {
    this.blocks.push(blocked);
  }

  /** Let this exact origin through even on a private address (seeds found later, e.g. by search). */
  allowOrigin(url: string): void {
    try {
      this.privateOrigins.add(originKey(new URL(url)));
    } catch {
      // not a URL: nothing to allow
    }
  }

  private refuse(reason: string): GateVerdict {
    const kind = reason.split(/[ :]/)[0];
    this.refusals.set(kind, (this.refusals.get(kind) ?? 0) + 1);
    return { ok: false, reason };
  }

  /**
   * Everything that can be decided without DNS: scheme, length, domain lists, literal IP
   * addresses. Used before a link is queued (cheap; no network).
   */
  checkSync(raw: string): GateVerdict {
    if (raw.length > this.maxUrlLength) return this.refuse(`url-too-long: ${raw.length} characters (limit ${this.maxUrlLength})`);
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return this.refuse('invalid-url');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return this.refuse(`scheme: ${url.protocol} URLs are never fetched`);
    if (url.href.length > this.maxUrlLength) return this.refuse(`url-too-long: ${url.href.length} characters (limit ${this.maxUrlLength})`);
    if (url.username || url.password) return this.refuse('credentials: URLs with a user name or password are not fetched');
    const host = url.host.toLowerCase();
    if (this.deny.some((d) => hostMatches(host, d))) return this.refuse(`denied-domain: ${url.hostname}`);
    for (const b of this.blocks) {
      const why = b(url);
      if (why) return this.refuse(`blocked: ${why}`);
    }
    if (this.allow.length && !this.allow.some((d) => hostMatches(host, d))) return this.refuse(`not-allowed-domain: ${url.hostname} is not in allowDomains`);
    const name = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
    if (METADATA_NAMES.has(name)) return this.refuse(`private-address: cloud metadata host ${name}`);
    if (name === 'localhost' || name.endsWith('.localhost')) {
      if (!this.privateAllowed(url)) return this.refuse(`private-address: ${name} is loopback`);
    }
    if (isIP(name)) {
      const problem = addressProblem(name);
      if (problem && (problem.startsWith('cloud metadata') || !this.privateAllowed(url))) return this.refuse(`private-address: ${problem}`);
    }
    return { ok: true };
  }

  private privateAllowed(url: URL): boolean {
    return this.allowAllPrivate || this.privateOrigins.has(originKey(url));
  }

  /** Is this resolved address acceptable for this URL? */
  addressVerdict(url: URL, address: string): GateVerdict {
    const problem = addressProblem(address);
    if (!problem) return { ok: true };
    if (!problem.startsWith('cloud metadata') && this.privateAllowed(url)) return { ok: true };
    return this.refuse(`private-address: ${url.hostname} resolves to ${problem}`);
  }

  /** The full check: checkSync, then every address the host resolves to. */
  async check(raw: string): Promise<GateVerdict> {
    const first = this.checkSync(raw);
    if (!first.ok) return first;
    const url = new URL(raw);
    const name = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: string[];
    if (isIP(name)) addresses = [name];
    else {
      try {
        addresses = await this.resolveHost(name);
      } catch (e) {
        return this.refuse(`dns: ${name}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      if (addresses.length === 0) return this.refuse(`dns: ${name}: no address`);
    }
    for (const a of addresses) {
      const v = this.addressVerdict(url, a);
      if (!v.ok) return v;
    }
    return { ok: true, addresses };
  }

  /**
   * A `dns.lookup`-compatible function for one checked URL: it answers with the addresses the
   * gate checked, so the connection goes where the check looked (no DNS rebinding between them).
   */
  pinnedLookup(addresses: string[]): typeof dnsLookup {
    const fn = (_host: string, options: unknown, callback?: unknown) => {
      const cb = (typeof options === 'function' ? options : callback) as (err: Error | null, address: string | LookupAddress[], family?: number) => void;
      const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
      const list = addresses.map((a) => ({ address: a, family: isIP(a) }));
      if (all) cb(null, list);
      else cb(null, list[0].address, list[0].family);
    };
    return fn as unknown as typeof dnsLookup;
  }
}
