/**
 * What every Lua script of the Redis frontier starts with (./redis-scripts.ts describes the
 * keys): Redis's clock, number formatting, the host's delay and cap, and placing a host in the
 * ready or wait set; leases and holds past their expiry reclaimed.
 */
export const COMMON = `
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
