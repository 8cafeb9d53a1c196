-- Shared prelude of the worker registry scripts (heartbeat, workers, silent). Their keys share
-- the hash tag {prefix:workers}: KEYS[1] is the sorted set of live workers (score = heartbeat
-- deadline, ms, server clock).

-- workers past their deadline leave the live set for the set of silent ones, where the reaper
-- finds them (their deadline kept as score)
local function move_silent(live, silent, now)
  local gone = redis.call('ZRANGEBYSCORE', live, '-inf', now, 'WITHSCORES')
  for i = 1, #gone, 2 do
    redis.call('ZADD', silent, gone[i + 1], gone[i])
  end
  redis.call('ZREMRANGEBYSCORE', live, '-inf', now)
end
