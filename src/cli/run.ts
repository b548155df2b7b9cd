/** What every command shares: run as the entry point, and turn user mistakes into one line. */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { UserError } from '../config/errors.js';

/** The message of a user mistake on stderr, exit code 2; anything else is a bug and propagates. */
export async function reportUserErrors(fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof UserError) {
      process.stderr.write(`error: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

/** Run `main` when `moduleUrl` is the script node was started with; exit with its code. */
export function runAsMain(moduleUrl: string, main: (argv: string[]) => Promise<number>): void {
  const script = process.argv[1];
  if (!script || moduleUrl !== pathToFileURL(realpathSync(script)).href) return;
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`internal error: ${(e as Error).stack ?? e}\n`);
      process.exit(1);
    },
  );
}
