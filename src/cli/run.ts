/** What every command shares: run as the entry point, and turn user mistakes into one line. */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { CommanderError, type Command } from 'commander';
import { UserError } from '../config/errors.js';

/**
 * Parse argv with a commander program whose errors are ours to report: returns the exit code
 * when parsing already ended the command (--help, --version: 0; a flag mistake: 2, after
 * commander's one line), undefined when the command should run.
 */
export function parseCommandLine(program: Command, argv: string[]): number | undefined {
  program.exitOverride().configureOutput({ writeErr: (s) => process.stderr.write(s) });
  try {
    program.parse(argv, { from: 'user' });
    return undefined;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    throw e;
  }
}

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

/**
 * Resolve once everything written to the stream so far has been handed to the OS. Writes to a
 * pipe are asynchronous in Node: exiting before they drain cut `extract --json | jq` short.
 */
export function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((ok) => {
    if (stream.destroyed || !stream.writable) return ok();
    stream.write('', () => ok());
  });
}

/** Run `main` when `moduleUrl` is the script node was started with; exit with its code once stdout and stderr are flushed. */
export function runAsMain(moduleUrl: string, main: (argv: string[]) => Promise<number>): void {
  const script = process.argv[1];
  if (!script || moduleUrl !== pathToFileURL(realpathSync(script)).href) return;
  // A reader that went away (`focused-crawler --help | head -3`) ends the output, not with a stack trace.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      process.exit(0);
    });
  }
  const exit = async (code: number) => {
    await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
    process.exit(code);
  };
  main(process.argv.slice(2)).then(exit, (e) => {
    process.stderr.write(`internal error: ${(e as Error).stack ?? e}\n`);
    return exit(1);
  });
}
