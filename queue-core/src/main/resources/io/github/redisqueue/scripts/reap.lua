-- One pass of the reaper, bounded by ARGV[3] jobs per step: expired leases back to ready (or
-- dead), due delayed jobs promoted, jobs past their expiry dead-lettered, completed jobs older
-- than ARGV[4] ms and dead jobs older than ARGV[5] ms (0 = keep) deleted.
-- ARGV[6..] name workers whose heartbeat ran out: the in-flight jobs they hold (worker identity
-- equal to the name, or the name followed by '#') are taken back before their leases run out.
-- Returns reclaimed, promoted, expired, purged completed, purged dead, taken from silent workers.
local now = now_ms()
local limit = tonumber(ARGV[3])
local done_ttl, dead_ttl = tonumber(ARGV[4]), tonumber(ARGV[5])
local abandoned = 0
if #ARGV >= 6 then
  local silent = {}
  for i = 6, #ARGV do
    silent[ARGV[i]] = true
  end
  local ids = {}
  for _, id in ipairs(redis.call('ZRANGE', K_INFLIGHT, 0, -1)) do
    local worker = redis.call('HGET', JOB .. id, 'worker')
    if worker and silent[string.match(worker, '^[^#]*')] then
      ids[#ids + 1] = id
    end
  end
  take_back(ids, now, 'worker stopped heartbeating')
  abandoned = #ids
end
local reclaimed = reclaim(now, limit)
local promoted, expired = promote(now, limit)
for _, id in ipairs(redis.call('ZRANGEBYSCORE', K_EXPIRY, '-inf', now, 'LIMIT', 0, limit)) do
  local f = redis.call('HMGET', JOB .. id, 'state', 'attempts')
  if f[1] and (f[1] == 'ready' or f[1] == 'delayed') and (tonumber(f[2]) or 0) == 0 then
    redis.call('ZREM', K_READY, id)
    redis.call('ZREM', K_DELAYED, id)
    expire(id, now)
    expired = expired + 1
  else
    redis.call('ZREM', K_EXPIRY, id)
  end
end
local function purge(key, ttl)
  if ttl <= 0 then
    return 0
  end
  local ids = redis.call('ZRANGEBYSCORE', key, '-inf', now - ttl, 'LIMIT', 0, limit)
  for _, id in ipairs(ids) do
    redis.call('DEL', JOB .. id)
  end
  if #ids > 0 then
    redis.call('ZREM', key, unpack(ids))
  end
  return #ids
end
return {reclaimed, promoted, expired, purge(K_DONE, done_ttl), purge(K_DEAD, dead_ttl), abandoned}
