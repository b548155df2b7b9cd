/**
 * The Redis frontier's state changes, each one Lua script run atomically by Redis (no
 * read-modify-write race between workers). Keys of crawl NAME live under `fc:{NAME}:` (ARGV[1]):
 *
 *   meta     HASH  maxPages, perHostDelayMs, perHostConcurrency, maxDepth, createdAt, stale,
 *                  seq (queue order), handed (pages handed out, leased ones included), nq (queued),
 *                  finished, reclaimed, workers (worker numbers given out), seeded (1 once the
 *                  first worker's seeds are in: before that an empty queue is not the end)
 *   e        HASH  key → entry JSON (queued or leased): url, depth, parentUrl, anchorText, score,
 *                  components, revisit, queuedAt, host, w (the worker whose score it holds), v
 *   q:HOST   ZSET  queued keys of one host by score (ties: older first, as in queue.ts)
 *   ready    ZSET  hosts that may be fetched now, by their best URL's score
 *   wait     ZSET  hosts with queued URLs waiting for their delay, by the time they may go
 *   hin      HASH  host → requests in flight (leases)      hnext  HASH host → earliest next fetch (ms)
 *   hdelay   HASH  host → robots.txt Crawl-delay (ms), published by whichever worker read it
 *   seen     SET   every key ever queued, dropped or marked seen (de-duplication outlives entries)
 *   drop     HASH  key → why it was dropped
 *   lease    ZSET  key → lease expiry (ms)                  owner  HASH key → worker id
 *   tries    HASH  key → leases that expired on it (a URL that kills its workers is dropped after a few)
 *   robots   HASH  origin → robots.txt as fetched once for all workers
 *   robotslock:ORIGIN  STRING  the worker fetching that robots.txt now (the others wait for it)
 *   hold     ZSET  token → expiry (ms) of a request that is not a page (comment API) holding a
 *                  host's slot        holdhost  HASH token → host
 *
 * Time is Redis's own clock (TIME), so per-host delays hold across machines whose clocks differ.
 * Hand-out: expired leases come back first, waiting hosts whose time came move to `ready`, then
 * the best URL of the best ready host is leased. A host with a delay has one request at a time and
 * its delay counts from that request's finish (the same rule as politeness.ts, now shared).
 */

import { COMMON } from './redis-scripts-common.js';
import { HOST_SCRIPTS } from './redis-scripts-hosts.js';

/**
 * offer(P, key, entryJSON, mode): mode 'offer' queues a new URL or re-prioritises a queued one;
 * 'rescore' only re-prioritises. Re-prioritising: a worker may move the score it set itself
 * either way (its scorer re-scored the URL); another worker's score only raises it (the best
 * evidence any worker has, METHODS §3: in-links found anywhere count). With shared scorers all
 * scores are everyone's, and the more informed one wins (entry `v`: the scorer inputs taken in),
 * so a worker whose scorer had not yet taken in the others' latest pages cannot undo what those
 * pages taught them (meta `stale` counts the scores refused). Depth: the smallest.
 * A band offer's floor (src/frontier/score-floor.ts, the same rule as the in-memory frontier's): an offer
 * with a `floor` only raises (the entry keeps the higher floor); a score without one is taken or
 * refused as above, then lifted back to the floor if it fell below it, with the floor's components.
 */
const OFFER = `${COMMON}
local k = ARGV[2]
local ne = cjson.decode(ARGV[3])
local raw = redis.call('HGET', P .. 'e', k)
if raw and not redis.call('ZSCORE', P .. 'lease', k) then
  local e = cjson.decode(raw)
  local changed = false
  if ne.depth and ne.depth < e.depth then e.depth = ne.depth; changed = true end
  -- Shared scorers (v set): a score from a scorer that had taken in fewer pages than the one
  -- that set the queued score (routed or replayed while the other's newer pages were in flight)
  -- is stale: as a re-score it is ignored, as a page's offer it may only raise (a new in-link).
  local staler = ne.v and e.v and ne.v < e.v
  local take = e.w == ne.w or ne.score > e.score
  if staler then take = ARGV[4] == 'offer' and ne.score > e.score end
  if ne.floor then
    if not e.floor or ne.floor.score > e.floor.score then e.floor = ne.floor; changed = true end
  elseif take then
    if e.score ~= ne.score then changed = true end
    e.score = ne.score
    e.components = ne.components
    e.w = ne.w
    if ne.v and ne.v > (e.v or -1) then e.v = ne.v end
  elseif staler and ne.score ~= e.score then
    redis.call('HINCRBY', P .. 'meta', 'stale', 1)
  end
  if e.floor and e.score < e.floor.score then
    e.score = e.floor.score
    e.components = e.floor.components
    changed = true
  end
  if changed then
    redis.call('HSET', P .. 'e', k, cjson.encode(e))
    redis.call('ZADD', P .. 'q:' .. e.host, prio(e), k)
    place(e.host, now_ms())
  end
  return 'rescored'
end
if ARGV[4] == 'rescore' then return 'not-queued' end
if raw or redis.call('SISMEMBER', P .. 'seen', k) == 1 then return 'duplicate' end
ne.queuedAt = redis.call('HINCRBY', P .. 'meta', 'seq', 1)
if ne.floor and ne.score < ne.floor.score then ne.score = ne.floor.score; ne.components = ne.floor.components end
redis.call('SADD', P .. 'seen', k)
enqueue(k, ne)
place(ne.host, now_ms())
return 'queued'
`;

/** drop(P, key, reason): a queued URL leaves the queue for good (it stays seen). */
const DROP = `${COMMON}
local k = ARGV[2]
redis.call('SADD', P .. 'seen', k)
local raw = redis.call('HGET', P .. 'e', k)
if not raw or redis.call('ZSCORE', P .. 'lease', k) then return 0 end
local e = cjson.decode(raw)
unqueue(k, e)
redis.call('HDEL', P .. 'e', k)
redis.call('HSET', P .. 'drop', k, ARGV[3])
place(e.host, now_ms())
return 1
`;

/** handout(P, worker, leaseMs, maxTries) → {'ok', handed, queued, entryJSON} | {'budget'|'empty', handed, queued, msUntilAHostMayGo} */
const HANDOUT = `${COMMON}
local worker, leaseMs, maxTries = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local now = now_ms()
reclaim(now, maxTries)
promote(now)
local max, handed, nq = meta('maxPages', '0'), meta('handed', '0'), meta('nq', '0')
if max > 0 and handed >= max then return {'budget', handed, nq, '-1'} end
local top = redis.call('ZREVRANGE', P .. 'ready', 0, 0)
if #top == 0 then
  local w = redis.call('ZRANGE', P .. 'wait', 0, 0, 'WITHSCORES')
  local t = -1
  if #w > 0 then t = tonumber(w[2]) - now end
  return {'empty', handed, nq, tostring(t)}
end
local host = top[1]
local k = redis.call('ZREVRANGE', P .. 'q:' .. host, 0, 0)[1]
redis.call('ZREM', P .. 'q:' .. host, k)
nq = redis.call('HINCRBY', P .. 'meta', 'nq', -1)
handed = redis.call('HINCRBY', P .. 'meta', 'handed', 1)
redis.call('HINCRBY', P .. 'hin', host, 1)
redis.call('ZADD', P .. 'lease', num(now + leaseMs), k)
redis.call('HSET', P .. 'owner', k, worker)
place(host, now)
return {'ok', handed, nq, redis.call('HGET', P .. 'e', k)}
`;

/**
 * finish(P, key, worker): the URL is done. Its lease ends; with a delay, the host may go again
 * `delay` after now. A lease that expired meanwhile put the URL back in the queue: it is taken
 * out again (done is done). One another worker holds now is theirs ('taken').
 */
const FINISH = `${COMMON}
local k, worker = ARGV[2], ARGV[3]
local now = now_ms()
local raw = redis.call('HGET', P .. 'e', k)
if not raw then return 'unknown' end
local e = cjson.decode(raw)
if redis.call('ZSCORE', P .. 'lease', k) then
  if redis.call('HGET', P .. 'owner', k) ~= worker then return 'taken' end
  redis.call('ZREM', P .. 'lease', k)
  redis.call('HDEL', P .. 'owner', k)
  hin_decr(e.host)
  local d = delay_of(e.host)
  if d > 0 then redis.call('HSET', P .. 'hnext', e.host, num(now + d)) end
else
  if redis.call('ZSCORE', P .. 'q:' .. e.host, k) then
    unqueue(k, e)
    redis.call('HINCRBY', P .. 'meta', 'handed', 1)
  end
end
redis.call('HDEL', P .. 'e', k)
redis.call('HDEL', P .. 'tries', k)
redis.call('HINCRBY', P .. 'meta', 'finished', 1)
place(e.host, now)
return 'ok'
`;

/**
 * giveback(P, key, worker, touched, dropReason): a leased URL not fetched after all: back to the
 * queue, or dropped with a reason (robots.txt). Its page goes back to the budget. `touched` = 1:
 * a request reached the host meanwhile (robots.txt), so its delay counts from now.
 */
const GIVEBACK = `${COMMON}
local k, worker, touched, reason = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
if not leased_by(k, worker) then return 0 end
local now = now_ms()
local e = cjson.decode(redis.call('HGET', P .. 'e', k))
redis.call('ZREM', P .. 'lease', k)
redis.call('HDEL', P .. 'owner', k)
hin_decr(e.host)
redis.call('HINCRBY', P .. 'meta', 'handed', -1)
local d = delay_of(e.host)
if touched == '1' and d > 0 then redis.call('HSET', P .. 'hnext', e.host, num(now + d)) end
if reason ~= '' then
  redis.call('HDEL', P .. 'e', k)
  redis.call('HSET', P .. 'drop', k, reason)
else
  enqueue(k, e)
end
place(e.host, now)
return 1
`;

/** pause(P, key, worker) → delay ms: a leased request failed and will be retried by its worker after the host's delay. */
const PAUSE = `${COMMON}
local k, worker = ARGV[2], ARGV[3]
if not leased_by(k, worker) then return -1 end
local e = cjson.decode(redis.call('HGET', P .. 'e', k))
local d = delay_of(e.host)
if d > 0 then redis.call('HSET', P .. 'hnext', e.host, num(now_ms() + d)) end
return d
`;

/** renew(P, worker, leaseMs, keys…) → keys whose lease this worker no longer holds. */
const RENEW = `${COMMON}
local worker, leaseMs = ARGV[2], tonumber(ARGV[3])
local until_ = num(now_ms() + leaseMs)
local lost = {}
for i = 4, #ARGV do
  local k = ARGV[i]
  if leased_by(k, worker) then redis.call('ZADD', P .. 'lease', 'XX', until_, k)
  else table.insert(lost, k) end
end
return lost
`;

/** status(P, maxTries) → {exists, handed, queued, leases, readyHosts, maxPages, finished, seeded, msUntilAHostMayGo} */
const STATUS = `${COMMON}
if redis.call('EXISTS', P .. 'meta') == 0 then return {0} end
local now = now_ms()
reclaim(now, tonumber(ARGV[2]))
promote(now)
local w = redis.call('ZRANGE', P .. 'wait', 0, 0, 'WITHSCORES')
local t = -1
if #w > 0 then t = tonumber(w[2]) - now end
return {1, meta('handed', '0'), meta('nq', '0'), redis.call('ZCARD', P .. 'lease'), redis.call('ZCARD', P .. 'ready'), meta('maxPages', '0'), meta('finished', '0'), meta('seeded', '0'), tostring(t)}
`;

export const REDIS_SCRIPTS = {
  fcOffer: OFFER,
  fcDrop: DROP,
  fcHandout: HANDOUT,
  fcFinish: FINISH,
  fcGiveback: GIVEBACK,
  fcPause: PAUSE,
  fcRenew: RENEW,
  fcStatus: STATUS,
  ...HOST_SCRIPTS,
} as const;

export type RedisScriptName = keyof typeof REDIS_SCRIPTS;
