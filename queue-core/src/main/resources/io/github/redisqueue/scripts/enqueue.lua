-- Enqueues one or more jobs with the same options. ARGV[3] = job count n, ARGV[4] = headers, then
-- the options: ARGV[5] priority, [6] delay ms, [7] run-at ms (0 = none), [8] uniqueness key
-- ('' = none), [9] uniqueness window ms after completion, [10] expire-after ms (0 = none), [11] max
-- attempts, [12] idempotency key (its position in KEYS, from 23 on; '' = none), [13] idempotency
-- window ms, [14] group key ('' = none), [15] group concurrency; then the n payloads from ARGV[16].
-- An idempotency key is a string key of its own holding the id, expiring with its window.
-- A job of a group whose concurrency is taken waits at the group (state 'waiting', see admit);
-- a grouped job is never delayed (the caller refuses it).
-- Plain jobs (priority 0, ready at once, none of the options above) are appended to the plain
-- list (see plain_element) instead, their ids taken from the sequence as one range; those whose
-- payload is kept apart (over 4 KB, see apart_weight) get a record and a ready entry at a plain job's place instead.
-- Returns id, created flag (1 new, 0 refused as duplicate: id is the existing job's) per job; or,
-- for plain jobs that took a range of ids, -1, the first id, the step between ids and the count.
-- Refuses the whole call, before writing anything, when the queue's sequence would pass 10^12.
local now = now_ms()
local n = tonumber(ARGV[3])
if seq_id(seq_peek() + n) > MAX_SEQ then
  return redis.error_reply('ERR queue sequence exhausted: a queue takes at most ' .. int(MAX_SEQ) .. ' jobs')
end

local headers, priority = ARGV[4], tonumber(ARGV[5])
local delay, run_at, ukey = tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8]
local expire_after, max_attempts = tonumber(ARGV[10]), ARGV[11]
local ikey = (ARGV[12] ~= '') and KEYS[tonumber(ARGV[12])]
local group = ARGV[14]
local due = 0
if run_at > 0 then
  due = run_at
elseif delay > 0 then
  due = now + delay
end
local expire_at = 0
if expire_after > 0 then
  expire_at = now + expire_after
end
local out = {}

if due <= now and priority == 0 and expire_at == 0 and ukey == '' and not ikey and group == '' then
  -- one range of ids, unless they must be checked one by one (see seq_range)
  local last, per_id = seq_range(n)
  local prefix = plain_prefix(headers, max_attempts, num(now))
  local enqueued_at = num(now)
  -- the plain elements; the records and payloads (4 values a job) and ready entries (2) of jobs
  -- whose payload is kept apart (see apart_weight): ready as a plain job is, at the same place
  local elements, apart, ready = {}, {}, {}
  local first = seq_id(last - n + 1)
  for i = 1, n do
    local id = per_id and int(new_id()) or num(first + (i - 1) * ID_STEP)
    local payload = ARGV[15 + i]
    if apart_weight(#payload) then
      local r = plain_record(id, {headers, max_attempts, enqueued_at})
      local a, k = #apart, #ready
      apart[a + 1], apart[a + 2], apart[a + 3], apart[a + 4] = id, cmsgpack.pack(r), pfield(id), payload
      ready[k + 1], ready[k + 2] = r[J.score], id
    else
      elements[#elements + 1] = plain_element(id, prefix, payload)
    end
    if per_id then
      out[2 * i - 1] = id
      out[2 * i] = 1
    end
  end
  local len = 0
  for from = 1, #elements, 1000 do
    len = redis.call('RPUSH', K_PLAIN, unpack(elements, from, math.min(from + 999, #elements)))
  end
  if len > 0 and len == #elements then
    -- a new list holds no tombstone (see plain_tombstone), whatever became of the last one
    redis.call('HDEL', K_STATS, TOMBS)
  end
  for from = 1, #apart, 1000 do
    redis.call('HSET', K_JOBS, unpack(apart, from, math.min(from + 999, #apart)))
  end
  for from = 1, #ready, 1000 do
    redis.call('ZADD', K_READY, unpack(ready, from, math.min(from + 999, #ready)))
  end
  redis.call('HINCRBY', K_STATS, 'enqueued', n)
  wake(n)
  if per_id then
    return out
  end
  -- a range of new ids: its first, the step between ids and the count
  return {-1, first, ID_STEP, n}
end

local woken, created = 0, 0
local gk = gate_id('g', group)
for i = 1, n do
  local existing = false
  if ikey then
    existing = redis.call('GET', ikey)
  end
  if not existing and ukey ~= '' then
    existing = unique_holder(ukey, now)
  end
  if existing then
    out[#out + 1] = existing
    out[#out + 1] = 0
    redis.call('HINCRBY', K_STATS, 'duplicates', 1)
  else
    local seq = new_id()
    local id = int(seq)
    local score = ready_score(priority, seq)
    local state = 'ready'
    if due > now then
      state = 'delayed'
    end
    local g
    if group ~= '' then
      g = rget(K_GATES, gk, {'cap', 'admits', 'ends'})
      if not g[1] then
        g = {math.max(1, math.min(MAX_GATE_CAP, tonumber(ARGV[15]) or 1)), 0, 0}
      end
      if (tonumber(g[2]) or 0) - (tonumber(g[3]) or 0) >= (tonumber(g[1]) or 1) or wait_count(gk) > 0 then
        state = 'waiting'
      end
    end
    local r = blank(K_JOBS)
    r[J.state], r[J.headers], r[J.priority], r[J.score] = state, headers, num(priority), score
    r[J.attempts], r[J.maxAttempts], r[J.token], r[J.enqueuedAt] = '0', max_attempts, '0', num(now)
    r[J.dueAt], r[J.expireAt], r[J.uniqueKey], r[J.uniqueTtl] = num(due), num(expire_at), ukey, ARGV[9]
    if group ~= '' then
      r[J.group] = group
    end
    jcreate(id, r, ARGV[15 + i])
    if ukey ~= '' then
      unique_take(ukey, id)
    end
    if ikey then
      redis.call('SET', ikey, id, 'PX', ARGV[13])
    end
    if state == 'waiting' then
      rset(K_GATES, gk, 'cap', g[1], 'admits', g[2], 'ends', g[3])
      wait_push(gk, id)
      redis.call('HINCRBY', K_STATS, 'groupWaiting', 1)
    elseif state == 'delayed' then
      delay_job(id, due)
    else
      if group ~= '' then
        rset(K_GATES, gk, 'cap', g[1], 'admits', (tonumber(g[2]) or 0) + 1, 'ends', g[3])
        redis.call('HINCRBY', K_STATS, 'groupActive', 1)
      end
      redis.call('ZADD', K_READY, score, id)
      woken = woken + 1
    end
    if expire_at > 0 and state ~= 'waiting' then
      redis.call('ZADD', K_EXPIRY, expire_at, id)
    end
    out[#out + 1] = id
    out[#out + 1] = 1
    created = created + 1
  end
end
if created > 0 then
  redis.call('HINCRBY', K_STATS, 'enqueued', created)
end
if woken > 0 then
  wake(woken)
end
return out
