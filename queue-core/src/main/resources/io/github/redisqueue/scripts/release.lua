-- Gives leased jobs back to ready at their original place without counting the attempt.
-- ARGV[3] = worker identity: when not empty, every job that worker holds is released (a
-- restarted worker takes back its own work); otherwise pairs of id and token follow.
-- Returns per pair 1 released, 0 stale token, -1 no such job; in worker mode, one count.
local function release(id, jk, score)
  redis.call('ZREM', K_INFLIGHT, id)
  redis.call('HINCRBY', jk, 'attempts', -1)
  redis.call('HSET', jk, 'state', 'ready', 'readyAt', now_ms(), 'worker', '')
  redis.call('ZADD', K_READY, score, id)
end

local worker = ARGV[3]
if worker ~= '' then
  local count = 0
  for _, id in ipairs(redis.call('ZRANGE', K_INFLIGHT, 0, -1)) do
    local jk = JOB .. id
    local f = redis.call('HMGET', jk, 'worker', 'score')
    if f[1] == worker then
      release(id, jk, f[2])
      count = count + 1
    end
  end
  if count > 0 then
    wake(count)
  end
  return {count}
end
local out = {}
local released = 0
for i = 4, #ARGV, 2 do
  local id, token = ARGV[i], ARGV[i + 1]
  local jk = JOB .. id
  local f = redis.call('HMGET', jk, 'state', 'token', 'score')
  if not f[1] then
    out[#out + 1] = -1
  elseif f[1] ~= 'active' or f[2] ~= token then
    out[#out + 1] = 0
  else
    release(id, jk, f[3])
    released = released + 1
    out[#out + 1] = 1
  end
end
if released > 0 then
  wake(released)
end
return out
