-- Records a worker's heartbeat. KEYS[1] = sorted set of workers (score = last heartbeat, ms),
-- KEYS[2] = the worker's hash; both share one hash tag. ARGV[1] worker id, ARGV[2] time to live
-- ms, then field/value pairs describing the worker. Workers silent for longer than their time to
-- live are dropped from the set. Returns the server time.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
local fields = {'lastSeen', now}
for i = 3, #ARGV do
  fields[#fields + 1] = ARGV[i]
end
redis.call('HSET', KEYS[2], unpack(fields))
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return now
