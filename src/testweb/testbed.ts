/**
 * `npm run testbed -- mediawiki [--category PREFIX --pages N] [--host 127.x.y.z]`: the Wikispeedia
 * articles served by a real MediaWiki on loopback (src/testweb/mediawiki.ts), until Ctrl-C.
 */
import { Command } from 'commander';
import { mediawikiMissing, pagesAround, readWikispeedia, startMediaWiki } from './mediawiki.js';

async function main(): Promise<number> {
  const program = new Command('testbed')
    .argument('<web>', 'the test bed to serve: mediawiki')
    .option('--pages <n>', 'import only N articles around --category (default: all)')
    .option('--category <prefix>', 'Wikispeedia category prefix the subset is drawn around', 'subject.Science.Biology.Birds')
    .option('--host <address>', 'loopback address to bind', '127.0.0.1')
    .option('--cache-dir <dir>', "the wiki's folder (default: storage/.cache/mediawiki-<hash of the page set>)")
    .exitOverride();
  try {
    program.parse();
  } catch {
    return 2;
  }
  const [web] = program.args;
  const o = program.opts<{ pages?: string; category: string; host: string; cacheDir?: string }>();
  if (web !== 'mediawiki') {
    process.stderr.write(`testbed: unknown test bed "${web}" (known: mediawiki)\n`);
    return 2;
  }
  const missing = mediawikiMissing();
  if (missing) {
    process.stderr.write(`testbed: ${missing}\n`);
    return 1;
  }
  let pages: string[] | undefined;
  if (o.pages !== undefined) {
    const n = Number(o.pages);
    if (!Number.isInteger(n) || n < 1) {
      process.stderr.write(`testbed: --pages must be a positive integer, not "${o.pages}"\n`);
      return 2;
    }
    pages = pagesAround(readWikispeedia(), o.category, n);
    if (pages.length === 0) {
      process.stderr.write(`testbed: no Wikispeedia article in category "${o.category}"\n`);
      return 2;
    }
  }
  let wiki;
  try {
    wiki = await startMediaWiki({ pages, host: o.host, cacheDir: o.cacheDir, log: (l) => process.stderr.write(l + '\n') });
  } catch (e) {
    process.stderr.write(`testbed: ${(e as Error).message.split('\n')[0]}\n`);
    return 1;
  }
  process.stdout.write(`MediaWiki test bed: ${wiki.url}/wiki/Main_Page (${wiki.pages.length} articles, ${wiki.cacheDir}); Ctrl-C to stop\n`);
  await new Promise<void>((ok) => {
    process.once('SIGINT', ok);
    process.once('SIGTERM', ok);
  });
  await wiki.stop();
  return 0;
}

main().then((code) => process.exit(code));
