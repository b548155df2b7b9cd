/**
 * Why a fetch failed, read from what failed rather than from its message text: the response the
 * fetcher got (its status and content type), the error's class (Playwright's and Crawlee's error
 * classes) and Node's error codes. The engine's failure path logs a failure by this
 * classification (src/crawl/page-handler.ts).
 */
import { MIMEType } from 'node:util';
import { NonRetryableError, SessionError } from '@crawlee/core';
import { errors } from 'playwright';

/** What the server answered to a request that then failed, as the fetcher saw it. */
export interface FetchAnswer {
  status: number;
  /** The media type of the answer (`image/png`), without its parameters. */
  contentType?: string;
  /** False when the fetcher turned the answer away for its content type (not a document it reads). */
  typeAccepted: boolean;
}

export type FailureKind =
  /** Not a document: a content type the fetcher does not read, or a navigation that became a download. */
  | 'not-html'
  /** The server answered with an error status (the HTTP fetcher fails every 5xx answer). */
  | 'http-status'
  | 'timeout'
  /** The host name did not resolve. */
  | 'dns'
  /** The connection was refused, reset or cut. */
  | 'connection'
  /** A session-level failure (Crawlee's SessionError: blocked, retired session). */
  | 'session'
  /** An error Crawlee does not retry (its NonRetryableError and subclasses). */
  | 'non-retryable'
  | 'other';

export interface FailureClass {
  kind: FailureKind;
  /** The answer's status when the failure is the status itself; 0 otherwise. */
  status: number;
  contentType?: string;
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL']);
const CONNECTION_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN']);

/** The media type of a Content-Type header (`text/html; charset=utf-8` → `text/html`); undefined when absent or unparseable. */
export function mediaTypeOf(header: string | string[] | undefined): string | undefined {
  const h = Array.isArray(header) ? header[0] : header;
  if (!h) return undefined;
  try {
    return new MIMEType(h).essence;
  } catch {
    return undefined;
  }
}

/** A Node system error code on the error or on its cause (got and undici wrap the socket's error). */
function errorCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/**
 * Playwright ends a navigation that turns into a download with a plain Error: it has no class or
 * code of its own (the browser aborts the navigation, then reports the download), so this is the
 * one failure told by its text, Playwright's fixed wording.
 */
function isDownloadAbort(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('Download is starting');
}

/**
 * Playwright's errors.TimeoutError; got's TimeoutError (its `name`); Crawlee's handler and
 * navigation timeouts, @apify/timeout's TimeoutError, which sets no `name`: told by its class's
 * name, as Crawlee's own browser crawler tells it.
 */
function isTimeout(error: unknown): boolean {
  if (error instanceof errors.TimeoutError) return true;
  return error instanceof Error && (error.name === 'TimeoutError' || error.constructor.name === 'TimeoutError' || error.constructor.name === 'InternalTimeoutError');
}

export function classifyFailure(error: unknown, answer?: FetchAnswer): FailureClass {
  if (answer && !answer.typeAccepted) return { kind: 'not-html', status: 0, contentType: answer.contentType };
  if (answer && answer.status >= 500) return { kind: 'http-status', status: answer.status };
  if (isDownloadAbort(error)) return { kind: 'not-html', status: 0 };
  if (isTimeout(error)) return { kind: 'timeout', status: 0 };
  const code = errorCode(error);
  if (code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') return { kind: 'timeout', status: 0 };
  if (code && DNS_CODES.has(code)) return { kind: 'dns', status: 0 };
  if (code && CONNECTION_CODES.has(code)) return { kind: 'connection', status: 0 };
  if (error instanceof SessionError) return { kind: 'session', status: 0 };
  if (error instanceof NonRetryableError) return { kind: 'non-retryable', status: 0 };
  return { kind: 'other', status: 0 };
}
