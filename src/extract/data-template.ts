/**
 * "Where the page's script put the data": from one page fetched over HTTP, the same page rendered
 * in the browser, and the JSON the page had (inline hydration data, the JSON of its XHR/fetch
 * calls), a template that rebuilds the rendered content from the JSON alone — so the next page of
 * the same kind can be analysed from its HTTP bytes and its data, without a browser (the adaptive
 * fetcher's data path, src/fetch/adaptive/adaptive-data.ts).
 *
 * The method (wrapper induction on the rendered DOM, bound to JSON leaves):
 * - containers: elements with an id present in both documents whose text (or link count) the
 *   script changed, innermost ones only; plus <title> when the script set it;
 * - each container's rendered subtree becomes a template: a text node equal to a JSON string or
 *   number leaf, or containing one with fixed text around it (`来源：` + source), is bound to that
 *   leaf's path; an element whose text is that of an HTML-valued leaf is bound to it as markup;
 *   href/src equal to a leaf are bound too; everything else stays literal;
 * - runs of sibling items that differ only in one array index, covering the whole array
 *   (paragraphs, comments, nested lists), become a repeat over that array.
 * Nothing is executed: the JSON came from JSON.parse, the template is filled by string building,
 * and a template that does not rebuild what the browser showed is rejected by the caller's
 * comparison (the same rule the adaptive fetcher uses for plain HTTP).
 */
import { parseHtml } from './page.js';

export type PathSeg = string | number | { v: number };
/** A JSON value: source number (in the recipe's source list) and path; `{v}` is a repeat's index. */
export interface Ref {
  src: number;
  path: PathSeg[];
}
type Part = string | Ref;
export type TNode =
  | { t: 'text'; parts: Part[] }
  | { t: 'el'; tag: string; attrs: [string, Part[]][]; kids: TNode[] }
  | { t: 'html'; ref: Ref }
  | { t: 'repeat'; ref: Ref; v: number; sep: string; item: TNode[] };
/** One container to fill: `#id` or `title`. */
export interface Fill {
  selector: string;
  kids: TNode[];
}

export class MissingData extends Error {}

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const BOUND_ATTRS = new Set(['href', 'src']);
const norm = (s: string | null | undefined) => (s ?? '').replace(/[\s\u00a0\u3000]+/g, ' ').trim();
const isRef = (p: Part): p is Ref => typeof p !== 'string';
/** Leaves shorter than this are bound only when a text node is exactly them (a "12" inside a sentence is a coincidence). */
const MIN_INNER_LEAF = 2;
const MAX_LEAVES = 20_000;
const MAX_INNER_LEAVES = 2_000;

interface Leaf {
  value: string;
  ref: Ref;
}

/** String and number leaves of every source, in document order (first occurrence of a value wins). */
interface Leaves {
  exact: Map<string, Ref>;
  inner: Leaf[];
  markup: Map<string, Ref>;
  /** Every ref of a value (a user name that recurs in a list is bound to its own item's ref, see abstractItem). */
  all: Map<string, Ref[]>;
}

function leavesOf(sources: unknown[]): Leaves {
  const exact = new Map<string, Ref>();
  const all = new Map<string, Ref[]>();
  const inner: Leaf[] = [];
  const markup = new Map<string, Ref>();
  let n = 0;
  const walk = (v: unknown, src: number, path: PathSeg[], depth: number) => {
    if (n > MAX_LEAVES || depth > 40) return;
    if (typeof v === 'string' || typeof v === 'number') {
      n++;
      const value = norm(String(v));
      if (!value) return;
      const ref = { src, path };
      if (!exact.has(value)) exact.set(value, ref);
      const refs = all.get(value);
      if (!refs) all.set(value, [ref]);
      else if (refs.length < 64) refs.push(ref);
      if (value.length >= MIN_INNER_LEAF) inner.push({ value, ref });
      if (typeof v === 'string' && /<[a-z][^>]*>/i.test(v)) {
        const text = norm(parseHtml(`<body>${v}</body>`).body?.textContent);
        if (text.length >= 20 && !markup.has(text)) markup.set(text, ref);
      }
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, src, [...path, i], depth + 1));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, src, [...path, k], depth + 1);
  };
  sources.forEach((s, i) => walk(s, i, [], 0));
  inner.sort((a, b) => b.value.length - a.value.length);
  // each text node not equal to a leaf is searched for leaves inside it: bounded on a page with huge data
  inner.length = Math.min(inner.length, MAX_INNER_LEAVES);
  return { exact, inner, markup, all };
}

/** A text bound to leaves: exact, or the longest leaf inside it with the rest bound again (literal when none). */
function bindText(text: string, leaves: Leaves, depth = 0): Part[] {
  const t = norm(text);
  if (!t) return [text];
  const whole = leaves.exact.get(t);
  if (whole) return [whole];
  if (depth < 4) {
    for (const l of leaves.inner) {
      if (l.value.length >= t.length) continue;
      const at = t.indexOf(l.value);
      if (at < 0) continue;
      const before = t.slice(0, at);
      const after = t.slice(at + l.value.length);
      return [...(before ? bindText(before, leaves, depth + 1) : []), l.ref, ...(after ? bindText(after, leaves, depth + 1) : [])];
    }
  }
  return [text];
}

function refsOf(nodes: TNode[], out: Ref[] = []): Ref[] {
  for (const n of nodes) {
    if (n.t === 'text') out.push(...n.parts.filter(isRef));
    else if (n.t === 'html') out.push(n.ref);
    else if (n.t === 'repeat') {
      out.push(n.ref);
      refsOf(n.item, out);
    } else {
      for (const [, parts] of n.attrs) out.push(...parts.filter(isRef));
      refsOf(n.kids, out);
    }
  }
  return out;
}

const samePrefix = (path: PathSeg[], prefix: PathSeg[]) => path.length > prefix.length && prefix.every((s, i) => JSON.stringify(s) === JSON.stringify(path[i]));

/**
 * `node` as item `k` of the array at `prefix` (in source `src`), its index replaced by the repeat
 * variable `v`; the index it had (undefined when the node does not use the array, null when it
 * used two). A value that recurs elsewhere (the same user on two comments) is first bound where it
 * is item k's own.
 */
function abstractItem(node: TNode, src: number, prefix: PathSeg[], v: number, k: number, ctx: { sources: unknown[]; leaves: Leaves }): { node: TNode; index: number | undefined | null } {
  let index: number | undefined | null;
  const own = (r: Ref): Ref => {
    const value = valueAt(ctx.sources, r, new Map());
    if (typeof value !== 'string' && typeof value !== 'number') return r;
    const alt = ctx.leaves.all.get(norm(String(value)))?.find((a) => a.src === src && samePrefix(a.path, prefix) && a.path[prefix.length] === k);
    return alt ?? r;
  };
  const ref = (r0: Ref): Ref => {
    const r = own(r0);
    if (r.src !== src || !samePrefix(r.path, prefix) || typeof r.path[prefix.length] !== 'number') return r;
    const i = r.path[prefix.length] as number;
    index = index === undefined || index === i ? i : null;
    const path = [...r.path];
    path[prefix.length] = { v };
    return { src, path };
  };
  const walk = (n: TNode): TNode => {
    if (n.t === 'text') return { t: 'text', parts: n.parts.map((p) => (isRef(p) ? ref(p) : p)) };
    if (n.t === 'html') return { t: 'html', ref: ref(n.ref) };
    if (n.t === 'repeat') return { ...n, ref: ref(n.ref), item: n.item.map(walk) };
    return { ...n, attrs: n.attrs.map(([k, parts]) => [k, parts.map((p) => (isRef(p) ? ref(p) : p))]), kids: n.kids.map(walk) };
  };
  const out = walk(node);
  return { node: out, index };
}

const valueAt = (sources: unknown[], r: Ref, env: Map<number, number>): unknown => {
  let v: unknown = sources[r.src];
  for (const s of r.path) {
    if (v === null || typeof v !== 'object') return undefined;
    const k = typeof s === 'object' ? env.get(s.v) : s;
    if (k === undefined) return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
};

/** A node's shape with its inner repeats' variables numbered by first appearance (items built apart number them apart). */
function shapeOf(node: TNode): string {
  const ids = new Map<number, number>();
  const id = (v: number) => ids.get(v) ?? (ids.set(v, ids.size), ids.size - 1);
  return JSON.stringify(node, (k, x) => (k === 'v' && typeof x === 'number' ? `v${id(x)}` : x));
}

/** Sibling runs that walk one whole array in order become repeats (innermost arrays first: kids are done before parents). */
function generaliseRuns(kids: TNode[], sources: unknown[], leaves: Leaves, nextVar: { n: number }): TNode[] {
  const ctx = { sources, leaves };
  const out: TNode[] = [];
  for (let i = 0; i < kids.length; i++) {
    const first = kids[i];
    const candidates = first.t === 'el' ? refsOf([first]).flatMap((r) => r.path.flatMap((s, p) => (s === 0 ? [{ src: r.src, prefix: r.path.slice(0, p) }] : []))) : [];
    candidates.sort((a, b) => b.prefix.length - a.prefix.length);
    let made = false;
    for (const c of candidates) {
      const arr = valueAt(sources, { src: c.src, path: c.prefix }, new Map());
      if (!Array.isArray(arr) || arr.length === 0) continue;
      const v = nextVar.n;
      const item = abstractItem(first, c.src, c.prefix, v, 0, ctx);
      if (item.index !== 0) continue;
      const shape = shapeOf(item.node);
      let j = i + 1;
      let count = 1;
      let sep = '';
      for (; j < kids.length && count < arr.length; j++) {
        const k = kids[j];
        if (k.t === 'text' && k.parts.every((p) => typeof p === 'string' && !norm(p))) {
          if (count === 1) sep = (k.parts[0] as string) ?? '';
          continue;
        }
        const a = abstractItem(k, c.src, c.prefix, v, count, ctx);
        if (a.index !== count || shapeOf(a.node) !== shape) break;
        count++;
      }
      if (count !== arr.length) continue;
      nextVar.n++;
      out.push({ t: 'repeat', ref: { src: c.src, path: c.prefix }, v, sep, item: [item.node] });
      i = j - 1;
      made = true;
      break;
    }
    if (!made) out.push(first);
  }
  return out;
}

function templateOf(node: Node, leaves: Leaves, sources: unknown[], nextVar: { n: number }): TNode | undefined {
  if (node.nodeType === 3) return { t: 'text', parts: bindText(node.textContent ?? '', leaves) };
  if (node.nodeType !== 1) return undefined;
  const el = node as Element;
  const tag = el.tagName.toLowerCase();
  if (tag === 'script' || tag === 'template') return undefined;
  const attrs: [string, Part[]][] = Array.from(el.attributes).map((a) => {
    const bound = BOUND_ATTRS.has(a.name) ? leaves.exact.get(norm(a.value)) : undefined;
    return [a.name, bound ? [bound] : [a.value]];
  });
  if (el.children.length > 0) {
    const markup = leaves.markup.get(norm(el.textContent));
    if (markup) return { t: 'el', tag, attrs, kids: [{ t: 'html', ref: markup }] };
  }
  return { t: 'el', tag, attrs, kids: kidsOf(el, leaves, sources, nextVar) };
}

function kidsOf(el: Element, leaves: Leaves, sources: unknown[], nextVar: { n: number }): TNode[] {
  const kids = Array.from(el.childNodes).map((k) => templateOf(k, leaves, sources, nextVar)).filter((k): k is TNode => k !== undefined);
  return generaliseRuns(kids, sources, leaves, nextVar);
}

/** Elements with an id in both documents whose text or links the script changed; innermost only. */
function changedContainers(http: Document, rendered: Document): Element[] {
  const before = new Map<string, Element>();
  for (const e of Array.from(http.querySelectorAll('[id]'))) if (!before.has(e.id)) before.set(e.id, e);
  const changed: Element[] = [];
  for (const e of Array.from(rendered.querySelectorAll('[id]'))) {
    const h = before.get(e.id);
    const tag = e.tagName.toLowerCase();
    if (!h || tag === 'body' || tag === 'html' || tag === 'head') continue;
    if (norm(h.textContent) !== norm(e.textContent) || h.querySelectorAll('a[href]').length !== e.querySelectorAll('a[href]').length) changed.push(e);
  }
  const set = new Set(changed);
  const outer = new Set<Element>();
  for (const e of changed) for (let p = e.parentElement; p; p = p.parentElement) if (set.has(p)) outer.add(p);
  return changed.filter((e) => !outer.has(e));
}

/** The script's fills: containers rebuilt from the data, and the title when the script set it. Empty when nothing is bound to data. */
export function induceFills(httpHtml: string, renderedHtml: string, sources: unknown[]): Fill[] {
  const http = parseHtml(httpHtml);
  const rendered = parseHtml(renderedHtml);
  const leaves = leavesOf(sources);
  const nextVar = { n: 0 };
  const fills: Fill[] = [];
  for (const c of changedContainers(http, rendered)) {
    const kids = kidsOf(c, leaves, sources, nextVar);
    if (refsOf(kids).length > 0) fills.push({ selector: `#${c.id}`, kids });
  }
  const title = norm(rendered.querySelector('title')?.textContent);
  if (title && title !== norm(http.querySelector('title')?.textContent)) {
    const parts = bindText(title, leaves);
    if (parts.some(isRef)) fills.push({ selector: 'title', kids: [{ t: 'text', parts }] });
  }
  return fills;
}

/** The fills reading source `map.get(n)` where they read source n (a recipe keeps only the sources it uses). */
export function renumberSources(fills: Fill[], map: Map<number, number>): Fill[] {
  const ref = (r: Ref): Ref => ({ src: map.get(r.src) ?? r.src, path: r.path });
  const part = (p: Part): Part => (isRef(p) ? ref(p) : p);
  const walk = (n: TNode): TNode => {
    if (n.t === 'text') return { t: 'text', parts: n.parts.map(part) };
    if (n.t === 'html') return { t: 'html', ref: ref(n.ref) };
    if (n.t === 'repeat') return { ...n, ref: ref(n.ref), item: n.item.map(walk) };
    return { ...n, attrs: n.attrs.map(([k, ps]) => [k, ps.map(part)]), kids: n.kids.map(walk) };
  };
  return fills.map((f) => ({ selector: f.selector, kids: f.kids.map(walk) }));
}

/** Source numbers the fills read. */
export function sourcesUsed(fills: Fill[]): Set<number> {
  return new Set(fills.flatMap((f) => refsOf(f.kids).map((r) => r.src)));
}

const escText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escAttr = (s: string) => escText(s).replace(/"/g, '&quot;');

function scalar(sources: unknown[], r: Ref, env: Map<number, number>): string {
  const v = valueAt(sources, r, env);
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  throw new MissingData(`no value at ${r.path.map((s) => (typeof s === 'object' ? `[${env.get(s.v)}]` : String(s))).join('.')}`);
}

function renderNodes(nodes: TNode[], sources: unknown[], env: Map<number, number>, out: string[]): void {
  for (const n of nodes) {
    if (n.t === 'text') out.push(escText(n.parts.map((p) => (isRef(p) ? scalar(sources, p, env) : p)).join('')));
    else if (n.t === 'html') out.push(scalar(sources, n.ref, env));
    else if (n.t === 'repeat') {
      const arr = valueAt(sources, n.ref, env);
      if (!Array.isArray(arr)) throw new MissingData(`no array at ${n.ref.path.join('.')}`);
      arr.forEach((_, i) => {
        if (i > 0 && n.sep) out.push(escText(n.sep));
        renderNodes(n.item, sources, new Map(env).set(n.v, i), out);
      });
    } else {
      const attrs = n.attrs.map(([k, parts]) => ` ${k}="${escAttr(parts.map((p) => (isRef(p) ? scalar(sources, p, env) : p)).join(''))}"`).join('');
      out.push(`<${n.tag}${attrs}>`);
      if (!VOID.has(n.tag)) {
        renderNodes(n.kids, sources, env, out);
        out.push(`</${n.tag}>`);
      }
    }
  }
}

/**
 * The HTTP page with its containers filled from `sources` (the same list the fills were induced
 * on, read from this page). Throws MissingData when a value or a container is missing.
 */
export function applyFills(httpHtml: string, fills: Fill[], sources: unknown[]): string {
  const doc = parseHtml(httpHtml);
  for (const f of fills) {
    const out: string[] = [];
    renderNodes(f.kids, sources, new Map(), out);
    if (f.selector === 'title') {
      let title = doc.querySelector('title');
      if (!title) {
        title = doc.createElement('title');
        doc.querySelector('head')?.appendChild(title);
      }
      title.innerHTML = out.join('');
      continue;
    }
    const el = doc.querySelector(`[id="${f.selector.slice(1).replace(/["\\]/g, '\\$&')}"]`);
    if (!el) throw new MissingData(`no ${f.selector} on the page`);
    el.innerHTML = out.join('');
  }
  return doc.toString();
}
