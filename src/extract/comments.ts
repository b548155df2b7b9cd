/**
 * HTML comment ends as the HTML standard tokenizes them, for parsers that only know `-->`
 * (linkedom's htmlparser2): `--!>` also ends a comment ("incorrectly closed comment"), and
 * `<!-->` / `<!--->` are empty comments ("abrupt closing"). Pages saved by old editors begin
 * with `<!-- … --!>`; read literally, the whole page became one comment and parsed to an
 * empty document. Browsers already read them this way, so the rendered DOM is
 * unaffected; this makes the HTTP path and every re-parse agree with them.
 */
export function repairCommentEnds(html: string): string {
  if (!html.includes('--!>') && !html.includes('<!-->') && !html.includes('<!--->')) return html;
  const out: string[] = [];
  let i = 0;
  for (;;) {
    const start = html.indexOf('<!--', i);
    if (start < 0) break;
    const body = start + 4;
    if (html.startsWith('>', body) || html.startsWith('->', body)) {
      out.push(html.slice(i, start), '<!---->');
      i = body + (html[body] === '>' ? 1 : 2);
      continue;
    }
    const close = html.indexOf('-->', body);
    const bang = html.indexOf('--!>', body);
    if (close < 0 && bang < 0) break; // unterminated: a comment to the end, as the standard says
    if (bang >= 0 && (close < 0 || bang < close)) {
      out.push(html.slice(i, bang), '-->');
      i = bang + 4;
    } else {
      out.push(html.slice(i, close + 3));
      i = close + 3;
    }
  }
  out.push(html.slice(i));
  return out.join('');
}
