import { NonRetryableError, SessionError, CriticalError } from '@crawlee/core';
import { addTimeoutToPromise, TimeoutError as ApifyTimeoutError } from '@apify/timeout';
import { errors } from 'playwright';
import { describe, expect, it } from 'vitest';
import { classifyFailure, mediaTypeOf } from '../src/fetch/failure.js';

/** A Node system error as libuv reports it (the fields `dns.lookup` and `net.connect` set). */
function systemError(code: string, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${syscall} ${code} example.invalid`), { code, syscall, errno: -3008 });
}

describe('classifyFailure', () => {
  it('an answer whose type the fetcher turned away is not-html with its media type, whatever the error says', () => {
    const e = new Error('some wording that may change');
    expect(classifyFailure(e, { status: 200, contentType: 'image/png', typeAccepted: false })).toEqual({ kind: 'not-html', status: 0, contentType: 'image/png' });
  });

  it('a 5xx answer is a status failure carrying the status; an accepted answer below 500 is not', () => {
    expect(classifyFailure(new Error('x'), { status: 503, contentType: 'application/json', typeAccepted: true })).toEqual({ kind: 'http-status', status: 503 });
    expect(classifyFailure(new Error('x'), { status: 403, contentType: 'text/html', typeAccepted: true })).toEqual({ kind: 'other', status: 0 });
  });

  it("Playwright's TimeoutError and Crawlee's handler timeouts (@apify/timeout) are timeouts", async () => {
    expect(classifyFailure(new errors.TimeoutError('page.goto: Timeout 30000ms exceeded')).kind).toBe('timeout');
    const crawleeTimeout = await addTimeoutToPromise(() => new Promise(() => {}), 5, 'requestHandler timed out after 0.005 seconds.').catch((e: unknown) => e);
    expect(crawleeTimeout).toBeInstanceOf(ApifyTimeoutError);
    expect(classifyFailure(crawleeTimeout).kind).toBe('timeout');
  });

  it('Node error codes, on the error or on its cause, tell DNS from connection failures', () => {
    expect(classifyFailure(systemError('ENOTFOUND', 'getaddrinfo')).kind).toBe('dns');
    expect(classifyFailure(systemError('ECONNREFUSED', 'connect')).kind).toBe('connection');
    expect(classifyFailure(new Error('request failed', { cause: systemError('ECONNRESET', 'read') })).kind).toBe('connection');
    expect(classifyFailure(new Error('request failed', { cause: systemError('ETIMEDOUT', 'connect') })).kind).toBe('timeout');
  });

  it("Crawlee's SessionError and NonRetryableError (and its subclasses) by class", () => {
    expect(classifyFailure(new SessionError('blocked')).kind).toBe('session');
    expect(classifyFailure(new NonRetryableError('give up')).kind).toBe('non-retryable');
    expect(classifyFailure(new CriticalError('stop')).kind).toBe('non-retryable');
  });

  it('a navigation that became a download is not-html; anything else unknown is other, never a status', () => {
    expect(classifyFailure(new Error('Download is starting')).kind).toBe('not-html');
    expect(classifyFailure(new Error('500 - Internal Server Error: text')).kind).toBe('other');
    expect(classifyFailure('a string thrown').kind).toBe('other');
  });
});

describe('mediaTypeOf', () => {
  it('reads the media type without its parameters, lower-cased; nothing for a missing or broken header', () => {
    expect(mediaTypeOf('Text/HTML; charset=UTF-8')).toBe('text/html');
    expect(mediaTypeOf(['image/png'])).toBe('image/png');
    expect(mediaTypeOf(undefined)).toBeUndefined();
    expect(mediaTypeOf('not a type')).toBeUndefined();
  });
});
