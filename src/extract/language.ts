/**
 * Which script a page is written in (Han, kana, Hangul, Latin), from its visible text: decides
 * CJK tuning (tokenizer, Readability's threshold), the default time zone and `lang` when the page
 * does not declare one.
 */
const HAN = /[\u3400-\u9fff]/g;
const KANA = /[\u3040-\u30ff]/g;
const HANGUL = /[\uac00-\ud7af]/g;
const count = (s: string, re: RegExp) => (s.match(re) ?? []).length;

/** A Latin word of ~5 letters carries about what one Han character does. */
const LATIN_LETTERS_PER_HAN = 5;

/** Share of Han characters among letters: decides CJK tuning and the default time zone. */
export function hanShare(s: string): number {
  const han = count(s, HAN);
  const latin = (s.match(/[A-Za-z]/g) ?? []).length;
  return han + latin === 0 ? 0 : han / (han + latin / LATIN_LETTERS_PER_HAN);
}

/** Characters of visible text sampled to tell the script (the head of the body is enough). */
const SCRIPT_SAMPLE_CHARS = 2000;
/** Han share above which a page is treated as CJK (Readability threshold, time zone, lang). */
export const CJK_HAN_SHARE = 0.5;
/** Share of kana (Japanese) or Hangul (Korean) among CJK characters that names the language. */
const KANA_OR_HANGUL_SHARE = 0.1;

/** Visible text of the body up to `limit` characters, skipping scripts and styles. */
export function visibleSample(root: Node | null | undefined, limit = SCRIPT_SAMPLE_CHARS): string {
  const parts: string[] = [];
  let n = 0;
  const walk = (node: Node): boolean => {
    for (let c = node.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) {
        const t = (c.nodeValue ?? '').trim();
        if (t) { parts.push(t); n += t.length; if (n >= limit) return false; }
      } else if (c.nodeType === 1 && !SKIP_TEXT.has((c as Element).tagName.toUpperCase()) && !walk(c)) return false;
    }
    return true;
  };
  if (root) walk(root);
  return parts.join(' ');
}
// A <title> is never displayed, even where a broken page puts it in the body.
const SKIP_TEXT = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'TITLE']);

/**
 * The language when the page does not declare one, from its script alone: `ja` with kana, `ko`
 * with Hangul, `zh` with Han, else unknown. Written by hand rather than a language-detection
 * library because what the pipeline decides from `lang` (tokenizer, Readability's threshold,
 * default time zone) hinges on the script only; telling Latin-script languages apart would need
 * a detector such as franc, which was not worth a new dependency for an informative field.
 */
export function scriptLanguage(sample: string): string | undefined {
  const han = count(sample, HAN), kana = count(sample, KANA), hangul = count(sample, HANGUL);
  const cjkChars = han + kana + hangul;
  if (cjkChars === 0) return undefined;
  if (kana / cjkChars >= KANA_OR_HANGUL_SHARE) return 'ja';
  if (hangul / cjkChars >= KANA_OR_HANGUL_SHARE) return 'ko';
  return hanShare(sample) > CJK_HAN_SHARE ? 'zh' : undefined;
}

