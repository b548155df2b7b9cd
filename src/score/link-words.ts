/**
 * Which words the links on relevant pages use (the link ranker's word evidence).
 *
 * A relevant page names, in its links, the things its topic is made of: a bird article links to
 * other birds, a chemistry article to other elements. So a queued link whose anchor or URL words
 * keep turning up in the links of the pages judged relevant, and seldom in the links of the
 * others, most likely leads to a relevant page, even when the words say nothing about the
 * topic's keywords ("Grey Heron" for the topic "bird species feathers"). This is co-citation
 * at the level of words (after Chakrabarti's apprentice, which learns from the words around
 * links, and the relevance model of the page judge, src/topic/term-model.ts, which learns the
 * topic's words from its examples): it generalises from the pages already judged to links no
 * page has linked to yet, where the in-link count (§3.2) knows nothing.
 *
 * Each fetched page counts its links' words (anchor, URL, the text around them) and its own
 * words (title, headings, main text: what topical pages talk about, so a link named by them
 * scores before any link has used them), with a soft topical label. Per word w:
 *   weight(w) = ln((1 + P_topical(w) / P_all(w)) / 2)
 * (P_all add-one smoothed), and a link's evidence is the mean weight of its anchor and URL words
 * that some page has used (0 for a link with none, and before pages of both kinds): one topical
 * word among generic ones ("Grey Heron") counts, averaging keeps one lucky word from dominating,
 * and a word no page has used is no evidence either way (the test web's forum links).
 *
 * Written by hand: two counters per hashed word; no model to fit.
 */
import { tokenize, urlTokens } from '../text/tokenize.js';
import { fnv1a } from './link-ranker.js';

export interface LinkWordModelOptions {
  /** log2 of the hashed word space. */
  bits?: number;
  /** Pseudo-pages at the base rate that each word's rate is smoothed with. */
  prior?: number;
}

/** The distinct words of a link: its anchor's words and its URL's words (host left out). */
export function linkWords(link: { url: string; anchorText?: string }, host?: string): string[] {
  const words = new Set<string>(link.anchorText ? tokenize(link.anchorText) : []);
  for (const t of urlTokens(link.url)) if (t !== host) words.add(t);
  return [...words];
}

export class LinkWordModel {
  private readonly mask: number;
  private readonly relevantCounts: Float32Array;
  private readonly allCounts: Float32Array;
  relevantMass = 0;
  allMass = 0;
  pages = 0;
  relevantPages = 0;

  constructor(o: LinkWordModelOptions = {}) {
    const bits = o.bits ?? 18;
    this.mask = (1 << bits) - 1;
    this.relevantCounts = new Float32Array(1 << bits);
    this.allCounts = new Float32Array(1 << bits);
  }

  /** Hashed ids of words, one per occurrence. */
  ids(words: readonly string[]): Uint32Array {
    return Uint32Array.from(words.map((w) => fnv1a(w) & this.mask));
  }

  /** A page was judged: the words of its links (anchors and the text around them) and its own words. */
  observe(ids: ArrayLike<number>, relevant: boolean | number): void {
    const r = Number(relevant);
    for (let i = 0; i < ids.length; i++) {
      this.allCounts[ids[i]]++;
      this.relevantCounts[ids[i]] += r;
    }
    this.allMass += ids.length;
    this.relevantMass += r * ids.length;
    this.pages++;
    this.relevantPages += r;
  }

  /** ln((1 + P_relevant(w) / P_all(w)) / 2): 0 for a word as common on relevant pages as on all. */
  weight(id: number): number {
    if (this.relevantMass === 0) return 0;
    const pAll = (this.allCounts[id] + 1) / (this.allMass + 1);
    return Math.log((1 + this.relevantCounts[id] / this.relevantMass / pAll) / 2);
  }

  /**
   * Mean weight of the link's words that some fetched page has used: 0 when it has none, or
   * before pages of both kinds. A word no page has shown is no evidence either way (counted, it
   * weighed ln(1/2), as much against the link as a word seen only on off-topic pages).
   */
  evidence(ids: ArrayLike<number>, from = 0, to = ids.length): number {
    if (to <= from || this.relevantMass === 0 || this.relevantMass >= this.allMass) return 0;
    let s = 0;
    let n = 0;
    for (let i = from; i < to; i++) {
      if (this.allCounts[ids[i]] === 0) continue;
      s += this.weight(ids[i]);
      n++;
    }
    return n ? s / n : 0;
  }

  /** Its state as plain data, live (src/score/state-data.ts). */
  state(): LinkWordState {
    return { v: 1, relevantCounts: this.relevantCounts, allCounts: this.allCounts, relevantMass: this.relevantMass, allMass: this.allMass, pages: this.pages, relevantPages: this.relevantPages };
  }

  restore(s: LinkWordState): void {
    if (s.allCounts.length !== this.allCounts.length) throw new Error(`scorer snapshot: link-word model of ${s.allCounts.length} words, this one has ${this.allCounts.length}`);
    this.relevantCounts.set(s.relevantCounts);
    this.allCounts.set(s.allCounts);
    ({ relevantMass: this.relevantMass, allMass: this.allMass, pages: this.pages, relevantPages: this.relevantPages } = s);
  }
}

export interface LinkWordState {
  v: 1;
  relevantCounts: Float32Array;
  allCounts: Float32Array;
  relevantMass: number;
  allMass: number;
  pages: number;
  relevantPages: number;
}

