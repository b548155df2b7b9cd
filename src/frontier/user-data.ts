/**
 * What the frontier hands the fetcher with each request (Crawlee's `request.userData`), one
 * type checked by one schema, after Crawlee's `Request<UserData>` and its router's schemas.
 * Everything that reads a request's metadata (the engine, plugins, the replay bench) reads it
 * through `crawlUserData()`, never by casting.
 */
import { z } from 'zod';

export const CrawlUserDataSchema = z.object({
  /** Link hops from a seed (0 = seed). */
  depth: z.number().int().nonnegative().default(0),
  /** The page the URL was queued from (absent for seeds and revisits). */
  parentUrl: z.string().optional(),
  /** Anchor text of the link it was found by. */
  anchorText: z.string().optional(),
  /** A re-fetch of a hot reply thread (METHODS §4). */
  revisit: z.boolean().optional(),
  /** The frontier score it was handed out at. */
  score: z.number().optional(),
  /** The score's named components (for the crawl log and --explain). */
  components: z.record(z.string(), z.number()).optional(),
});

export type CrawlUserData = z.output<typeof CrawlUserDataSchema>;

/** A request's metadata, checked (a request that did not come from our frontier gets the defaults). */
export function crawlUserData(request: { userData?: unknown }): CrawlUserData {
  const r = CrawlUserDataSchema.safeParse(request.userData ?? {});
  if (r.success) return r.data;
  throw new Error(`request userData does not match CrawlUserData: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
}
