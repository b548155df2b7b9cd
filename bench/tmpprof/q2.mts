import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cut, cutForSearch } from '../../src/text/jieba.js';
import { normalizeText } from '../../src/text/tokenize.js';
const dir = '/work/shared/data/zh-content-extraction/cleaned';
const texts = readdirSync(dir).sort().map(f => readFileSync(join(dir,f),'utf8')).filter(t=>t.length>200);
const body = texts.join('\n').slice(10000, 15000);
const joined = [...normalizeText(body).matchAll(/\p{Script=Han}+/gu)].map(m => m[0]).join('，');
const T = (name: string, fn: () => unknown, N = 300) => { for (let i=0;i<30;i++) fn(); const t=performance.now(); for (let i=0;i<N;i++) fn(); console.log(name.padEnd(30), ((performance.now()-t)/N).toFixed(3),'ms'); };
for (let r = 0; r < 2; r++) {
T('search hmm', () => cutForSearch(joined, true));
T('search nohmm', () => cutForSearch(joined, false));
T('cut hmm', () => cut(joined, true));
T('cut nohmm', () => cut(joined, false));
}
const runs = joined.split('，');
console.log('runs', runs.length, 'unique', new Set(runs).size);
const u = [...new Set(runs)];
console.log('chars', runs.join('').length, 'unique chars', u.join('').length);
let tot = 0, uniq = 0;
for (const t of texts) { const rs = [...normalizeText(t).matchAll(/\p{Script=Han}+/gu)].map(m => m[0]); tot += rs.join('').length; uniq += [...new Set(rs)].join('').length; }
console.log('corpus chars', tot, 'unique-run chars', uniq, (uniq / tot * 100).toFixed(1) + '%');
