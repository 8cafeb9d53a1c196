-- Finishes and fetches in one call: first acknowledges the jobs named by the id/token pairs from
-- ARGV[12] on (completed retention ARGV[8] ms), then reserves up to ARGV[3] jobs with a lease of
-- ARGV[4] ms for worker ARGV[5]. Before reserving it reclaims at most ARGV[6] expired leases and
-- promotes due delayed jobs (as many as it hands out, at least 25, at most ARGV[7]), so no job is
-- stranded when no reaper runs (leases that ran out while Redis was away are held a while
-- longer, see watch_outage). The jobs it pops that cannot be handed out (expired, corrupt,
-- gone) count against a budget of 10 per call, so one call never walks a long run of them (the
-- reaper does the bulk). ARGV[9] > 0 overrides the max attempts
-- of the jobs it hands out (written on the job). The first ARGV[10] jobs handed out start at once;
-- the others are reserved ahead, to wait for a free thread, and are marked so (field 'ahead'): if
-- their holder is lost, that loss counts under a wider limit (see take_back). A paused queue hands
-- out nothing. A popped job of a batch being cancelled is removed instead (see cancel_job).
-- A job's attempt is its attempts (runs that ended in a failure) plus one.
-- The call stops taking jobs once the payloads it handed out (those kept apart by their weight,
-- see apart_weight; and the records it sized, see
-- pop_ready) pass PAYLOAD_BUDGET bytes, one job at least: it may hand out fewer than asked while
-- more are ready.
-- ARGV[11] is the queue's rate limit, 'N:W' (at most N hand-outs in any W ms), or empty for none:
-- an empty one costs no command. The hand-out times of the last N hand-outs are kept, oldest
-- first, in the stats field '~rate' (see rate_window); a hand-out is allowed only when the one N
-- hand-outs before it is W ms old or more, so any W ms hold at most N hand-outs.
-- Returns: next due time of a delayed job (-1 none), reclaimed, expired, count, acknowledgements
-- refused as stale, acknowledgements of jobs that no longer exist, server time (ms), finished
-- batches whose completion job waits to be handed off (see batch.lua 'pending'), when the rate
-- limit cut the call short the time its next hand-out is due (ms, server clock; -1 otherwise), 1
-- when a bound of its own (PAYLOAD_BUDGET, or the budget of jobs it could not hand out) cut it short
-- while jobs are still ready, or it took back as many expired leases as it may (ARGV[6]; more may
-- have run out, which no wake-up announces) and handed out fewer than asked (0 otherwise: a
-- reserve made at once would take more), then per job: id, payload, headers, attempt, max attempts, token, lease deadline, enqueued at, priority,
-- ms it waited ready (by the server clock). A payload of more than 4 KB kept in its own
-- field is handed out as its length, a number: the caller reads it from the field '<id>:p' of
-- K_JOBS, where it stays while the job is held.
-- ARGV[3] may be 'w' and the count: a reserve sent right behind a wait on the wake-ups (BLMOVE
-- from K_WAKE to K_WOKEN, on the same connection, so that it runs as soon as that wait ends). It
-- does anything only when a wake-up is in K_WOKEN; otherwise it returns an empty reply, having
-- run one command (a DEL of K_WOKEN, which held nothing).
-- Rate limit: the times of the last N hand-outs, oldest first, as N fields of RATE_DIGITS digits
-- packed in one string (N x 13 bytes, 13 KB for N = 1000): one HGET and one HSET per call whatever
-- N is, no entry per hand-out beyond the last N. Never handed out counts as time 0.
local RATE_FIELD, RATE_DIGITS, MAX_RATE_PERMITS = '~rate', 13, 10000

-- the window of the last permits hand-outs as read from the stats hash, fitted to permits entries:
-- a window kept for another limit keeps its latest entries (or is padded with never-used ones), one
-- that cannot be read starts afresh (every entry 0, which errs on the permissive side once)
local function rate_window(permits)
  local raw = redis.call('HGET', K_STATS, RATE_FIELD)
  local size = permits * RATE_DIGITS
  if not raw or #raw % RATE_DIGITS ~= 0 or string.find(raw, '[^0-9]') then
    return string.rep('0', size)
  end
  if #raw > size then
    return string.sub(raw, #raw - size + 1)
  end
  return string.rep('0', size - #raw) .. raw
end

-- the i-th oldest hand-out time (1-based) of a window
local function rate_entry(window, i)
  return tonumber(string.sub(window, (i - 1) * RATE_DIGITS + 1, i * RATE_DIGITS))
end

-- a plain job popped for this call has its record written once: as handed out, or before it is
-- dead-lettered, cancelled or expired here (fresh: its payload, nil for a job that has a record)
local function jcreate_fresh(id, r, fresh)
  if fresh then
    jcreate(id, r, fresh)
  end
end

local count_arg = ARGV[3]
local rate_permits, rate_ms = string.match(ARGV[11] or '', '^(%d+):(%d+)$')
if rate_permits then
  rate_permits, rate_ms = tonumber(rate_permits), tonumber(rate_ms)
  if rate_permits < 1 or rate_permits > MAX_RATE_PERMITS or rate_ms < 1 then
    error('rate limit ' .. ARGV[11] .. ' is out of range')
  end
elseif (ARGV[11] or '') ~= '' then
  error('rate limit ' .. ARGV[11] .. ' is not N:W')
end
local behind_wait = string.byte(count_arg, 1) == 119
if behind_wait then
  count_arg = string.sub(count_arg, 2)
end
for _, v in ipairs({count_arg, ARGV[4], ARGV[6], ARGV[7]}) do
  if not tonumber(v) then
    error('reserve: count, lease and batch limits must be numbers, got ' .. tostring(v))
  end
end
-- the wake-ups taken by waits, cleared by every reserve once its arguments are checked; a reserve
-- sent behind a wait ('w') goes on only when there was one
if redis.call('DEL', K_WOKEN) == 0 and behind_wait then
  return {}
end
local now = now_ms()
local rate = rate_permits and rate_window(rate_permits)
watch_outage(now)
if PARTITIONED then
  -- consumers of a partition wait on its announcements: the next wake-up announces again
  redis.call('DEL', K_WAKE)
end
-- jobs admitted by the acknowledgements below are taken by this call first: wake-ups are owed
wake_owed = 0
local stale, missing, completed = 0, 0, 0
local retention = tonumber(ARGV[8]) or 0
local marked
marked, completed = complete_marked(12, #ARGV, retention)
for i = 12, #ARGV, 2 do
  local result = marked[i] and 1 or complete_job(ARGV[i], ARGV[i + 1], retention, now)
  if marked[i] then
    -- counted by complete_marked
  elseif result == 1 then
    completed = completed + 1
  elseif result == 0 then
    stale = stale + 1
  elseif result == -1 or result == 2 then
    -- gone, or a resent completion that was recorded already
    missing = missing + 1
  end
end
if completed > 0 then
  count_completed(completed, now)
end
local n, lease, worker = tonumber(count_arg), tonumber(ARGV[4]), ARGV[5]
local budget = math.min(tonumber(ARGV[7]), 10)
local promote_limit = math.min(tonumber(ARGV[7]), math.max(n, 25))
local override = tonumber(ARGV[9]) or 0
local start_now = tonumber(ARGV[10]) or n
local reclaimed = reclaim(now, tonumber(ARGV[6]))
local _, expired = promote(now, promote_limit)
local out = {0, reclaimed, expired, 0, stale, missing, now, 0, -1, 0}
if redis.call('EXISTS', K_PAUSED) == 0 then
  local got = 0
  local wanted = n
  if rate then
    -- the i-th hand-out of this call is allowed when the i-th oldest of the window is W ms old
    local allowed = 0
    while allowed < math.min(n, rate_permits) and rate_entry(rate, allowed + 1) <= now - rate_ms do
      allowed = allowed + 1
    end
    n = allowed
  end
  local deadline = now + lease
  local deadline_text = num(deadline)
  local batch_states = {}
  -- payload bytes handed out so far: the call stops taking jobs past PAYLOAD_BUDGET
  local bytes = 0
  local names = {'state', 'payload', 'headers', 'attempts', 'maxAttempts', 'token', 'enqueuedAt', 'priority',
    'score', 'expireAt', 'dueAt', 'readyAt', 'lost', 'batch'}
  -- tombstones of deleted plain jobs dropped off the head (see pop_ready): at most this many
  -- more per call
  local tombs = 1000
  -- the records, payloads and marks of the jobs handed out, and their leases: written together
  -- (one HSET and one ZADD) once a run of popped jobs is handled, or every MARKED_RUN jobs;
  -- also before anything else the run writes or reads of a job (a new id is checked against
  -- the records, a dead job's batch or group admits others, a job may come twice in a damaged
  -- queue), so that each sees them written, as when each hand-out was written at once
  local writes, leases, pending = {}, {}, {}
  local function hand_out()
    if #leases > 0 then
      redis.call('HSET', K_JOBS, unpack(writes))
      redis.call('ZADD', K_INFLIGHT, unpack(leases))
      writes, leases, pending = {}, {}, {}
    end
  end
  while got < n and budget > 0 and bytes < PAYLOAD_BUDGET do
    local popped, dropped, ran_out = pop_ready(n - got, PAYLOAD_BUDGET - bytes)
    if #popped == 0 and (dropped == 0 or tombs <= 0) then
      break
    end
    -- a job that cannot be handed out is dead-lettered, cancelled or expired, which may make
    -- others ready (its batch or group admits the next): only then is ready read again
    local budget_before = budget
    tombs = tombs - dropped
    for _, entry in ipairs(popped) do
      local id, element = entry[1], entry[2]
      if not id or pending[id] then
        hand_out()
      end
      -- fresh: the payload of a plain job whose record is not written yet (it is written once, as
      -- handed out, or before any other change of it)
      local r, f, fresh
      if element then
        local t, bad, kept = plain_fields(element)
        if not id then
          id = int(new_id())
        end
        if not t then
          hand_out()
          jcreate(id, blank(K_JOBS), kept)
          to_dead(id, bad, now)
          budget = budget - 1
        else
          r = plain_record(id, t)
          fresh = t[4]
          f = {'ready', t[4], t[1], '0', t[2], '0', t[3], '0', r[J.score], '0', '0', false, false, false}
        end
      else
        r = record(K_JOBS, id)
        -- a payload kept apart is handed out by its length (the caller reads it)
        local apart = entry[3] and apart_weight(entry[3]) and entry[3]
        f = r and {r[J.state], apart or jpayload(id), r[J.headers], r[J.attempts], r[J.maxAttempts],
          r[J.token], r[J.enqueuedAt], r[J.priority], r[J.score], r[J.expireAt], r[J.dueAt], r[J.readyAt], r[J.lost],
          r[J.batch]}
        if not r then
          budget = budget - 1
        end
      end
      if f then
        local bad = (not element) and corrupt(f, names, {4, 5, 6, 7, 8, 9})
        if not bad and not f[1] then
          bad = 'corrupt job: field state is missing'
        elseif not bad and not f[2] then
          bad = 'corrupt job: field payload is missing'
        end
        if bad then
          hand_out()
          jcreate_fresh(id, r, fresh)
          to_dead(id, bad, now)
          budget = budget - 1
        elseif batch_cancelling(f[14], batch_states) then
          hand_out()
          jcreate_fresh(id, r, fresh)
          cancel_job(id, f[14], now)
          budget = budget - 1
        elseif is_expired(f[10], f[4], f[13], now) then
          hand_out()
          jcreate_fresh(id, r, fresh)
          expire(id, now)
          expired = expired + 1
          budget = budget - 1
        else
          local attempt = tonumber(f[4]) + 1
          local max_attempts = tonumber(f[5])
          local token = tonumber(f[6]) + 1
          if override > 0 and override ~= max_attempts then
            max_attempts = override
          end
          r[J.maxAttempts] = num(max_attempts)
          local ahead = got >= start_now
          -- also in the record, for instances of an earlier release that read only the record
          r[J.ahead] = ahead and '1' or '0'
          r[J.token], r[J.worker], r[J.leaseUntil], r[J.state] = num(token), worker, deadline_text, 'active'
          -- reserved ahead (to wait for a free thread) or started at once
          local mark = reservation_mark(r, r[J.token], ahead)
          local w = #writes
          if fresh then
            records[K_JOBS][id] = r
            writes[w + 1], writes[w + 2], writes[w + 3], writes[w + 4] = id, cmsgpack.pack(r), pfield(id), fresh
            w = w + 4
          else
            writes[w + 1], writes[w + 2] = id, pack_job(id, r)
            w = w + 2
          end
          writes[w + 1], writes[w + 2] = afield(id), mark
          leases[#leases + 1], leases[#leases + 2] = deadline, id
          pending[id] = true
          if #leases >= 2 * MARKED_RUN then
            hand_out()
          end
          if tonumber(f[10]) and tonumber(f[10]) > 0 then
            redis.call('ZREM', K_EXPIRY, id)
          end
          local k = #out
          out[k + 1] = id
          out[k + 2] = f[2]
          out[k + 3] = f[3] or ''
          out[k + 4] = attempt
          out[k + 5] = max_attempts
          out[k + 6] = token
          out[k + 7] = deadline
          out[k + 8] = tonumber(f[7])
          out[k + 9] = tonumber(f[8])
          out[k + 10] = math.max(0, now - ready_since(f[7], f[11], f[12]))
          got = got + 1
          bytes = bytes + ((type(f[2]) == 'number') and apart_weight(f[2]) or #f[2])
        end
      end
    end
    hand_out()
    if ran_out and budget == budget_before then
      break
    end
  end
  out[4] = got
  if got < n and (bytes >= PAYLOAD_BUDGET or budget <= 0 or tombs <= 0) and ready_count() > 0 then
    out[10] = 1
  elseif got < n and reclaimed > 0 and reclaimed >= tonumber(ARGV[6]) then
    out[10] = 1
  end
  if rate and got > 0 then
    -- the hand-outs of this call replace the oldest entries
    rate = string.sub(rate, got * RATE_DIGITS + 1) .. string.rep(string.format('%013d', now), got)
    redis.call('HSET', K_STATS, RATE_FIELD, rate)
  end
  if rate and got == n and n < wanted then
    local ready = ready_count()
    if ready > 0 then
      -- cut short by the limit while jobs wait: the next hand-out is due when the oldest entry is W ms old
      out[9] = rate_entry(rate, 1) + rate_ms
      -- counted for operators: calls the limit cut short, and the ready jobs they asked for and did not get
      redis.call('HINCRBY', K_STATS, 'rateLimited', 1)
      redis.call('HINCRBY', K_STATS, 'rateHeld', math.min(wanted, got + ready) - got)
    end
  end
end
local owed = wake_owed
wake_owed = -1
if owed > 0 then
  wake(math.min(owed, ready_count()))
end
out[1] = next_due()
out[3] = expired
out[8] = redis.call('ZCARD', K_BATCHES_DONE)
return out
