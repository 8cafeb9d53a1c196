-- Finishes and fetches in one call: first acknowledges the jobs named by the id/token pairs from
-- ARGV[11] on (completed retention ARGV[8] ms), then reserves up to ARGV[3] jobs with a lease of
-- ARGV[4] ms for worker ARGV[5]. Before reserving it reclaims at most ARGV[6] expired leases and
-- promotes due delayed jobs (as many as it hands out, at least 25, at most ARGV[7]), so no job is
-- stranded when no reaper runs. The jobs it pops that cannot be handed out (expired, corrupt,
-- gone) count against a budget of 25 per call, so one call never walks a long run of them (the
-- reaper does the bulk). ARGV[9] > 0 overrides the max attempts
-- of the jobs it hands out (written on the job). The first ARGV[10] jobs handed out start at once;
-- the others are reserved ahead, to wait for a free thread, and are marked so (field 'ahead'): if
-- their holder is lost, that loss counts under a wider limit (see take_back). A paused queue hands
-- out nothing. A popped job of a batch being cancelled is removed instead (see cancel_job).
-- A job's attempt is its attempts (runs that ended in a failure) plus one.
-- Returns: next due time of a delayed job (-1 none), reclaimed, expired, count, acknowledgements
-- refused as stale, acknowledgements of jobs that no longer exist, server time (ms), finished
-- batches whose completion job waits to be handed off (see batch.lua 'pending'), then per
-- job: id, payload, headers, attempt, max attempts, token, lease deadline, enqueued at, priority,
-- ms it waited ready (by the server clock).
local now = now_ms()
redis.call('DEL', K_WOKEN)
if PARTITIONED then
  -- consumers of a partition wait on its announcements: the next wake-up announces again
  redis.call('DEL', K_WAKE)
end
-- jobs admitted by the acknowledgements below are taken by this call first: wake-ups are owed
wake_owed = 0
local stale, missing, completed = 0, 0, 0
local retention = tonumber(ARGV[8]) or 0
for i = 11, #ARGV, 2 do
  local result = complete_job(ARGV[i], ARGV[i + 1], retention, now)
  if result == 1 then
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
local n, lease, worker = tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local budget = math.min(tonumber(ARGV[7]), 25)
local promote_limit = math.min(tonumber(ARGV[7]), math.max(n, 25))
local override = tonumber(ARGV[9]) or 0
local start_now = tonumber(ARGV[10]) or n
local reclaimed = reclaim(now, tonumber(ARGV[6]))
local _, expired = promote(now, promote_limit)
local out = {0, reclaimed, expired, 0, stale, missing, now, 0}
if redis.call('EXISTS', K_PAUSED) == 0 then
  local got = 0
  local deadline = now + lease
  local batch_states = {}
  local names = {'state', 'payload', 'headers', 'attempts', 'maxAttempts', 'token', 'enqueuedAt', 'priority',
    'score', 'expireAt', 'dueAt', 'readyAt', 'lost', 'batch'}
  while got < n and budget > 0 do
    local popped = pop_ready(n - got)
    if #popped == 0 then
      break
    end
    for _, entry in ipairs(popped) do
      local id, element = entry[1], entry[2]
      local r, f
      if element then
        -- a plain job: its record is written now
        local t, bad, kept = plain_fields(element)
        if not id then
          id = int(new_id())
        end
        if not t then
          rset(K_JOBS, id, 'payload', kept)
          to_dead(id, bad, now)
          budget = budget - 1
        else
          r = plain_record(id, t)
          records[K_JOBS][id] = r
          f = {'ready', t[4], t[1], '0', t[2], '0', t[3], '0', r[J.score], '0', '0', false, false, false}
        end
      else
        r = record(K_JOBS, id)
        f = r and {r[J.state], r[J.payload], r[J.headers], r[J.attempts], r[J.maxAttempts],
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
          to_dead(id, bad, now)
          budget = budget - 1
        elseif batch_cancelling(f[14], batch_states) then
          cancel_job(id, f[14], now)
          budget = budget - 1
        elseif is_expired(f[10], f[4], f[13], now) then
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
          local ahead = 0
          if got >= start_now then
            ahead = 1
          end
          r[J.token], r[J.worker], r[J.leaseUntil], r[J.state] = num(token), worker, num(deadline), 'active'
          r[J.ahead], r[J.maxAttempts] = num(ahead), num(max_attempts)
          jsave(id, r)
          redis.call('ZADD', K_INFLIGHT, deadline, id)
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
        end
      end
    end
  end
  out[4] = got
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
