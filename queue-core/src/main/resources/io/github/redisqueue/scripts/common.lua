-- Shared prelude, prepended to every script of redis-queue when it is loaded.
-- KEYS (same order for every script; all share the queue's hash tag):
--   1 ready     sorted set, score = priority band + sequence (lowest first)
--   2 delayed   sorted set, score = due time (ms, server clock)
--   3 inflight  sorted set, score = lease deadline (ms, server clock)
--   4 dead      sorted set, score = time of death (ms)
--   5 done      sorted set, score = completion time (ms); only while completed jobs are retained
--   6 expiry    sorted set, score = expiry time of jobs enqueued with an expiry
--   7 wake      list; one element per pending wake-up for blocked consumers
--   8 seq       string counter; job ids and FIFO order
--   9 paused    string flag; present while the queue is paused
--  10 stats     hash of counters
--  11 woken     list that blocked consumers move wake-ups into; cleared by reserve
-- ARGV[1] is the job hash key prefix, ARGV[2] the uniqueness key prefix; the script's own
-- arguments start at ARGV[3].
local K_READY, K_DELAYED, K_INFLIGHT, K_DEAD = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local K_DONE, K_EXPIRY, K_WAKE, K_SEQ, K_PAUSED, K_STATS = KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10]
local K_WOKEN = KEYS[11]
local JOB, UNIQUE = ARGV[1], ARGV[2]
local WAKE_CAP = 8

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- when a job became ready: the latest of its enqueue, its due time and its last return to ready
local function ready_since(enqueued_at, due_at, ready_at)
  return math.max(tonumber(enqueued_at) or 0, tonumber(due_at) or 0, tonumber(ready_at) or 0)
end

-- integers as exact decimal strings (Lua's default number formatting loses digits past 14)
local function int(n)
  return string.format('%d', n)
end

-- higher priority first, FIFO within a priority: priority in [-1000, 1000], seq < 1e12
local function ready_score(priority, seq)
  return int((1000 - priority) * 1000000000000 + seq)
end

local function wake(count)
  local pending = redis.call('LLEN', K_WAKE)
  local add = math.min(count, WAKE_CAP - pending)
  for _ = 1, add do
    redis.call('RPUSH', K_WAKE, '1')
  end
end

-- releases the job's uniqueness key if it still points at this job; after a completion the key
-- may instead be kept for the job's uniqueness window
local function release_unique(id, ukey, ttl, completed)
  if not ukey or ukey == '' then
    return
  end
  local uk = UNIQUE .. ukey
  if redis.call('GET', uk) ~= id then
    return
  end
  ttl = tonumber(ttl) or 0
  if completed and ttl > 0 then
    redis.call('PEXPIRE', uk, ttl)
  else
    redis.call('DEL', uk)
  end
end

local function to_dead(id, reason, now)
  local jk = JOB .. id
  redis.call('HSET', jk, 'state', 'dead', 'error', reason, 'finishedAt', now, 'worker', '')
  redis.call('ZADD', K_DEAD, now, id)
  local u = redis.call('HMGET', jk, 'uniqueKey', 'uniqueTtl')
  release_unique(id, u[1], u[2], false)
  redis.call('HINCRBY', K_STATS, 'dead', 1)
end

-- takes in-flight jobs from their holder: back to their place in ready, or dead when their
-- attempts are used up (the attempt they were on counts); returns how many went back to ready
local function take_back(ids, now, reason)
  local back = 0
  for _, id in ipairs(ids) do
    redis.call('ZREM', K_INFLIGHT, id)
    local jk = JOB .. id
    local f = redis.call('HMGET', jk, 'attempts', 'maxAttempts', 'score')
    if f[3] then
      if tonumber(f[1]) >= tonumber(f[2]) then
        to_dead(id, reason .. ' on attempt ' .. f[1] .. ' of ' .. f[2], now)
      else
        redis.call('HSET', jk, 'state', 'ready', 'readyAt', now, 'worker', '', 'error', reason)
        redis.call('ZADD', K_READY, f[3], id)
        back = back + 1
      end
    end
  end
  if #ids > 0 then
    redis.call('HINCRBY', K_STATS, 'reaped', #ids)
  end
  if back > 0 then
    wake(back)
  end
  return back
end

-- expired leases
local function reclaim(now, limit)
  if limit <= 0 then
    return 0
  end
  local ids = redis.call('ZRANGEBYSCORE', K_INFLIGHT, '-inf', now, 'LIMIT', 0, limit)
  take_back(ids, now, 'lease expired')
  return #ids
end

-- whether a job that has never started is past its expiry
local function is_expired(expire_at, attempts, now)
  local e = tonumber(expire_at) or 0
  return e > 0 and e <= now and (tonumber(attempts) or 0) == 0
end

local function expire(id, now)
  to_dead(id, 'expired', now)
  redis.call('ZREM', K_EXPIRY, id)
  redis.call('HINCRBY', K_STATS, 'expired', 1)
end

-- due delayed jobs move to the end of their priority level in ready; returns promoted, expired
local function promote(now, limit)
  if limit <= 0 then
    return 0, 0
  end
  local ids = redis.call('ZRANGEBYSCORE', K_DELAYED, '-inf', now, 'LIMIT', 0, limit)
  if #ids == 0 then
    return 0, 0
  end
  redis.call('ZREM', K_DELAYED, unpack(ids))
  local promoted, expired = 0, 0
  for _, id in ipairs(ids) do
    local jk = JOB .. id
    local f = redis.call('HMGET', jk, 'priority', 'expireAt', 'attempts')
    if f[1] then
      if is_expired(f[2], f[3], now) then
        expire(id, now)
        expired = expired + 1
      else
        local score = ready_score(tonumber(f[1]), redis.call('INCR', K_SEQ))
        redis.call('HSET', jk, 'state', 'ready', 'score', score)
        redis.call('ZADD', K_READY, score, id)
        promoted = promoted + 1
      end
    end
  end
  if promoted > 0 then
    wake(promoted)
  end
  return promoted, expired
end

-- completions are also counted in 10-second buckets, kept in seven slots of the stats hash
-- (fields ~b<slot> = bucket number, ~n<slot> = count), for the throughput of the last minute
local BUCKET_MS, SLOTS = 10000, 7

local function count_completed(n, now)
  redis.call('HINCRBY', K_STATS, 'completed', n)
  local bucket = math.floor(now / BUCKET_MS)
  local slot = bucket % SLOTS
  if tonumber(redis.call('HGET', K_STATS, '~b' .. slot)) == bucket then
    redis.call('HINCRBY', K_STATS, '~n' .. slot, n)
  else
    redis.call('HSET', K_STATS, '~b' .. slot, bucket, '~n' .. slot, n)
  end
end

-- completions in the current bucket and the five before it, and the span they cover in ms
local function completed_recently(now)
  local bucket = math.floor(now / BUCKET_MS)
  local fields = {}
  for slot = 0, SLOTS - 1 do
    fields[#fields + 1] = '~b' .. slot
    fields[#fields + 1] = '~n' .. slot
  end
  local f = redis.call('HMGET', K_STATS, unpack(fields))
  local sum = 0
  for i = 1, #f, 2 do
    local b = tonumber(f[i])
    if b and b > bucket - 6 and b <= bucket then
      sum = sum + (tonumber(f[i + 1]) or 0)
    end
  end
  return sum, 5 * BUCKET_MS + (now % BUCKET_MS)
end

-- acknowledges one job held under token; returns 1 done, 0 stale token, -1 no such job
local function complete_job(id, token, retention, now)
  local jk = JOB .. id
  local f = redis.call('HMGET', jk, 'state', 'token', 'uniqueKey', 'uniqueTtl')
  if not f[1] then
    return -1
  end
  if f[1] ~= 'active' or f[2] ~= token then
    return 0
  end
  redis.call('ZREM', K_INFLIGHT, id)
  release_unique(id, f[3], f[4], true)
  if retention > 0 then
    redis.call('HSET', jk, 'state', 'completed', 'finishedAt', now, 'worker', '')
    redis.call('ZADD', K_DONE, now, id)
  else
    redis.call('DEL', jk)
  end
  return 1
end

-- a job delayed until due: when it is now the earliest, wake a waiting consumer so that it
-- learns the new due time (a consumer blocks until the earliest due time it knows)
local function delay_job(id, due)
  redis.call('ZADD', K_DELAYED, due, id)
  local first = redis.call('ZRANGE', K_DELAYED, 0, 0)
  if first[1] == id then
    wake(1)
  end
end

local function next_due()
  local first = redis.call('ZRANGE', K_DELAYED, 0, 0, 'WITHSCORES')
  if #first == 0 then
    return -1
  end
  return tonumber(first[2])
end

