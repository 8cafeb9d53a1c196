-- Lists live workers, a page at a time. KEYS[1] = sorted set of workers (score = heartbeat
-- deadline), KEYS[2] = hash of their descriptions (see heartbeat.lua). ARGV[1] offset among the
-- live workers (soonest deadline first), ARGV[2] page size (at most 100). Returns the number of
-- live entries the page read (a caller goes on while it equals the page size), then per worker
-- with a readable description: id, then its description as a flat list of fields and values.
local now = now_ms()
local offset, count = registry_offset(ARGV[1]), registry_count(ARGV[2])
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], now, '+inf', 'LIMIT', offset, count)
local out = {#ids}
for _, id in ipairs(ids) do
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
