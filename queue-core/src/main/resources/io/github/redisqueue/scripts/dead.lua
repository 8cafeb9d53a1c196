-- Acts on dead letters. ARGV[3] 'retry' or 'purge', ARGV[4] the most jobs to touch when no ids
-- follow (then the oldest dead jobs are taken), then optional ids.
-- Retried jobs start again with no attempts used, at the end of their priority level.
-- Returns the number of jobs touched.
local op, limit = ARGV[3], tonumber(ARGV[4])
local ids = {}
if #ARGV >= 5 then
  for i = 5, #ARGV do
    ids[#ids + 1] = ARGV[i]
  end
else
  ids = redis.call('ZRANGE', K_DEAD, 0, limit - 1)
end
local count = 0
local now = now_ms()
for _, id in ipairs(ids) do
  if redis.call('ZREM', K_DEAD, id) == 1 then
    local jk = JOB .. id
    local f = redis.call('HMGET', jk, 'priority', 'uniqueKey')
    if op == 'purge' or not f[1] then
      redis.call('DEL', jk)
    else
      local score = ready_score(tonumber(f[1]), redis.call('INCR', K_SEQ))
      redis.call('HSET', jk, 'state', 'ready', 'readyAt', now, 'attempts', 0, 'score', score, 'finishedAt', 0)
      if f[2] and f[2] ~= '' then
        redis.call('SET', UNIQUE .. f[2], id, 'NX')
      end
      redis.call('ZADD', K_READY, score, id)
    end
    count = count + 1
  end
end
if op == 'retry' and count > 0 then
  wake(count)
end
return {count}
