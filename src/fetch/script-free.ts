/**
 * Pages JavaScript cannot change: a document with nothing that can run script is the same
 * DOM in Chromium as parsed from its bytes, so the adaptive fetcher reads it over HTTP with no
 * sample and no re-check. Plain text scans, no DOM.
 */

/** `type` values of a <script> that runs (HTML's JavaScript MIME types, `module`, import maps); others are data blocks (ld+json, templates). */
const RUNNABLE_SCRIPT_TYPE = /^(module|importmap|(text|application)\/(x-)?(java|ecma)script|text\/javascript1\.[0-5]|text\/(jscript|livescript))$/i;

/**
 * Events that only a user's input fires (a click, a key, a form sent): their inline handlers
 * never run while a crawler renders a page. Hover, focus, load/error, animation and media events
 * can fire without input, so their handlers count as script.
 */
const NEEDS_USER_INPUT = new Set([
  'click', 'dblclick', 'auxclick', 'contextmenu', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'pointercancel',
  'keydown', 'keyup', 'keypress', 'beforeinput', 'input', 'change', 'submit', 'reset', 'select', 'wheel',
  'copy', 'cut', 'paste', 'drag', 'dragstart', 'dragend', 'dragenter', 'dragleave', 'dragover', 'drop',
  'touchstart', 'touchend', 'touchmove', 'touchcancel',
]);

/**
 * What on this HTML can run script or change the page after it is parsed, in words; undefined
 * when nothing can: a document without runnable scripts, inline handlers of events that fire
 * without a user's input (`onload=`, `onerror=`, `onmouseover=`…; `onclick=` needs a click a
 * crawler never makes), frames or plugins, a meta refresh or declarative shadow roots is the
 * same DOM in Chromium as parsed from the bytes, so rendering it can only cost (no sample, no
 * re-check needed).
 * Conservative by construction: plain scans of the whole text (a `<script` in a comment, or
 * `onclick=` in prose, counts too), each linear in the page's length; a wrong "script" only
 * costs a rendering.
 */
export function scriptOn(html: string): string | undefined {
  const scripts = /<script\b/gi;
  for (let m: RegExpExecArray | null; (m = scripts.exec(html)); ) {
    const attrs = /^[^<>]{0,2000}>/.exec(html.slice(m.index + 7, m.index + 2010))?.[0];
    const type = attrs && /(?:^|\s)type\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i.exec(attrs);
    const t = type ? (type[1] ?? type[2] ?? type[3] ?? '').split(';')[0].trim() : '';
    // Only a script whose type is plainly data (ld+json, a template) is not counted.
    if (!attrs || !t || RUNNABLE_SCRIPT_TYPE.test(t)) return 'a <script> element';
  }
  const active = /<(iframe|frameset|frame|object|embed|applet|portal|fencedframe)\b/i.exec(html);
  if (active) return `an <${active[1].toLowerCase()}> element`;
  if (/<meta\b[^<>]*http-equiv\s*=\s*["']?\s*refresh/i.test(html)) return 'a meta refresh';
  if (/<template\b[^<>]*\sshadowroot/i.test(html)) return 'a declarative shadow root';
  const handlers = /[\s"'/]on([a-z]+)\s*=/gi;
  for (let m: RegExpExecArray | null; (m = handlers.exec(html)); ) {
    const event = m[1].toLowerCase();
    if (!NEEDS_USER_INPUT.has(event)) return `an on${event}= handler`;
  }
  return undefined;
}
