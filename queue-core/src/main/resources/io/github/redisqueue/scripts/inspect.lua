-- Counts per state of one queue, read-only (dead letters are listed by jobs.lua 'list').
-- Returns ready, delayed, in flight, dead, completed, paused (1/0), counters (flat hash; with
-- batchWaiting and batchActive summed over the open batches, when there are), age in
-- ms of the job at the head of the queue (the next to run; -1 when none is ready), completions
-- of about the last minute and the ms they cover.
-- ARGV[3] = 'job' returns instead the fields of job ARGV[4] as a flat list of names and values
-- (its payload under 'payload'; see job_view), empty when there is no such job.
-- ARGV[3] = 'find' returns the id of the job holding uniqueness key ARGV[5] (ARGV[4] = 'unique')
-- or idempotency key KEYS[FIXED_KEYS + 1] (ARGV[4] = 'idem'), '' when none does.
-- ARGV[3] = 'rate' with the limit's permits ARGV[4] (1 to 10000) and window ARGV[5] (ms) returns
-- the server time (ms), the hand-outs within the last window among the last ARGV[4] kept in the
-- stats field '~rate' (see reserve.lua: fixed-width entries, oldest first; one that cannot be read
-- counts none, as reserve.lua reads it), when the next hand-out is allowed (ms; -1 when one is
-- allowed now), and the counters 'rateLimited' and 'rateHeld' (0 when unset). The hand-outs are
-- counted by a binary search of the window: a few entries are read, whatever its size.
-- ARGV[3] = 'history' returns instead the Redis time (ms) and the history string (see
-- common-history.lua; empty when the queue has none yet).
if ARGV[3] == 'job' then
  return job_view(ARGV[4], false)
end
if ARGV[3] == 'find' then
  local id
  if ARGV[4] == 'unique' then
    id = unique_holder(ARGV[5] or '', now_ms())
  elseif ARGV[4] == 'idem' and KEYS[FIXED_KEYS + 1] then
    id = redis.call('GET', KEYS[FIXED_KEYS + 1])
  else
    error('find takes unique <key> or idem with the key after the queue keys')
  end
  return {id or ''}
end
if ARGV[3] == 'rate' then
  local permits, window_ms = tonumber(ARGV[4]), tonumber(ARGV[5])
  if not permits or permits < 1 or permits > 10000 or permits % 1 ~= 0 or not window_ms or window_ms < 1 then
    error('rate takes the permits (1 to 10000) and the window in ms')
  end
  local now = now_ms()
  local v = redis.call('HMGET', K_STATS, '~rate', 'rateLimited', 'rateHeld')
  local raw, digits = v[1] or '', 13
  local count, next_at = 0, -1
  if #raw > 0 and #raw % digits == 0 and not string.find(raw, '[^0-9]') then
    local entries = #raw / digits
    -- the i-th (1-based) of the last permits entries; 0 for one never used
    local function entry(i)
      local at = entries - permits + i
      if at < 1 then
        return 0
      end
      return tonumber(string.sub(raw, (at - 1) * digits + 1, at * digits))
    end
    -- the first of them within the window (entries grow oldest to newest)
    local since, lo, hi = now - window_ms, 1, permits + 1
    while lo < hi do
      local mid = math.floor((lo + hi) / 2)
      if entry(mid) > since then
        hi = mid
      else
        lo = mid + 1
      end
    end
    count = permits - lo + 1
    if count >= permits then
      next_at = entry(1) + window_ms
    end
  end
  return {now, count, next_at, tonumber(v[2]) or 0, tonumber(v[3]) or 0}
end
if ARGV[3] == 'history' then
  return {now_ms(), redis.call('GET', K_HISTORY) or ''}
end
-- the next job to run: the head of the ready set or of the plain list, whichever scores lower
local head_age = -1
local head = redis.call('ZRANGE', K_READY, 0, 0, 'WITHSCORES')
local first_plain = redis.call('LINDEX', K_PLAIN, 0)
-- past the tombstones of deleted plain jobs at the head (the first 16 looked at)
for i = 1, 16 do
  if not first_plain or not is_tombstone(first_plain) then
    break
  end
  first_plain = redis.call('LINDEX', K_PLAIN, i)
end
if first_plain and is_tombstone(first_plain) then
  first_plain = false
end
local plain_head = first_plain and plain_id(first_plain)
local since = 0
if plain_head and (not head[1] or PLAIN_BASE + plain_head < tonumber(head[2])) then
  local t = plain_fields(first_plain)
  since = t and tonumber(t[3]) or 0
elseif head[1] then
  local f = jget(head[1], {'enqueuedAt', 'dueAt', 'readyAt'})
  since = ready_since(f[1], f[2], f[3])
end
if since > 0 then
  head_age = math.max(0, now_ms() - since)
end
local recent, span = completed_recently(now_ms())
-- the counters, with the sub-jobs of the (at most 100 oldest) open batches waiting for a place
-- and admitted, summed here rather than counted by every sub-job
-- (only the counters named here are read: the internal fields, among them a rate limit's window
-- of up to 130 KB, are not; a new counter is added to this list)
local COUNTERS = {'enqueued', 'completed', 'failed', 'dead', 'expired', 'reaped', 'duplicates', 'deleted',
  'cancelled', 'groupActive', 'groupWaiting', 'batchesOpened', 'batchesCompleted', 'batchesCancelled',
  'rateLimited', 'rateHeld'}
local values = redis.call('HMGET', K_STATS, unpack(COUNTERS))
local counters = {}
for i, name in ipairs(COUNTERS) do
  if values[i] then
    counters[#counters + 1] = name
    counters[#counters + 1] = values[i]
  end
end
local open = redis.call('ZRANGE', K_BATCHES, 0, 99)
if #open > 0 then
  local waiting, admitted = 0, 0
  for _, bid in ipairs(open) do
    local b = rget(K_GATES, gate_id('b', bid), {'admits', 'ends'})
    admitted = admitted + math.max(0, (tonumber(b[1]) or 0) - (tonumber(b[2]) or 0))
    waiting = waiting + wait_count(gate_id('b', bid))
  end
  for _, v in ipairs({'batchWaiting', waiting, 'batchActive', admitted}) do
    counters[#counters + 1] = v
  end
end
local out = {ready_count(), redis.call('ZCARD', K_DELAYED),
  redis.call('ZCARD', K_INFLIGHT), redis.call('ZCARD', K_DEAD), redis.call('ZCARD', K_DONE),
  redis.call('EXISTS', K_PAUSED), counters, head_age, recent, span}
return out
