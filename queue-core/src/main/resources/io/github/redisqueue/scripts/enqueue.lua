-- Enqueues one or more jobs. ARGV[3] = job count, then 9 values per job:
-- payload, headers, priority, delay ms, run-at ms (0 = none), uniqueness key ('' = none),
-- uniqueness window ms after completion, expire-after ms (0 = none), max attempts.
-- Returns id, created flag (1 new, 0 refused as duplicate: id is the existing job's) per job.
local now = now_ms()
local n = tonumber(ARGV[3])
local out = {}
local woken = 0
for i = 0, n - 1 do
  local o = 4 + i * 9
  local ukey = ARGV[o + 5]
  local existing = false
  if ukey ~= '' then
    existing = redis.call('GET', UNIQUE .. ukey)
  end
  if existing then
    out[#out + 1] = existing
    out[#out + 1] = 0
    redis.call('HINCRBY', K_STATS, 'duplicates', 1)
  else
    local seq = redis.call('INCR', K_SEQ)
    local id = tostring(seq)
    local priority = tonumber(ARGV[o + 2])
    local delay, run_at = tonumber(ARGV[o + 3]), tonumber(ARGV[o + 4])
    local expire_after = tonumber(ARGV[o + 7])
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
    local score = ready_score(priority, seq)
    local jk = JOB .. id
    local state = 'ready'
    if due > now then
      state = 'delayed'
    end
    redis.call('HSET', jk, 'payload', ARGV[o], 'headers', ARGV[o + 1], 'priority', priority,
      'score', score, 'attempts', 0, 'maxAttempts', ARGV[o + 8], 'token', 0, 'enqueuedAt', now,
      'dueAt', due, 'expireAt', expire_at, 'uniqueKey', ukey, 'uniqueTtl', ARGV[o + 6], 'state', state)
    if ukey ~= '' then
      redis.call('SET', UNIQUE .. ukey, id)
    end
    if state == 'delayed' then
      delay_job(id, due)
    else
      redis.call('ZADD', K_READY, score, id)
      woken = woken + 1
    end
    if expire_at > 0 then
      redis.call('ZADD', K_EXPIRY, expire_at, id)
    end
    out[#out + 1] = id
    out[#out + 1] = 1
  end
end
redis.call('HINCRBY', K_STATS, 'enqueued', n)
if woken > 0 then
  wake(woken)
end
return out
