/**
 * Boilerplate links: the links a site puts on most of its pages (a wiki's sidebar and footer, a
 * portal's menu), whatever the page is about. Their place on a relevant page says nothing about
 * their target, yet every relevant page lends them its relevance, so they rise to the top of the
 * frontier. Counted per host over the fetched pages: a URL linked from at least `share` of a
 * host's fetched pages (once it has `minPages`) is boilerplate, and its score is scaled down.
 */
export class BoilerplateLinks {
  private readonly pages = new Map<string, number>();
  private readonly linkedFrom = new Map<string, number>();
  constructor(
    private readonly share = 0.6,
    private readonly minPages = 5,
    private readonly weight = 0.2,
  ) {}

  /** One fetched page of `host` and the distinct URLs it links to. */
  record(host: string, links: Iterable<string>): void {
    this.pages.set(host, (this.pages.get(host) ?? 0) + 1);
    for (const u of new Set(links)) this.linkedFrom.set(u, (this.linkedFrom.get(u) ?? 0) + 1);
  }

  /** Whether `url` is linked from most fetched pages of `host` (its own site's pages). */
  isBoilerplate(host: string, url: string): boolean {
    const n = this.pages.get(host) ?? 0;
    return n >= this.minPages && (this.linkedFrom.get(url) ?? 0) >= this.share * n;
  }

  /** The factor a link's score is scaled by: `weight` for boilerplate, 1 otherwise. */
  factor(host: string, url: string): number {
    return this.isBoilerplate(host, url) ? this.weight : 1;
  }
}
