/** `npm run testweb -- --seed 42`: serve the test web until Ctrl-C. */
import { Command } from 'commander';
import { startTestWeb } from './index.js';
import { isoCst } from './model.js';

const program = new Command()
  .name('testweb')
  .description('Serve the seeded local test web on loopback addresses')
  .option('--seed <n>', 'seed (same seed → same web)', '42')
  .option('--articles <n>', 'articles per channel', '40')
  .option('--portals <n>', 'number of news portals', '2')
  .option('--thucnews <dir>', 'THUCNews dir for real headlines', '../shared/data/thucnews')
  .option('--slow-ms <n>', 'delay of the slow page in ms', '3000')
  .option('--port <n>', 'serve every site on this port of its own loopback address (127.0.0.2, .3, …), as docs/examples/testweb.yaml expects (default: any free ports)')
  .option('--mixed', 'the mixed web: add server-rendered portals and one whose URL patterns differ in needing JavaScript');
program.parse();
const o = program.opts<{ seed: string; articles: string; portals: string; thucnews: string; slowMs: string; mixed?: boolean; port?: string }>();

const num = (name: string, v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n)) {
    console.error(`testweb: --${name} must be an integer, got "${v}"`);
    process.exit(2);
  }
  return n;
};

try {
  const web = await startTestWeb({
    seed: num('seed', o.seed), articlesPerChannel: num('articles', o.articles), portals: num('portals', o.portals),
    useThucnews: o.thucnews, slowPageMs: num('slow-ms', o.slowMs), mixed: !!o.mixed, port: o.port !== undefined ? num('port', o.port) : undefined,
  });
  console.log(`Test web (seed ${o.seed}), simulated time ${isoCst(web.clock.now().getTime())}`);
  for (const s of web.sites) console.log(`  ${s.kind.padEnd(6)} ${s.name.padEnd(8)} ${s.origin}/`);
  console.log(`Demo topic: ${web.demo.topic} (${web.demo.keywords.join(' ')}); relevant pages: ${web.relevantTotal(web.demo.topic)}`);
  console.log('Seeds:');
  for (const u of web.demo.seeds) console.log(`  ${u}`);
  console.log('Ctrl-C to stop.');
  const stop = async () => { await web.close(); process.exit(0); };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (e) {
  console.error(`testweb: ${(e as Error).message}`);
  process.exit(1);
}
