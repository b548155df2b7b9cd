/**
 * A fallback for pages nested too deep for the extractor (20,000 nested `<div>`s overflow the
 * call stack of the DOM walkers in src/extract and Readability): keep the text and the tags that
 * carry meaning for us (links, title, headings, paragraphs, dates, meta) and drop every other
 * tag, so nothing is nested any more. The engine analyses this only after a RangeError, and the
 * crawl log says so. Hand-written because it only removes tags by name; no parsing is needed.
 */
const KEEP = new Set(['a', 'title', 'meta', 'time', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'html', 'head', 'body', 'link']);

export function flattenHtml(html: string): string {
  return html.replace(/<\/?([a-zA-Z][a-zA-Z0-9-]*)\b[^>]*>/g, (tag, name: string) => (KEEP.has(name.toLowerCase()) ? tag : ' '));
}
