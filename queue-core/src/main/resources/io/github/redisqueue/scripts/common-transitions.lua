-- common-transitions.lua: a job's moves between states, a module of the queue scripts' prelude
-- (see common-keys.lua).
-- Defines: is_expired, expire and promote (due delayed jobs to ready), BUCKET_MS, SLOTS,
-- count_completed and completed_recently (completions per 10-second bucket), not_held (the
-- fencing check of an acknowledgement), complete_job, complete_marked (its first step for many
-- jobs at once), delay_job and next_due.
-- Relies on: HISTORY_COMPLETED and history_add (common-history); K_READY, K_DELAYED, K_INFLIGHT, K_DEAD, K_DONE, K_EXPIRY, K_STATS and K_JOBS
-- (common-keys); J, records, record, num, afield, pfield, mark_flag, marked_held, jsave, jget, jset and jdel (common-records); next_seq and
-- ready_score (common-sequence); dmember, dmember_id, corrupt and gone (common-jobs);
-- delayed_head and wake (common-wake); release_unique (common-unique); gate_end and to_dead
-- (common-gates).
-- Invariants: an acknowledgement counts only under the token its lease was given with
-- (complete_job also takes a job taken back from that holder and not reserved since); promote
-- moves at most limit jobs per call; a job delayed to before every other due time wakes a
-- consumer, which learns the new earliest due time.

-- whether a job that was never handed to a handler is past its expiry
local function is_expired(expire_at, attempts, lost, now)
  local e = tonumber(expire_at) or 0
  return e > 0 and e <= now and (tonumber(attempts) or 0) == 0 and (tonumber(lost) or 0) == 0
end

local function expire(id, now)
  to_dead(id, 'expired', now)
  redis.call('ZREM', K_EXPIRY, id)
  redis.call('HINCRBY', K_STATS, 'expired', 1)
end

-- due delayed jobs move to the end of their priority level in ready, in due order and, for one
-- due time, in id order; returns promoted, expired
local function promote(now, limit)
  if limit <= 0 then
    return 0, 0
  end
  -- most calls find nothing due: one read of the head answers that, and next_due too
  local head = redis.call('ZRANGE', K_DELAYED, 0, 0, 'WITHSCORES')
  if #head == 0 or tonumber(head[2]) > now then
    delayed_head = head
    return 0, 0
  end
  delayed_head = false
  local members = redis.call('ZRANGEBYSCORE', K_DELAYED, '-inf', now, 'LIMIT', 0, limit)
  local promoted, expired = 0, 0
  for _, member in ipairs(members) do
    redis.call('ZREM', K_DELAYED, member)
    local id = dmember_id(member)
    local names = {'state', 'priority', 'expireAt', 'attempts', 'lost'}
    local f = jget(id, names)
    if not gone(id, f) then
      local bad = (not f[1] and 'corrupt job: field state is missing') or corrupt(f, names, {2})
      if bad then
        to_dead(id, bad, now)
      elseif is_expired(f[3], f[4], f[5], now) then
        expire(id, now)
        expired = expired + 1
      else
        local score = ready_score(tonumber(f[2]), next_seq())
        jset(id, 'state', 'ready', 'score', score)
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
  history_add(HISTORY_COMPLETED, n, now)
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

-- The fencing check of every acknowledgement: f holds the job's 'state' and 'token' fields, in
-- that order, as HMGET returned them. Returns -1 when the job does not exist, 0 when it is not
-- held under token (taken back, or reserved by someone else since), nil when the caller holds
-- its lease.
local function not_held(f, token)
  if not f[1] then
    return -1
  end
  if f[1] ~= 'active' or f[2] ~= token then
    return 0
  end
  return nil
end

-- acknowledges one job held under token. Also accepted: a job taken back from that holder (its
-- lease ran out) and not reserved by anyone since, which still carries the same token: it is
-- done and nobody else holds it; that includes a job the take-back dead-lettered (it did run),
-- unless a batch or a group counted that death ('ofBatch' or 'ofGroup' set): an end counted
-- there stays as counted, and the late completion is refused as stale. Returns 1 done, 2
-- already completed under that token, 0 stale token (someone reserved it since, or its end was
-- counted otherwise), -1 no such job.
local function complete_job(id, token, retention, now)
  -- started under this token, in flight, and nothing to end but the job itself: deleted without
  -- decoding its record (see afield)
  if retention <= 0 and mark_flag(id, token) == 'S'
      and redis.call('ZREM', K_INFLIGHT, id) == 1 then
    jdel(id)
    return 1
  end
  local r = record(K_JOBS, id)
  local state = r and r[J.state]
  if not state then
    return -1
  end
  if r[J.token] ~= token then
    return 0
  end
  if state == 'completed' then
    return 2
  elseif state == 'active' then
    redis.call('ZREM', K_INFLIGHT, id)
  elseif state == 'ready' then
    -- taken back but not handed out again
    redis.call('ZREM', K_READY, id)
    redis.call('ZREM', K_EXPIRY, id)
  elseif state == 'dead' and (r[J.ofBatch] or '') == '' and (r[J.ofGroup] or '') == '' then
    -- dead-lettered by the take-back; no batch or group counted it
    redis.call('ZREM', K_DEAD, id)
    redis.call('ZREM', K_EXPIRY, id)
  else
    return 0
  end
  release_unique(id, r[J.uniqueKey], r[J.uniqueTtl], true, now)
  gate_end(id, r[J.batch], r[J.group], 'completed', now, retention <= 0)
  if retention > 0 then
    r[J.state], r[J.finishedAt], r[J.worker], r[J.progress] = 'completed', num(now), '', false
    r[J.attempts] = num((tonumber(r[J.attempts]) or 0) + 1)
    jsave(id, r)
    redis.call('HDEL', K_JOBS, afield(id))
    redis.call('ZADD', K_DONE, now, id)
  else
    jdel(id)
  end
  return 1
end

-- The pairs of id and token in ARGV from index first to last that complete_job would take by its
-- first step (no retention; the job marked 'S' under that token and in flight), taken together
-- (see marked_held): one ZREM and one HDEL per run, instead of three commands per job. A pair
-- that repeats an id of an earlier one is left out (complete_job then finds the job gone, as it
-- would have). Returns the set of the ARGV indexes of the pairs completed so (the caller counts
-- them done, without complete_job) and their number.
local function complete_marked(first, last, retention)
  local done, count = {}, 0
  if retention > 0 then
    return done, count
  end
  marked_held(first, last, {S = true}, function(held)
    local gone, fields = {}, {}
    for _, pair in ipairs(held) do
      local id = ARGV[pair[1]]
      gone[#gone + 1] = id
      fields[#fields + 1], fields[#fields + 2], fields[#fields + 3] = id, pfield(id), afield(id)
      records[K_JOBS][id] = false
      done[pair[1]] = true
    end
    redis.call('ZREM', K_INFLIGHT, unpack(gone))
    redis.call('HDEL', K_JOBS, unpack(fields))
    count = count + #gone
  end)
  return done, count
end

-- a job delayed until due: when it is now the earliest, wake a waiting consumer so that it
-- learns the new due time (a consumer blocks until the earliest due time it knows)
local function delay_job(id, due)
  local member = dmember(id)
  redis.call('ZADD', K_DELAYED, due, member)
  delayed_head = false
  local first = redis.call('ZRANGE', K_DELAYED, 0, 0)
  if first[1] == member then
    wake(1)
  end
end

local function next_due()
  local first = delayed_head or redis.call('ZRANGE', K_DELAYED, 0, 0, 'WITHSCORES')
  if #first == 0 then
    return -1
  end
  return tonumber(first[2])
end
