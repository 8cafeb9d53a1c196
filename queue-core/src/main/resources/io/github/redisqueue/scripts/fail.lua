-- Records a failed attempt. ARGV[3] id, ARGV[4] token, ARGV[5] error text, ARGV[6] 'retry' or
-- 'dead', ARGV[7] retry delay ms. The attempt counts; a retry once the job's attempts reach its
-- max attempts dead-letters it; a retry of a sub-job of a batch being cancelled removes it.
-- Returns 1 retry scheduled, 2 dead-lettered (3 when finished batches wait for the hand-off of
-- their completion job, see batch.lua 'pending'), 0 stale token, -1 no such job.
local now = now_ms()
local id, token, err, mode, delay = ARGV[3], ARGV[4], ARGV[5], ARGV[6], tonumber(ARGV[7])
local function dead_letter(reason)
  to_dead(id, reason, now)
  if redis.call('ZCARD', K_BATCHES_DONE) > 0 then
    return 3
  end
  return 2
end
local names = {'state', 'token', 'attempts', 'maxAttempts', 'score', 'batch'}
local f = jget(id, names)
local refused = not_held(f, token)
if refused then
  return refused
end
redis.call('ZREM', K_INFLIGHT, id)
local bad = corrupt(f, names, {3, 4, 5})
if bad then
  return dead_letter(bad .. '; last error: ' .. err)
end
local attempts = tonumber(f[3]) + 1
jset(id, 'attempts', attempts)
if mode ~= 'retry' or attempts >= tonumber(f[4]) then
  return dead_letter(err)
end
redis.call('HINCRBY', K_STATS, 'failed', 1)
history_add(HISTORY_FAILED, 1, now)
if batch_cancelling(f[6]) then
  -- its batch is being cancelled: no retry
  cancel_job(id, f[6], now)
  return 1
end
if delay > 0 then
  jset(id, 'state', 'delayed', 'dueAt', now + delay, 'error', err, 'worker', '')
  delay_job(id, now + delay)
else
  jset(id, 'state', 'ready', 'readyAt', now, 'error', err, 'worker', '')
  redis.call('ZADD', K_READY, f[5], id)
  wake(1)
end
return 1
