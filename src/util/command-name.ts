/**
 * How the user starts a command, for every command we print (help, "continue it with", "open it
 * with"): the installed package's bin (`focused-crawler SUB`), or the npm scripts of a clone.
 * Built modules end in .js, sources run by tsx in .ts. Stage-free: imports nothing from src/.
 */
export type Subcommand = 'extract' | 'debug-extract' | 'trace' | 'report';

const built = import.meta.url.endsWith('.js');

/** The command line that starts `sub` (or a crawl), ready for its arguments. */
export function commandName(sub?: Subcommand, isBuilt = built): string {
  if (isBuilt) return sub ? `focused-crawler ${sub}` : 'focused-crawler';
  if (!sub) return 'npm start --';
  if (sub === 'report') return 'npm start -- report';
  return `npm run ${sub === 'debug-extract' ? 'debug:extract' : sub} --`;
}
