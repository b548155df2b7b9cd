/**
 * The Redis frontier's state changes, each one Lua script run atomically by Redis (no
 * read-modify-write race between workers). Keys of crawl NAME live under `fc:{NAME}:` (ARGV[1]):
 *
 *   meta     HASH  maxPages, perHostDelayMs, perHostConcurrency, maxDepth, createdAt,
 *                  seq (queue order), handed (pages handed out, leased ones included), nq (queued),
 *                  finished, reclaimed, workers (worker numbers given out), seeded (1 once the
 *                  first worker's seeds are in: before that an empty queue is not the end)
 *   e        HASH  key → entry JSON (queued or leased): url, depth, parentUrl, anchorText, score,
 *                  components, revisit, queuedAt, host, w (the worker whose score it holds)
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
 *   hold     ZSET  token → expiry (ms) of a request that is not a page (comment API) holding a
 *                  host's slot        holdhost  HASH token → host
 *
 * Time is Redis's own clock (TIME), so per-host delays hold across machines whose clocks differ.
 * Hand-out: expired leases come back first, waiting hosts whose time came move to `ready`, then
 * the best URL of the best ready host is leased. A host with a delay has one request at a time and
 * its delay counts from that request's finish (the same rule as politeness.ts, now shared).
 */

const COMMON = `
local P = ARGV[1]
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- Numbers given to redis.call are formatted with 14 digits; scores need all 17.
local function num(x) return string.format('%.17g', x) end
local function meta(f, d) return tonumber(redis.call('HGET', P .. 'meta', f) or d) end
local function delay_of(host)
  local d = tonumber(redis.call('HGET', P .. 'hdelay', host) or '0')
  local base = meta('perHostDelayMs', '0')
  if base > d then return base end
  return d
end
local function cap_of(delay)
  if delay > 0 then return 1 end
  return meta('perHostConcurrency', '2')
end
-- Ties in score go to the older URL (queue.ts's tieBreak).
local function prio(e) return num(e.score - e.queuedAt * 1e-12) end
-- Put a host where it belongs: ready (by its best score), wait (by when it may go), or neither.
local function place(host, now)
  local best = redis.call('ZREVRANGE', P .. 'q:' .. host, 0, 0, 'WITHSCORES')
  if #best == 0 then
    redis.call('ZREM', P .. 'ready', host)
    redis.call('ZREM', P .. 'wait', host)
    return
  end
  local delay = delay_of(host)
  local inflight = tonumber(redis.call('HGET', P .. 'hin', host) or '0')
  if inflight >= cap_of(delay) then
    redis.call('ZREM', P .. 'ready', host)
    redis.call('ZREM', P .. 'wait', host)
    return
  end
  local nxt = tonumber(redis.call('HGET', P .. 'hnext', host) or '0')
  if nxt > now then
    redis.call('ZREM', P .. 'ready', host)
    redis.call('ZADD', P .. 'wait', num(nxt), host)
  else
    redis.call('ZREM', P .. 'wait', host)
    redis.call('ZADD', P .. 'ready', best[2], host)
  end
end
local function hin_decr(host)
  local n = redis.call('HINCRBY', P .. 'hin', host, -1)
  if n <= 0 then redis.call('HDEL', P .. 'hin', host) end
end
local function enqueue(k, e)
  redis.call('HSET', P .. 'e', k, cjson.encode(e))
  redis.call('ZADD', P .. 'q:' .. e.host, prio(e), k)
  redis.call('HINCRBY', P .. 'meta', 'nq', 1)
end
local function unqueue(k, e)
  if redis.call('ZREM', P .. 'q:' .. e.host, k) == 1 then redis.call('HINCRBY', P .. 'meta', 'nq', -1) end
end
-- Holds of requests that are not pages, past their expiry (their worker died mid-request).
local function reclaim_holds(now)
  local dead = redis.call('ZRANGEBYSCORE', P .. 'hold', '-inf', num(now), 'LIMIT', 0, 200)
  for _, t in ipairs(dead) do
    redis.call('ZREM', P .. 'hold', t)
    local host = redis.call('HGET', P .. 'holdhost', t)
    redis.call('HDEL', P .. 'holdhost', t)
    if host then
      hin_decr(host)
      place(host, now)
    end
  end
end
-- Leases past their expiry: the URL goes back to the queue (and its page back to the budget).
local function reclaim(now, maxTries)
  reclaim_holds(now)
  local dead = redis.call('ZRANGEBYSCORE', P .. 'lease', '-inf', num(now), 'LIMIT', 0, 200)
  for _, k in ipairs(dead) do
    redis.call('ZREM', P .. 'lease', k)
    redis.call('HDEL', P .. 'owner', k)
    local raw = redis.call('HGET', P .. 'e', k)
    if raw then
      local e = cjson.decode(raw)
      hin_decr(e.host)
      redis.call('HINCRBY', P .. 'meta', 'handed', -1)
      redis.call('HINCRBY', P .. 'meta', 'reclaimed', 1)
      if redis.call('HINCRBY', P .. 'tries', k, 1) >= maxTries then
        redis.call('HDEL', P .. 'e', k)
        redis.call('HSET', P .. 'drop', k, 'lease expired ' .. maxTries .. ' times (its workers died on it)')
      else
        enqueue(k, e)
      end
      place(e.host, now)
    end
  end
end
-- Waiting hosts whose time has come.
local function promote(now)
  local due = redis.call('ZRANGEBYSCORE', P .. 'wait', '-inf', num(now), 'LIMIT', 0, 1000)
  for _, h in ipairs(due) do place(h, now) end
end
local function leased_by(k, worker)
  return redis.call('ZSCORE', P .. 'lease', k) and redis.call('HGET', P .. 'owner', k) == worker
end
`;

/**
 * offer(P, key, entryJSON, mode): mode 'offer' queues a new URL or re-prioritises a queued one;
 * 'rescore' only re-prioritises. Re-prioritising: a worker may move the score it set itself
 * either way (its scorer re-scored the URL); another worker's score only raises it (the best
 * evidence any worker has, METHODS §3: in-links found anywhere count). Depth: the smallest.
 */
const OFFER = `${COMMON}
local k = ARGV[2]
local ne = cjson.decode(ARGV[3])
local raw = redis.call('HGET', P .. 'e', k)
if raw and not redis.call('ZSCORE', P .. 'lease', k) then
  local e = cjson.decode(raw)
  local changed = false
  if ne.depth and ne.depth < e.depth then e.depth = ne.depth; changed = true end
  if e.w == ne.w or ne.score > e.score then
    if e.score ~= ne.score then changed = true end
    e.score = ne.score
    e.components = ne.components
    e.w = ne.w
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

/** crawlDelay(P, host, ms): publish a robots.txt Crawl-delay for every worker (the largest wins). */
const CRAWL_DELAY = `${COMMON}
local host, ms = ARGV[2], tonumber(ARGV[3])
if ms > tonumber(redis.call('HGET', P .. 'hdelay', host) or '0') then
  redis.call('HSET', P .. 'hdelay', host, num(ms))
  place(host, now_ms())
end
return 1
`;

/**
 * hold(P, token, host, own, holdMs) → 0 (held) | ms to wait | -1 (busy until a request ends): a
 * request that is not a page (a comment-API page of a thread, src/crawl/polite-fetch.ts) takes
 * its host's slot under the same rule as a hand-out, for all workers: the host's concurrency cap,
 * one request at a time with a delay, and the delay since the previous request's end. `own`: the
 * asker's page in flight on that host (its handler makes the request) does not count against
 * it. The hold ends with release(), or after holdMs if its worker dies.
 */
const HOLD = `${COMMON}
local token, host, own, holdMs = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local now = now_ms()
reclaim_holds(now)
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

export const REDIS_SCRIPTS = {
  fcOffer: OFFER,
  fcDrop: DROP,
  fcHandout: HANDOUT,
  fcFinish: FINISH,
  fcGiveback: GIVEBACK,
  fcPause: PAUSE,
  fcRenew: RENEW,
  fcStatus: STATUS,
  fcCrawlDelay: CRAWL_DELAY,
  fcHold: HOLD,
  fcRelease: RELEASE,
  fcTouch: TOUCH,
} as const;

export type RedisScriptName = keyof typeof REDIS_SCRIPTS;
