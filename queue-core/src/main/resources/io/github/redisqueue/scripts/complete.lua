-- Acknowledges jobs. ARGV[3] = retention ms of completed jobs (0 deletes them at once), then
-- pairs of id and lease token. Returns per pair: 1 acknowledged, 0 stale token (the job is no
-- longer held under that token), -1 no such job.
local now = now_ms()
local retention = tonumber(ARGV[3])
local out = {}
local done = 0
for i = 4, #ARGV, 2 do
  local id, token = ARGV[i], ARGV[i + 1]
  local jk = JOB .. id
  local f = redis.call('HMGET', jk, 'state', 'token', 'uniqueKey', 'uniqueTtl')
  if not f[1] then
    out[#out + 1] = -1
  elseif f[1] ~= 'active' or f[2] ~= token then
    out[#out + 1] = 0
  else
    redis.call('ZREM', K_INFLIGHT, id)
    release_unique(id, f[3], f[4], true)
    if retention > 0 then
      redis.call('HSET', jk, 'state', 'completed', 'finishedAt', now, 'worker', '')
      redis.call('ZADD', K_DONE, now, id)
    else
      redis.call('DEL', jk)
    end
    done = done + 1
    out[#out + 1] = 1
  end
end
if done > 0 then
  redis.call('HINCRBY', K_STATS, 'completed', done)
end
return out
