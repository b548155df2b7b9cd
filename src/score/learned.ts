/**
 * Learned component weights for the `combined` strategy: an online logistic regression that
 * predicts "the crawler will judge this URL relevant" from the METHODS §3 components of a
 * queued URL, trained on each fetched page's own verdict (no ground truth).
 *
 * Why: the seeds' components disagree from web to web (tunnels and in-link accumulation pay on
 * portal webs, parent cosine on encyclopaedic ones), and no fixed product of them beat every
 * single-seed preset on both benchmark webs. The model starts as the hand-made product (its log
 * is feature 0, with all other weights 0, so the first ranking is exactly the product's) and
 * moves away from it only as far as this crawl's verdicts pull it, with an L2 pull back to that
 * prior. Written by hand: a dozen weights updated once per fetched page; no library needed.
 */

export interface OnlineLogisticOptions {
  /** Number of features (excluding the bias). */
  size: number;
  /** Prior weights the model is pulled back to (length = size); the bias prior is 0. */
  prior: readonly number[];
  /** SGD step size. */
  learningRate: number;
  /** Strength of the pull towards the prior, per update. */
  l2: number;
}

export class OnlineLogistic {
  readonly weights: number[];
  bias = 0;
  updates = 0;

  constructor(private readonly o: OnlineLogisticOptions) {
    if (o.prior.length !== o.size) throw new Error(`OnlineLogistic: prior has ${o.prior.length} weights, expected ${o.size}`);
    this.weights = [...o.prior];
  }

  /** w·x + b. */
  logit(x: readonly number[]): number {
    let z = this.bias;
    for (let i = 0; i < this.o.size; i++) z += this.weights[i] * x[i];
    return z;
  }

  predict(x: readonly number[]): number {
    return sigmoid(this.logit(x));
  }

  /** One SGD step on the log-loss for label y, then the pull towards the prior. */
  update(x: readonly number[], y: boolean): void {
    const g = (y ? 1 : 0) - this.predict(x);
    const { learningRate: eta, l2, prior } = this.o;
    for (let i = 0; i < this.o.size; i++) this.weights[i] += eta * (g * x[i] - l2 * (this.weights[i] - prior[i]));
    this.bias += eta * (g - l2 * this.bias);
    this.updates++;
  }
}

export function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}
