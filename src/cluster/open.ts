/**
 * The sharing a config asks for (./sharing.ts), what the CLI and the library pass the engine as
 * `CrawlOptions.sharing`: a crawl of its own, or a worker of a crawl shared through Redis. The
 * Redis side is loaded only when the config names a Redis frontier, so a crawl of its own never
 * loads a Redis client.
 */
import { LocalSharing, type CrawlSharing, type SharingStart } from './sharing.js';

/** A crawl of its own, or the Redis crawl the config's `frontier` names, joined now. */
export async function openSharing(start: SharingStart): Promise<CrawlSharing> {
  if (!start.config.frontier.url) return new LocalSharing();
  const { RedisSharing } = await import('./redis-sharing.js');
  return RedisSharing.join(start);
}
