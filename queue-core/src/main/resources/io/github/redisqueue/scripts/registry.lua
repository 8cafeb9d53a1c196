-- Shared prelude of the worker registry scripts (heartbeat, workers, silent). Their keys share
-- the hash tag {prefix:workers}: KEYS[1] is the sorted set of live workers (score = heartbeat
-- deadline, ms, server clock).

-- Workers past their deadline leave the live set for the set of silent ones, where the reaper
-- finds them (their deadline kept as score): at most `limit` per call, the longest silent first,
-- so that a call's work stays bounded however many workers went silent at once (the next call
-- moves the rest). Returns how many moved.
local function move_silent(live, silent, now, limit)
  local gone = redis.call('ZRANGEBYSCORE', live, '-inf', now, 'WITHSCORES', 'LIMIT', 0, limit)
  for i = 1, #gone, 2 do
    redis.call('ZADD', silent, gone[i + 1], gone[i])
    redis.call('ZREM', live, gone[i])
  end
  return #gone / 2
end

-- the most workers a registry call moves to the silent set, lists or reads descriptions of
local REGISTRY_STEP = 100

-- a page argument clamped to its range: the size from 1 to REGISTRY_STEP, the offset 0 or more
-- (an argument that is not a number reads as the smallest)
local function registry_count(arg)
  return math.max(1, math.min(REGISTRY_STEP, math.floor(tonumber(arg) or 1)))
end

local function registry_offset(arg)
  return math.max(0, math.floor(tonumber(arg) or 0))
end
