-- common-wake.lua: wake-ups of blocked consumers, a module of the queue scripts' prelude (see
-- common-keys.lua).
-- Defines: wake_owed, delayed_head (the head of the delayed set as promote last read it, for
-- next_due) and wake.
-- Relies on: K_WAKE, PARTITIONED and WAKE_CAP (common-keys).
-- Invariants: K_WAKE holds at most WAKE_CAP pending wake-ups (on a partition, one, announced on
-- pub/sub); while wake_owed is 0 or more (set by the reserve) wake-ups are counted there instead,
-- and the reserve pays them at its end; code that changes K_DELAYED sets delayed_head to false
-- before a later next_due of the same call could read it.

local wake_owed = -1

-- the head of the delayed set (its reply to ZRANGE 0 0 WITHSCORES) as promote found it when none
-- was due, for next_due; false once the set may have changed since
local delayed_head = false

-- while wake_owed is 0 or more (a reserve acknowledging jobs), wake-ups are owed instead, and
-- paid at the end of the reserve for the jobs it did not take itself
local function wake(count)
  if wake_owed >= 0 then
    wake_owed = wake_owed + count
    return
  end
  local pending = redis.call('LLEN', K_WAKE)
  if PARTITIONED then
    -- one announcement until the next reserve of the partition clears it
    if pending == 0 then
      redis.call('RPUSH', K_WAKE, '1')
      redis.call('PUBLISH', K_WAKE, '1')
    end
    return
  end
  local add = math.min(count, WAKE_CAP - pending)
  for _ = 1, add do
    redis.call('RPUSH', K_WAKE, '1')
  end
end
