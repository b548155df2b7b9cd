/**
 * The test web's servers listen on ephemeral ports, one 127.0.0.x address per site: URLs kept
 * from an earlier run (a replay cache, a kept crawl log) are moved onto today's origins by
 * hostname. A URL of a host not among them is returned as it is.
 */
export function rebaseOntoOrigins(origins: readonly string[]): (url: string) => string {
  const byHost = new Map(origins.map((o) => [new URL(o).hostname, o]));
  return (url) => {
    const x = new URL(url);
    const o = byHost.get(x.hostname);
    return o ? o + x.pathname + x.search : url;
  };
}
