-- common-unique.lua: uniqueness keys, a module of the queue scripts' prelude (see
-- common-keys.lua).
-- Defines: unique_holder, unique_take and release_unique.
-- Relies on: K_UNIQUE, K_UNIQUE_UNTIL and MAX_UNIQUE_TTL (common-keys); int (common-records).
-- Invariants: K_UNIQUE maps a uniqueness key to the one job holding it; a key kept after its job
-- completed has its lapse time in K_UNIQUE_UNTIL (at most MAX_UNIQUE_TTL ahead) and holds until
-- then; a job releases a key only while the key still names that job.

-- the job holding a uniqueness key, or false; a key kept after its job completed holds until
-- its window lapses (the reaper deletes lapsed keys, see trim)
local function unique_holder(ukey, now)
  local id = redis.call('HGET', K_UNIQUE, ukey)
  if id then
    local lapses = tonumber(redis.call('ZSCORE', K_UNIQUE_UNTIL, ukey))
    if lapses and lapses <= now then
      return false
    end
  end
  return id
end

local function unique_take(ukey, id)
  redis.call('HSET', K_UNIQUE, ukey, id)
  redis.call('ZREM', K_UNIQUE_UNTIL, ukey)
end

-- releases the job's uniqueness key if it still points at this job; after a completion the key
-- may instead be kept for the job's uniqueness window
local function release_unique(id, ukey, ttl, completed, now)
  if not ukey or ukey == '' then
    return
  end
  if redis.call('HGET', K_UNIQUE, ukey) ~= id then
    return
  end
  ttl = math.min(math.floor(tonumber(ttl) or 0), MAX_UNIQUE_TTL)
  if completed and ttl > 0 then
    redis.call('ZADD', K_UNIQUE_UNTIL, int(now + ttl), ukey)
  else
    redis.call('HDEL', K_UNIQUE, ukey)
    redis.call('ZREM', K_UNIQUE_UNTIL, ukey)
  end
end
