-- Lists live workers. KEYS[1] = sorted set of workers (score = heartbeat deadline), KEYS[2] =
-- hash of their descriptions (see heartbeat.lua). Returns per worker: id, then its description as
-- a flat list of fields and values.
local now = now_ms()
local out = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], now, '+inf')) do
  local raw = redis.call('HGET', KEYS[2], id)
  local ok, fields = false, nil
  if raw then
    ok, fields = pcall(cmsgpack.unpack, raw)
  end
  if ok and type(fields) == 'table' and #fields > 0 then
    out[#out + 1] = id
    out[#out + 1] = fields
  end
end
return out
