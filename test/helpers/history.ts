/**
 * What development history looks like in text, so the docs test can keep it out of the product:
 * the README, docs/*.md and the comments of src/ say how the crawler works and why, never how it
 * came to be (that is git's job). Each pattern is narrow on purpose, so ordinary words pass:
 * - a commit hash: 7–40 lowercase hex characters with at least one digit and one letter, as a
 *   token of its own (not after `#`, so colours pass; not inside a longer word or file name; not
 *   after `0x`). Test vectors and fixtures are out of scope: only prose and comments are read.
 * - a work session: the word session with a number after it, or with an ordinal or "last",
 *   "this", "same" before it (a DevTools or browser session is a thing the code uses and passes).
 * - a work-group handle: a role word (lead, rank, judge, speed, redis) with a number glued on,
 *   or "the" + "lead".
 * - an issue or PR number: the word issue before `#N`, or `#N` after "(" or ", ".
 * - a measurement set named by a capital letter A–J: set + letter before "on", "(", "," or
 *   "and" + another letter (the seed set D of the methods passes).
 * - a diary: last/this/previous + "round", or "on"/"measured" + an ISO date of the 2020s (a date
 *   standing alone is an example, as in the publish-time docs).
 */
import ts from 'typescript';

export const HISTORY_PATTERNS: { name: string; re: RegExp }[] = [
  { name: 'commit hash', re: /(?<![#\w./-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?![\w-])/ },
  { name: 'session', re: /\bsession[\s-]*\d+|\b(?:this|last|next|that|same|previous|earlier|later|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(?:st|nd|rd|th))\s+session\b/i },
  { name: 'handle', re: /\b(?:lead|rank|judge|speed|redis)\d+\b|\bthe lead\b/i },
  { name: 'issue number', re: /\bissues? #\d+|\(#\d+\b|, #\d+\b/i },
  { name: 'measurement set', re: /(?<!seed )\bsets? [A-J](?= on\b| \(| and [A-J]\b|,)/ },
  { name: 'diary', re: /\b(?:last|this|previous) round\b|\b(?:on|measured)\s+20[2-9]\d-[01]\d-[0-3]\d\b/i },
];

/** The history patterns a text matches, with the matched words. */
export function historyIn(text: string): string[] {
  const found: string[] = [];
  for (const { name, re } of HISTORY_PATTERNS) {
    const m = re.exec(text);
    if (m) found.push(`${name}: "${m[0]}"`);
  }
  return found;
}

/** Every comment of a TypeScript source, with its line number (read by the compiler's own scanner). */
export function commentsOf(fileName: string, text: string): { line: number; text: string }[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const seen = new Map<number, { line: number; text: string }>();
  const take = (ranges: readonly ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (!seen.has(r.pos)) seen.set(r.pos, { line: sf.getLineAndCharacterOfPosition(r.pos).line + 1, text: text.slice(r.pos, r.end) });
    }
  };
  const visit = (node: ts.Node) => {
    take(ts.getLeadingCommentRanges(text, node.pos));
    take(ts.getTrailingCommentRanges(text, node.end));
    node.forEachChild(visit);
  };
  visit(sf);
  take(ts.getLeadingCommentRanges(text, sf.endOfFileToken.pos));
  return [...seen.values()].sort((a, b) => a.line - b.line);
}
