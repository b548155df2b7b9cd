/**
 * The Redis frontier's scripts for the host schedule outside the queue's hand-outs (keys in
 * ./redis-scripts.ts): robots.txt and its Crawl-delay, and the requests that are not pages
 * (redirect hops, comment APIs) taking or touching their host's slot for all workers.
 */
import { COMMON } from './redis-scripts-common.js';

/**
 * crawlDelay(P, host, ms) → ms until the host may go: publish a robots.txt Crawl-delay for every
 * worker (the largest wins). The host's next time was its last request plus the delay known
 * then, so a longer delay moves it on by the difference.
 */
const CRAWL_DELAY = `${COMMON}
local host, ms = ARGV[2], tonumber(ARGV[3])
local now = now_ms()
if ms > tonumber(redis.call('HGET', P .. 'hdelay', host) or '0') then
  local old = delay_of(host)
  redis.call('HSET', P .. 'hdelay', host, num(ms))
  local nxt = tonumber(redis.call('HGET', P .. 'hnext', host) or '0')
  if nxt > 0 and delay_of(host) > old then redis.call('HSET', P .. 'hnext', host, num(nxt + delay_of(host) - old)) end
  place(host, now)
end
local nxt = tonumber(redis.call('HGET', P .. 'hnext', host) or '0')
if nxt > now then return nxt - now end
return 0
`;

/** robots(P, origin, json, host): robots.txt as one worker fetched it, for all; that request reached the host now. */
const ROBOTS = `${COMMON}
local host = ARGV[4]
local now = now_ms()
redis.call('HSET', P .. 'robots', ARGV[2], ARGV[3])
local d = delay_of(host)
local nxt = tonumber(redis.call('HGET', P .. 'hnext', host) or '0')
if d > 0 and now + d > nxt then redis.call('HSET', P .. 'hnext', host, num(now + d)) end
place(host, now)
return 1
`;

/**
 * hold(P, token, host, own, holdMs, knownDelayMs) → 0 (held) | ms to wait | -1 (busy until a
 * request ends): a request that is not a page (a comment-API page of a thread,
 * src/crawl/polite-fetch.ts) takes its host's slot under the same rule as a hand-out, for all
 * workers: the host's concurrency cap, one request at a time with a delay, and the delay since
 * the previous request's end. `own`: the asker's page in flight on that host (its handler makes
 * the request) does not count against it. `knownDelayMs`: the host's delay as the asker knows
 * it (a robots.txt Crawl-delay it read for a redirect hop, before any hand-out to that host
 * published it), published like crawlDelay(). The hold ends with release(), or after holdMs if
 * its worker dies.
 */
const HOLD = `${COMMON}
local token, host, own, holdMs, known = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6] or '0')
local now = now_ms()
reclaim_holds(now)
if known > tonumber(redis.call('HGET', P .. 'hdelay', host) or '0') then redis.call('HSET', P .. 'hdelay', host, num(known)) end
local delay = delay_of(host)
local inflight = tonumber(redis.call('HGET', P .. 'hin', host) or '0') - own
if inflight >= cap_of(delay) then return -1 end
local nxt = tonumber(redis.call('HGET', P .. 'hnext', host) or '0')
if nxt > now then return nxt - now end
redis.call('HINCRBY', P .. 'hin', host, 1)
redis.call('ZADD', P .. 'hold', num(now + holdMs), token)
redis.call('HSET', P .. 'holdhost', token, host)
place(host, now)
return 0
`;

/** release(P, token): a hold ends; with a delay, the host may go again `delay` after now. */
const RELEASE = `${COMMON}
local token = ARGV[2]
local host = redis.call('HGET', P .. 'holdhost', token)
if not host then return 0 end
local now = now_ms()
redis.call('ZREM', P .. 'hold', token)
redis.call('HDEL', P .. 'holdhost', token)
hin_decr(host)
local d = delay_of(host)
if d > 0 then redis.call('HSET', P .. 'hnext', host, num(now + d)) end
place(host, now)
return 1
`;

/** touch(P, host): a request the queue did not hand out (a redirect hop) reached the host now. */
const TOUCH = `${COMMON}
local host = ARGV[2]
local now = now_ms()
local d = delay_of(host)
if d <= 0 then return 0 end
local nxt = tonumber(redis.call('HGET', P .. 'hnext', host) or '0')
if now + d > nxt then redis.call('HSET', P .. 'hnext', host, num(now + d)) end
place(host, now)
return 1
`;

export const HOST_SCRIPTS = {
  fcCrawlDelay: CRAWL_DELAY,
  fcRobots: ROBOTS,
  fcHold: HOLD,
  fcRelease: RELEASE,
  fcTouch: TOUCH,
} as const;
