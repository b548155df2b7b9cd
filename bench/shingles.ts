/**
 * The content metric of the extraction benchmarks (Zyte's evaluate.py): multisets of 4-token
 * shingles, true/false positives and negatives normalised per page, precision and recall averaged
 * over pages, F1 of those. One definition for every command that scores main text.
 */
export type Counts = [number, number, number];

export function grams(tok: string[], n: number): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < Math.max(1, tok.length - n + 1); i++) {
    const g = tok.slice(i, i + n);
    if (g.length === 0) continue;
    const k = g.join('\u0001');
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

/** Zyte evaluate.py: multiset of 4-token shingles, tp/fp/fn normalised per page. */
export function shingleMatch(truth: string, pred: string, tokenize: (s: string) => string[], n = 4): Counts {
  const a = grams(tokenize(truth), n);
  const b = grams(tokenize(pred), n);
  let tp = 0, fp = 0, fn = 0;
  for (const k of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(k) ?? 0, y = b.get(k) ?? 0;
    tp += Math.min(x, y); fp += Math.max(0, y - x); fn += Math.max(0, x - y);
  }
  const s = tp + fp + fn;
  return s > 0 ? [tp / s, fp / s, fn / s] : [0, 0, 0];
}
export const prec = ([tp, fp, fn]: Counts) => (fp === 0 && fn === 0 ? 1 : tp === 0 && fp === 0 ? 0 : tp / (tp + fp));
export const rec = ([tp, fp, fn]: Counts) => (fp === 0 && fn === 0 ? 1 : tp === 0 && fn === 0 ? 0 : tp / (tp + fn));
export const f1Of = (c: Counts) => { const p = prec(c), r = rec(c); return p + r > 0 ? (2 * p * r) / (p + r) : 0; };
export const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
export const quantile = (xs: number[], q: number) => {
  if (xs.length === 0) return 0;
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
/** P and R averaged over pages (pages with no predicted / no gold shingles skipped), F1 of those. */
export function aggregate(cs: Counts[]) {
  const p = mean(cs.filter(([tp, fp]) => tp + fp > 0).map(prec));
  const r = mean(cs.filter(([tp, , fn]) => tp + fn > 0).map(rec));
  return { precision: p, recall: r, f1: (2 * p * r) / (p + r) };
}
export const wordTokens = (s: string) => s.match(/[\p{L}\p{N}\p{M}_]+/gu) ?? [];
/** CJK-aware: each Han character a token, other runs of word characters as in \w+. */
export const cjkTokens = (s: string) => s.match(/[\u3400-\u9fff\uf900-\ufaff]|[\p{L}\p{N}\p{M}_]+?(?=[\u3400-\u9fff]|[^\p{L}\p{N}\p{M}_]|$)/gu) ?? [];
