-- Records a worker's heartbeat. KEYS[1] = sorted set of live workers (score = heartbeat
-- deadline, ms), KEYS[2] = hash of the workers' descriptions (worker id -> MessagePack list of
-- field/value pairs), KEYS[3] = sorted set of workers that went silent (score = when their
-- heartbeat ran out); all share one hash tag. ARGV[1] worker id, ARGV[2] time to live ms (0 = the
-- worker leaves cleanly: its entry is deleted), then field/value pairs describing the worker. Workers silent past their deadline move to the silent set, where the
-- reaper finds them. Returns the server time.
local now = now_ms()
local ttl = tonumber(ARGV[2])
move_silent(KEYS[1], KEYS[3], now, REGISTRY_STEP)
-- forget silent workers after an hour (a hundred per call): their leases have long run out by then
local forgotten = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now - 3600000, 'LIMIT', 0, 100)
if #forgotten > 0 then
  redis.call('ZREM', KEYS[3], unpack(forgotten))
  redis.call('HDEL', KEYS[2], unpack(forgotten))
end
redis.call('ZREM', KEYS[3], ARGV[1])
if ttl <= 0 then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  return now
end
local fields = {'lastSeen', string.format('%d', now)}
for i = 3, #ARGV do
  fields[#fields + 1] = ARGV[i]
end
redis.call('HSET', KEYS[2], ARGV[1], cmsgpack.pack(fields))
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
return now
