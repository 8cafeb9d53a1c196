-- Lists live workers. KEYS[1] = sorted set of workers (score = heartbeat deadline), ARGV[1] =
-- prefix of the workers' hashes. Returns per worker: id, then its hash as a flat list.
local now = now_ms()
local out = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], now, '+inf')) do
  local fields = redis.call('HGETALL', ARGV[1] .. id)
  if #fields > 0 then
    out[#out + 1] = id
    out[#out + 1] = fields
  end
end
return out
