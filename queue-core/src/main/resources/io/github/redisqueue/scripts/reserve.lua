-- Finishes and fetches in one call: first acknowledges the jobs named by the id/token pairs from
-- ARGV[9] on (completed retention ARGV[8] ms), then reserves up to ARGV[3] jobs with a lease of
-- ARGV[4] ms for worker ARGV[5]. Before reserving it reclaims at most ARGV[6] expired leases and
-- promotes at most ARGV[7] due delayed jobs, so no job is stranded when no reaper runs. A paused
-- queue hands out nothing.
-- Returns: next due time of a delayed job (-1 none), reclaimed, expired, count, acknowledgements
-- refused, then per job: id, payload, headers, attempt, max attempts, token, lease deadline,
-- enqueued at, priority, ms it waited ready (by the server clock).
local now = now_ms()
redis.call('DEL', K_WOKEN)
local refused, completed = 0, 0
local retention = tonumber(ARGV[8]) or 0
for i = 9, #ARGV, 2 do
  if complete_job(ARGV[i], ARGV[i + 1], retention, now) == 1 then
    completed = completed + 1
  else
    refused = refused + 1
  end
end
if completed > 0 then
  count_completed(completed, now)
end
local n, lease, worker = tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local reclaimed = reclaim(now, tonumber(ARGV[6]))
local _, expired = promote(now, tonumber(ARGV[7]))
local out = {0, reclaimed, expired, 0, refused}
if redis.call('EXISTS', K_PAUSED) == 0 then
  local got = 0
  local deadline = now + lease
  while got < n do
    local popped = redis.call('ZPOPMIN', K_READY, n - got)
    if #popped == 0 then
      break
    end
    for j = 1, #popped, 2 do
      local id = popped[j]
      local jk = JOB .. id
      local f = redis.call('HMGET', jk, 'payload', 'headers', 'attempts', 'maxAttempts', 'token',
        'enqueuedAt', 'priority', 'expireAt', 'dueAt', 'readyAt')
      if f[1] then
        if is_expired(f[8], f[3], now) then
          expire(id, now)
          expired = expired + 1
        else
          local attempt = tonumber(f[3]) + 1
          local token = tonumber(f[5]) + 1
          redis.call('HSET', jk, 'attempts', attempt, 'token', token, 'worker', worker,
            'leaseUntil', deadline, 'state', 'active')
          redis.call('ZADD', K_INFLIGHT, deadline, id)
          if tonumber(f[8]) > 0 then
            redis.call('ZREM', K_EXPIRY, id)
          end
          local k = #out
          out[k + 1] = id
          out[k + 2] = f[1]
          out[k + 3] = f[2]
          out[k + 4] = attempt
          out[k + 5] = tonumber(f[4])
          out[k + 6] = token
          out[k + 7] = deadline
          out[k + 8] = tonumber(f[6])
          out[k + 9] = tonumber(f[7])
          out[k + 10] = math.max(0, now - ready_since(f[6], f[9], f[10]))
          got = got + 1
        end
      end
    end
  end
  out[4] = got
end
out[1] = next_due()
out[3] = expired
return out
