/**
 * Learning renders in flight (src/fetch/adaptive/adaptive.ts). At concurrency N, the first pages of a new
 * URL pattern arrive together: each was "not rendered yet", so each was rendered, and a
 * server-rendered pattern paid up to N renders where its rule needed fewer (seen in crawl logs:
 * concurrent duplicates of a static host's first pattern). Here a page whose pattern is being
 * learned by enough renders already in flight (as many as the pattern still needs, see
 * AdaptivePolicy.learningNeed) waits for their outcome: equivalent, and it goes over HTTP;
 * different (or a render lost), and it is decided again and rendered. A waiting page costs its
 * concurrency slot for at most one render's time, never a second render.
 */
import { urlPattern, type AdaptivePolicy, type Decision } from './adaptive-policy.js';

export class LearningRenders {
  private readonly inFlight = new Map<string, { renders: number; waiters: Set<() => void> }>();

  constructor(private readonly policy: AdaptivePolicy) {}

  /**
   * The policy's decision for `url`, after waiting (at most `maxWaitMs` in all) while the learning
   * renders in flight on its pattern are enough to decide it. `why` says how long it waited.
   */
  async decide(url: string, maxWaitMs: number): Promise<Decision> {
    const start = Date.now();
    const pattern = urlPattern(url);
    let waited = false;
    for (;;) {
      const need = this.policy.learningNeed(url);
      const f = this.inFlight.get(pattern);
      const left = maxWaitMs - (Date.now() - start);
      if (need === undefined || !f || f.renders < need || left <= 0) break;
      waited = true;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        function done() {
          clearTimeout(timer);
          f!.waiters.delete(done);
          resolve();
        }
        f.waiters.add(done);
      });
    }
    const d = this.policy.decide(url);
    return waited ? { ...d, why: `${d.why} (after waiting ${Date.now() - start} ms for the pattern's learning renders in flight)` } : d;
  }

  /** A learning render of `url`'s pattern starts; call the returned function once its outcome is recorded (or lost). */
  begin(url: string): () => void {
    const pattern = urlPattern(url);
    let f = this.inFlight.get(pattern);
    if (!f) this.inFlight.set(pattern, (f = { renders: 0, waiters: new Set() }));
    f.renders++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      f.renders--;
      if (f.renders === 0 && this.inFlight.get(pattern) === f) this.inFlight.delete(pattern);
      for (const wake of [...f.waiters]) wake();
    };
  }

  /** Learning renders in flight on `url`'s pattern (tests, the summary). */
  rendering(url: string): number {
    return this.inFlight.get(urlPattern(url))?.renders ?? 0;
  }
}
