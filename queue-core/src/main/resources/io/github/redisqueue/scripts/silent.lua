-- Lists the workers whose heartbeat ran out without a clean leave, so that the reaper can hand
-- out their jobs again; ARGV[1] = 'forget' removes the workers named in ARGV[2..] instead.
-- KEYS[1] = sorted set of live workers, KEYS[2] = sorted set of silent workers (one hash tag).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if ARGV[1] == 'forget' then
  for i = 2, #ARGV do
    redis.call('ZREM', KEYS[2], ARGV[i])
  end
  return {}
end
local silent = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES')
for i = 1, #silent, 2 do
  redis.call('ZADD', KEYS[2], silent[i + 1], silent[i])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZRANGE', KEYS[2], 0, -1)
