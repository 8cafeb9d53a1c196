-- Counts per state of one queue, read-only. ARGV[3] = 'dead' to also list dead letters from
-- ARGV[4] (offset, newest first) for ARGV[5] jobs.
-- Returns ready, delayed, in flight, dead, completed, paused (1/0), counters (flat hash), age in
-- ms of the job at the head of the queue (the next to run; -1 when none is ready), completions
-- of about the last minute and the ms they cover, then per dead job: id, payload, headers, attempts, error, time of death.
local head_age = -1
local head = redis.call('ZRANGE', K_READY, 0, 0)
if head[1] then
  local f = redis.call('HMGET', JOB .. head[1], 'enqueuedAt', 'dueAt', 'readyAt')
  local since = ready_since(f[1], f[2], f[3])
  if since > 0 then
    head_age = math.max(0, now_ms() - since)
  end
end
local recent, span = completed_recently(now_ms())
local out = {redis.call('ZCARD', K_READY), redis.call('ZCARD', K_DELAYED),
  redis.call('ZCARD', K_INFLIGHT), redis.call('ZCARD', K_DEAD), redis.call('ZCARD', K_DONE),
  redis.call('EXISTS', K_PAUSED), redis.call('HGETALL', K_STATS), head_age, recent, span}
if ARGV[3] == 'dead' then
  local offset, count = tonumber(ARGV[4]), tonumber(ARGV[5])
  local ids = redis.call('ZREVRANGE', K_DEAD, offset, offset + count - 1, 'WITHSCORES')
  for i = 1, #ids, 2 do
    local f = redis.call('HMGET', JOB .. ids[i], 'payload', 'headers', 'attempts', 'error')
    out[#out + 1] = ids[i]
    out[#out + 1] = f[1] or ''
    out[#out + 1] = f[2] or ''
    out[#out + 1] = tonumber(f[3]) or 0
    out[#out + 1] = f[4] or ''
    out[#out + 1] = tonumber(ids[i + 1])
  end
end
return out
