-- Lists the workers whose heartbeat ran out without a clean leave within the last hour (the
-- reaper finds their jobs through each queue's own record of its consumers), a page at a time.
-- KEYS[1] = sorted set of live workers, KEYS[2] = sorted set of silent workers (one hash tag).
-- ARGV[1] offset in the silent set (longest silent first), ARGV[2] page size (at most 100).
-- First moves at most 100 workers whose heartbeat ran out to the silent set. Returns the number
-- moved, then the page's worker ids: a caller goes on while the page is full or the move was.
local moved = move_silent(KEYS[1], KEYS[2], now_ms(), REGISTRY_STEP)
local offset, count = registry_offset(ARGV[1]), registry_count(ARGV[2])
local out = {moved}
for _, id in ipairs(redis.call('ZRANGE', KEYS[2], offset, offset + count - 1)) do
  out[#out + 1] = id
end
return out
