/** Test helper: deterministic pseudo-random texts (distinct seeds share no long runs), Latin words and Chinese characters. */
export function words(seed: number, n: number): string {
  let x = seed * 2654435761 >>> 0;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out.push(`w${(x >>> 8) % 5000}`);
  }
  return out.join(' ');
}
const HAN = '地震救援队伍连夜赶赴灾区转移安置受灾群众房屋倒塌道路中断余震不断专家提醒注意安全物资运送帐篷食品饮用水医疗队伍';
export function chinese(seed: number, n: number): string {
  let x = seed * 40503 + 7;
  let s = '';
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    s += HAN[(x >>> 8) % HAN.length];
  }
  return s;
}
