-- Shared prelude, prepended to every script of redis-queue when it is loaded.
-- KEYS (same order for every script; all share the queue's hash tag):
--   1 ready     sorted set, score = priority band + sequence (lowest first)
--   2 delayed   sorted set, score = due time (ms, server clock); members are job ids left-padded
--               with zeros to 16 digits, so that jobs due in the same ms come out in id order
--   3 inflight  sorted set, score = lease deadline (ms, server clock)
--   4 dead      sorted set, score = time of death (ms)
--   5 done      sorted set, score = completion time (ms); only while completed jobs are retained
--   6 expiry    sorted set, score = expiry time of jobs enqueued with an expiry
--   7 wake      list; one element per pending wake-up for blocked consumers
--   8 seq       string counter; job ids and FIFO order
--   9 paused    string flag; present while the queue is paused
--  10 stats     hash of counters (fields starting with '~' are internal)
--  11 woken     list that blocked consumers move wake-ups into; cleared by reserve
--  12 live      sorted set of the workers consuming the queue, score = heartbeat deadline (ms)
-- ARGV[1] is the job hash key prefix, ARGV[2] the uniqueness key prefix; the script's own
-- arguments start at ARGV[3].
--
-- Rules every script keeps: it validates what it reads before it writes (Redis keeps the writes a
-- script made before an error), a job hash with a missing or non-numeric field is dead-lettered
-- with the reason instead of failing the call, and every loop is bounded by an argument.
local K_READY, K_DELAYED, K_INFLIGHT, K_DEAD = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local K_DONE, K_EXPIRY, K_WAKE, K_SEQ, K_PAUSED, K_STATS = KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10]
local K_WOKEN, K_LIVE = KEYS[11], KEYS[12]
local JOB, UNIQUE = ARGV[1], ARGV[2]
-- keys named after the job hash prefix, all in the queue's hash tag: <queue tag>:idem:<key>
-- (idempotency keys), <queue tag>:batch:<id> (a batch's hash; its waiting list and list of
-- sub-jobs add ':wait' and ':jobs'), <queue tag>:group:<key> (a group's hash, with ':wait'),
-- <queue tag>:batches (open batches, score = creation time), <queue tag>:batches:done (finished
-- batches whose completion job is not handed off yet) and <queue tag>:result:<id> (results)
local BASE = string.sub(JOB, 1, -5)
local IDEM = BASE .. 'idem:'
local BATCH, GROUP = BASE .. 'batch:', BASE .. 'group:'
local K_BATCHES, K_BATCHES_DONE = BASE .. 'batches', BASE .. 'batches:done'
-- most jobs one batch or group may have admitted (within its cap) at once
local MAX_GATE_CAP = 1000
local WAKE_CAP = 8
-- sequence numbers stay below 10^12 so that priority bands never overlap
local MAX_SEQ = 999999999999
-- longest uniqueness window kept after completion: 3650 days
local MAX_UNIQUE_TTL = 315360000000
-- in-flight entries one call walks when it looks for the jobs of a worker
local SLICE = 1000
-- losses of a job that was only reserved ahead dead-letter it at this many times its max attempts
local AHEAD_FACTOR = 3

-- when a job became ready: the latest of its enqueue, its due time and its last return to ready
local function ready_since(enqueued_at, due_at, ready_at)
  return math.max(tonumber(enqueued_at) or 0, tonumber(due_at) or 0, tonumber(ready_at) or 0)
end

-- integers as exact decimal strings (Lua's default number formatting loses digits past 14)
local function int(n)
  return string.format('%d', n)
end

-- the next free id: the counter, or past it when the counter fell behind existing jobs (it was
-- lost, say by eviction), so that no job hash is ever overwritten
local function new_id()
  local seq = redis.call('INCR', K_SEQ)
  if redis.call('EXISTS', JOB .. int(seq)) == 0 then
    return seq
  end
  local step = 1
  for _ = 1, 62 do
    seq = seq + step
    if redis.call('EXISTS', JOB .. int(seq)) == 0 then
      redis.call('SET', K_SEQ, int(seq))
      return seq
    end
    step = step * 2
  end
  error('no free job id found')
end

-- higher priority first, FIFO within a priority: priority in [-1000, 1000], seq capped below 10^12
local function ready_score(priority, seq)
  return int((1000 - priority) * 1000000000000 + math.min(seq, MAX_SEQ))
end

-- member of the delayed set for a job id, and back
local function dmember(id)
  if #id < 16 and string.match(id, '^%d+$') then
    return string.rep('0', 16 - #id) .. id
  end
  return id
end

local function dmember_id(member)
  return string.match(member, '^0*(%d+)$') or member
end

-- the reason a job hash cannot be used, or nil: f holds the values of the fields named in names;
-- the fields at the positions in required must be numbers
local function corrupt(f, names, required)
  for _, i in ipairs(required) do
    if not tonumber(f[i]) then
      local found = f[i] and ("'" .. string.sub(f[i], 1, 40) .. "'") or 'missing'
      return 'corrupt job: field ' .. names[i] .. ' is ' .. found
    end
  end
  return nil
end

-- whether a job's hash is gone, given the values f read from it with the state field first; a
-- hash that exists without a state is damaged, not gone
local function gone(jk, f)
  return not f[1] and redis.call('EXISTS', jk) == 0
end

local wake_owed = -1

-- while wake_owed is 0 or more (a reserve acknowledging jobs), wake-ups are owed instead, and
-- paid at the end of the reserve for the jobs it did not take itself
local function wake(count)
  if wake_owed >= 0 then
    wake_owed = wake_owed + count
    return
  end
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
  ttl = math.min(math.floor(tonumber(ttl) or 0), MAX_UNIQUE_TTL)
  if completed and ttl > 0 then
    redis.call('PEXPIRE', uk, int(ttl))
  else
    redis.call('DEL', uk)
  end
end

-- Batches and groups are gates: a hash with the cap ('cap'), the number of jobs it ever admitted
-- ('admits') and of admitted jobs that ended ('ends'), and a list of jobs waiting for a place
-- (':wait'). An admitted job is an ordinary job of the queue (ready, leased, or waiting for a
-- retry) whose 'batch' or 'group' field names its gate; a job waiting at its gate has state
-- 'waiting' and sits in none of the queue's sets. A job leaves its gate only when it ends
-- (completed, dead or cancelled: its field is cleared then, so it ends once), and only then is the
-- next waiting job admitted, at the end of its priority level: so at no time do more jobs of one
-- gate hold a lease than its cap (admits - ends <= cap), and gates of equal priority take turns.
local GATE = {'cap', 'admits', 'ends', 'state', 'total', 'completed', 'dead', 'cancelled', 'priority'}

-- a batch whose every sub-job ended, once sealed (or cancelled), finishes: exactly once, since
-- its state leaves 'sealed' here. g holds the GATE values of its hash, counts included. With a
-- completion queue it goes to the hand-off set, to be enqueued there by the next client that
-- looks (see batch.lua 'pending'); its keys expire after its retention once handed off, at once
-- when there is nothing to hand off. A blocked consumer is woken so that it looks, and
-- subscribers of the channel <queue tag>:batches learn the batch id.
local function finish_batch(bid, g, now)
  if g[4] ~= 'sealed' and g[4] ~= 'cancelling' then
    return false
  end
  local ended = (tonumber(g[6]) or 0) + (tonumber(g[7]) or 0) + (tonumber(g[8]) or 0)
  if ended < (tonumber(g[5]) or 0) then
    return false
  end
  local bk = BATCH .. bid
  local final = (g[4] == 'sealed') and 'completed' or 'cancelled'
  redis.call('HSET', bk, 'state', final, 'finishedAt', now)
  redis.call('DEL', bk .. ':wait')
  redis.call('ZREM', K_BATCHES, bid)
  local b = redis.call('HMGET', bk, 'onComplete', 'retention')
  if b[1] and b[1] ~= '' then
    redis.call('ZADD', K_BATCHES_DONE, now, bid)
    wake(1)
  else
    local ttl = math.max(1, tonumber(b[2]) or 1)
    redis.call('PEXPIRE', bk, ttl)
    redis.call('PEXPIRE', bk .. ':jobs', ttl)
  end
  redis.call('HINCRBY', K_STATS, 'batches' .. (final == 'completed' and 'Completed' or 'Cancelled'), 1)
  redis.call('PUBLISH', BASE .. 'batches', bid)
  return true
end

-- admits waiting jobs of gate gk (kind 'batch' or 'group', also the job field that names the
-- gate; name is the batch id or group key) while fewer than its cap are admitted; g holds the
-- GATE values of its hash. A batch's sub-jobs take the batch's priority; a group's job keeps its
-- own and is read first: one whose hash is damaged or gone ends as dead (with the reason, when the
-- hash exists), at most 100 such entries per call. Returns how many were admitted.
local function admit(gk, kind, name, g, now)
  local room = (tonumber(g[1]) or 0) - ((tonumber(g[2]) or 0) - (tonumber(g[3]) or 0))
  local n, budget = 0, 100
  while n < room and budget > 0 do
    local id = redis.call('LPOP', gk .. ':wait')
    if not id then
      break
    end
    local jk = JOB .. id
    local priority, expire_at, state = tonumber(g[9]), 0, 'waiting'
    if kind == 'group' then
      redis.call('HINCRBY', K_STATS, 'groupWaiting', -1)
      local f = redis.call('HMGET', jk, 'state', 'priority', 'expireAt')
      state, priority, expire_at = f[1], tonumber(f[2]), tonumber(f[3]) or 0
      if state and state ~= 'waiting' then
        -- admitted or ended some other way already: not this gate's to count
        budget = budget - 1
        state = nil
      elseif not state or not priority then
        if redis.call('EXISTS', jk) == 1 then
          local reason = (not state) and 'corrupt job: field state is missing'
            or ('corrupt job: field priority is ' .. (f[2] and ("'" .. string.sub(f[2], 1, 40) .. "'") or 'missing'))
          redis.call('HSET', jk, 'state', 'dead', 'error', reason, 'finishedAt', now, 'group', '')
          redis.call('ZADD', K_DEAD, now, id)
          redis.call('HINCRBY', K_STATS, 'dead', 1)
        end
        budget = budget - 1
        state = nil
      end
    end
    if state then
      -- a batch's sub-job is not read first: a damaged or deleted one is caught by the reserve
      -- that pops it (a job hash without its numeric fields is dead-lettered there)
      local score = ready_score(priority, redis.call('INCR', K_SEQ))
      redis.call('HSET', jk, 'state', 'ready', 'score', score, 'readyAt', now, kind, name)
      redis.call('ZADD', K_READY, score, id)
      if expire_at > 0 then
        redis.call('ZADD', K_EXPIRY, expire_at, id)
      end
      n = n + 1
    end
  end
  if n > 0 then
    if kind == 'group' then
      redis.call('HINCRBY', K_STATS, 'groupActive', n)
    end
    wake(n)
  end
  return n
end

-- a job of a batch or a group ended with outcome 'completed', 'dead' or 'cancelled': its place is
-- freed, the next waiting job admitted, and a batch whose last sub-job this was finishes. The
-- job's 'batch' or 'group' field is cleared (a batch's id stays in 'ofBatch'), so an end is
-- counted once even if the job runs again later (a dead sub-job retried by an operator is a plain
-- job); pass deleting when the caller deletes the job hash next. Call it while the hash exists.
local function gate_end(id, batch, group, outcome, now, deleting)
  local kind, gk, name
  if batch and batch ~= '' then
    kind, gk, name = 'batch', BATCH .. batch, batch
    if not deleting then
      redis.call('HSET', JOB .. id, 'batch', '', 'ofBatch', batch)
    end
  elseif group and group ~= '' then
    kind, gk, name = 'group', GROUP .. group, group
    if not deleting then
      redis.call('HSET', JOB .. id, 'group', '')
    end
  else
    return
  end
  local g = redis.call('HMGET', gk, unpack(GATE))
  if not g[1] then
    return
  end
  g[3] = (tonumber(g[3]) or 0) + 1
  if kind == 'group' then
    redis.call('HINCRBY', K_STATS, 'groupActive', -1)
  end
  local n = 0
  if g[4] ~= 'cancelling' and g[4] ~= 'cancelled' then
    n = admit(gk, kind, name, g, now)
  end
  g[2] = (tonumber(g[2]) or 0) + n
  if kind == 'batch' then
    local at = (outcome == 'completed' and 6) or (outcome == 'dead' and 7) or 8
    g[at] = (tonumber(g[at]) or 0) + 1
    redis.call('HSET', gk, 'admits', g[2], 'ends', g[3], outcome, g[at])
    finish_batch(batch, g, now)
  elseif g[2] <= g[3] and redis.call('LLEN', gk .. ':wait') == 0 then
    redis.call('DEL', gk)
  else
    redis.call('HSET', gk, 'admits', g[2], 'ends', g[3])
  end
end

-- removes a job of a cancelled batch that holds no lease (ready, or waiting for a retry)
local function cancel_job(id, batch, now)
  redis.call('ZREM', K_READY, id)
  redis.call('ZREM', K_DELAYED, dmember(id))
  redis.call('ZREM', K_EXPIRY, id)
  gate_end(id, batch, nil, 'cancelled', now, true)
  redis.call('DEL', JOB .. id)
  redis.call('HINCRBY', K_STATS, 'cancelled', 1)
end

-- whether a job belongs to a batch being cancelled; states caches the state of each batch asked
-- for within one call
local function batch_cancelling(batch, states)
  if not batch or batch == '' then
    return false
  end
  local state = states and states[batch]
  if not state then
    state = redis.call('HGET', BATCH .. batch, 'state') or ''
    if states then
      states[batch] = state
    end
  end
  return state == 'cancelling'
end

local function to_dead(id, reason, now)
  local jk = JOB .. id
  redis.call('HSET', jk, 'state', 'dead', 'error', reason, 'finishedAt', now, 'worker', '')
  redis.call('ZADD', K_DEAD, now, id)
  local u = redis.call('HMGET', jk, 'uniqueKey', 'uniqueTtl', 'batch', 'group')
  release_unique(id, u[1], u[2], false)
  redis.call('HINCRBY', K_STATS, 'dead', 1)
  gate_end(id, u[3], u[4], 'dead', now, false)
end

-- takes in-flight jobs from a holder that gave no outcome (its lease ran out, it stopped
-- heartbeating, it restarted, it was still running at shutdown): each such loss counts in the
-- job's 'lost' field, apart from its attempts; a job lost as often as its max attempts is
-- dead-lettered (so a job that kills its worker ends dead), the others go back to their place in
-- ready. A job its holder had only reserved ahead (waiting for a free thread, field 'ahead') was
-- most likely not running: such losses count in 'lostAhead' and dead-letter the job only at
-- AHEAD_FACTOR times its max attempts. Returns how many went back to ready.
local function take_back(ids, now, reason)
  local back = 0
  for _, id in ipairs(ids) do
    redis.call('ZREM', K_INFLIGHT, id)
    local jk = JOB .. id
    local names = {'state', 'maxAttempts', 'score', 'lost', 'ahead', 'lostAhead'}
    local f = redis.call('HMGET', jk, unpack(names))
    if not gone(jk, f) then
      local bad = (not f[1] and 'corrupt job: field state is missing') or corrupt(f, names, {2, 3})
      local field, count, limit = 'lost', (tonumber(f[4]) or 0) + 1, tonumber(f[2])
      if f[5] == '1' then
        field, count, limit = 'lostAhead', (tonumber(f[6]) or 0) + 1, AHEAD_FACTOR * (tonumber(f[2]) or 0)
      end
      if bad then
        to_dead(id, bad, now)
      elseif count >= limit then
        redis.call('HSET', jk, field, count)
        local how = (field == 'lost') and ' times without an outcome (max attempts '
          or ' times while reserved ahead without an outcome (limit '
        to_dead(id, reason .. ': held ' .. count .. how .. limit .. ')', now)
      else
        redis.call('HSET', jk, 'state', 'ready', 'readyAt', now, 'worker', '', 'error', reason, field, count)
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

-- walks at most SLICE in-flight entries from index cursor and returns the ids whose lease holder
-- matches, and the cursor of the next call (0 once the walk reached the end); the caller takes
-- the returned jobs out of the in-flight set, which the next cursor accounts for
local function walk_inflight(cursor, matches)
  local ids = redis.call('ZRANGE', K_INFLIGHT, cursor, cursor + SLICE - 1)
  local found = {}
  for _, id in ipairs(ids) do
    local holder = redis.call('HGET', JOB .. id, 'worker')
    if holder and matches(holder) then
      found[#found + 1] = id
    end
  end
  if #ids < SLICE then
    return found, 0
  end
  return found, cursor + #ids - #found
end

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
  local members = redis.call('ZRANGEBYSCORE', K_DELAYED, '-inf', now, 'LIMIT', 0, limit)
  local promoted, expired = 0, 0
  for _, member in ipairs(members) do
    redis.call('ZREM', K_DELAYED, member)
    local id = dmember_id(member)
    local jk = JOB .. id
    local names = {'state', 'priority', 'expireAt', 'attempts', 'lost'}
    local f = redis.call('HMGET', jk, unpack(names))
    if not gone(jk, f) then
      local bad = (not f[1] and 'corrupt job: field state is missing') or corrupt(f, names, {2})
      if bad then
        to_dead(id, bad, now)
      elseif is_expired(f[3], f[4], f[5], now) then
        expire(id, now)
        expired = expired + 1
      else
        local score = ready_score(tonumber(f[2]), redis.call('INCR', K_SEQ))
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
-- done and nobody else holds it. Returns 1 done, 2 already completed under that token, 0 stale
-- token (someone reserved it since), -1 no such job.
local function complete_job(id, token, retention, now)
  local jk = JOB .. id
  local f = redis.call('HMGET', jk, 'state', 'token', 'uniqueKey', 'uniqueTtl', 'attempts', 'batch', 'group')
  if not f[1] then
    return -1
  end
  if f[2] ~= token then
    return 0
  end
  local state = f[1]
  if state == 'completed' then
    return 2
  elseif state == 'active' then
    redis.call('ZREM', K_INFLIGHT, id)
  else
    -- taken back but not handed out again
    redis.call('ZREM', K_READY, id)
    redis.call('ZREM', K_DEAD, id)
    redis.call('ZREM', K_DELAYED, dmember(id))
    redis.call('ZREM', K_EXPIRY, id)
  end
  release_unique(id, f[3], f[4], true)
  gate_end(id, f[6], f[7], 'completed', now, retention <= 0)
  if retention > 0 then
    redis.call('HSET', jk, 'state', 'completed', 'finishedAt', now, 'worker', '',
      'attempts', (tonumber(f[5]) or 0) + 1)
    redis.call('ZADD', K_DONE, now, id)
  else
    redis.call('DEL', jk)
  end
  return 1
end

-- a job delayed until due: when it is now the earliest, wake a waiting consumer so that it
-- learns the new due time (a consumer blocks until the earliest due time it knows)
local function delay_job(id, due)
  local member = dmember(id)
  redis.call('ZADD', K_DELAYED, due, member)
  local first = redis.call('ZRANGE', K_DELAYED, 0, 0)
  if first[1] == member then
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
