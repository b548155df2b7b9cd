/** A URL's de-duplication key and host, as every part of the frontier computes them. */
import { Request } from '@crawlee/core';

/** Crawlee's normalised key (lower-cased host, sorted query, no fragment): the same as its own queues'. */
export function uniqueKeyOf(url: string): string {
  return Request.computeUniqueKey({ url, method: 'GET' });
}

/** `host[:port]`, or '' for an unparsable URL. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}
