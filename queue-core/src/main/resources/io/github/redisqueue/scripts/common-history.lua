-- common-history.lua: the per-minute history of a queue over the last 24 hours, a module of the
-- queue scripts' prelude (see common-keys.lua).
-- Defines: HISTORY_MINUTES, HISTORY_SLOT_BITS, HISTORY_MARK, HISTORY_COMPLETED, HISTORY_FAILED and
-- history_add (counts jobs of one series in the minute of now).
-- Relies on: K_HISTORY (common-keys).
-- Layout of K_HISTORY, one string of 7,204 bytes: 1,440 slots of 5 bytes, slot = minute (ms /
-- 60000) modulo 1440, each holding two unsigned counters, big endian: completed (24 bits), then
-- failed (16 bits: attempts that failed, retried or dead-lettered, and jobs dead-lettered without
-- a failed attempt: expired, lease lost too often, unreadable record); then at byte 7200 the last
-- minute written (u32). A slot counts its minute only when it lies within the 1,440 minutes up to
-- the marker; the slots of the minutes a call skips past the marker are zeroed when it moves the
-- marker, so a slot never adds a day-old count to a new one.
-- Invariants: a call costs one BITFIELD per history_add (the first of a call reads the marker in
-- the same command); moving the marker costs at most three more commands and 7,204 bytes of
-- zeros, once per minute; the string is written whole by SET when new (never left grown by
-- BITFIELD, which would allocate twice its size: MEMORY USAGE stays near 8 KB);
-- counters saturate (16,777,215 completions and 65,535 failures per minute).

local HISTORY_MINUTES, HISTORY_SLOT_BITS = 1440, 40
local HISTORY_MARK = HISTORY_MINUTES * HISTORY_SLOT_BITS
-- a series is the bit offset of its counter in a slot and the counter's type
local HISTORY_COMPLETED, HISTORY_FAILED = {0, 'u24'}, {24, 'u16'}
-- the minute this call found or set as the marker (false before its first history_add)
local history_minute = false

local function history_add(series, n, now)
  if n <= 0 then
    return
  end
  local minute = math.floor(now / 60000)
  local at, kind = (minute % HISTORY_MINUTES) * HISTORY_SLOT_BITS + series[1], series[2]
  if history_minute == minute then
    redis.call('BITFIELD', K_HISTORY, 'OVERFLOW', 'SAT', 'INCRBY', kind, at, n)
    return
  end
  local mark = redis.call('BITFIELD', K_HISTORY, 'GET', 'u32', HISTORY_MARK, 'OVERFLOW', 'SAT', 'INCRBY', kind,
    at, n)[1]
  history_minute = minute
  if mark >= minute then
    -- the marker's minute (or, when the clock stepped back, a minute before it): the slot is live
    return
  end
  -- the slots from the marker's next minute to this one held counts of a day ago or more: zeroed,
  -- in at most two ranges of the ring (the whole string, written anew, when the marker is a day
  -- old or unset: a new key, grown by the BITFIELD above, is replaced by one of its exact size),
  -- then this call's count set again
  local first = math.max(mark + 1, minute - HISTORY_MINUTES + 1) % HISTORY_MINUTES
  local last = minute % HISTORY_MINUTES
  local slot_bytes = HISTORY_SLOT_BITS / 8
  if minute - mark >= HISTORY_MINUTES then
    redis.call('SET', K_HISTORY, string.rep('\0', HISTORY_MARK / 8 + 4))
  elseif first <= last then
    redis.call('SETRANGE', K_HISTORY, first * slot_bytes, string.rep('\0', (last - first + 1) * slot_bytes))
  else
    redis.call('SETRANGE', K_HISTORY, first * slot_bytes, string.rep('\0', (HISTORY_MINUTES - first) * slot_bytes))
    redis.call('SETRANGE', K_HISTORY, 0, string.rep('\0', (last + 1) * slot_bytes))
  end
  redis.call('BITFIELD', K_HISTORY, 'OVERFLOW', 'SAT', 'SET', kind, at, n, 'SET', 'u32', HISTORY_MARK, minute)
end
