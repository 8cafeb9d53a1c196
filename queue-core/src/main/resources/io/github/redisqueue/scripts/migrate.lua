-- Moves one slice of a queue partition's records from layout 4 to layout 5. ARGV[3] = 'jobs' (the
-- hash K_JOBS) or 'gates' (K_GATES), ARGV[4] = the HSCAN cursor to go on from ('0' to start).
-- Layout 4 kept a job's payload in its record (the position now named 'inlinePayload') and a
-- batch's completion payload in its gate record ('context'); layout 5 keeps them in fields of their
-- own ('<id>:p', '<gate id>:c'), so that a change of state rewrites a small record only. Each record
-- that still holds one is rewritten without it here; records already moved, the payload fields,
-- and records that cannot be decoded (left for the scripts to dead-letter as before) are passed
-- over. The scan stops once it read MIGRATE_BYTES of values or MIGRATE_ENTRIES fields, so that
-- one call stays short whatever the payloads; a record is moved whole in one call, so instances
-- that migrate the same queue at once (each with its own cursor) move each record once, and a
-- record a scan returns twice is passed over the second time. The scripts read records of both
-- layouts, so the queue works while this runs.
-- Returns the cursor of the next call ('0' when the scan is complete) and how many records moved.
local MIGRATE_BYTES, MIGRATE_ENTRIES = 65536, 64
local h = (ARGV[3] == 'gates') and K_GATES or K_JOBS
if ARGV[3] ~= 'jobs' and ARGV[3] ~= 'gates' then
  return redis.error_reply('ERR unknown records ' .. tostring(ARGV[3]))
end
local at = (h == K_JOBS) and J.inlinePayload or POSITION[K_GATES].context
local size = #FIELDS[h]
local suffix = (h == K_JOBS) and ':p' or ':c'
-- whether a field of the hash holds a record, not a payload: a job's is its id (no ':'), a gate's
-- is its gate id, whose name is as long as the gate id says (a payload field has ':c' after it)
local function is_record(field)
  if h == K_JOBS then
    return not string.find(field, ':', 1, true)
  end
  local length, name = string.match(field, '^[bg](%d+):(.*)$')
  return length ~= nil and #name == tonumber(length)
end
local cursor, bytes, seen, moved = ARGV[4], 0, 0, 0
repeat
  local reply = redis.call('HSCAN', h, cursor, 'COUNT', 16)
  cursor = reply[1]
  local flat = reply[2]
  for i = 1, #flat, 2 do
    local field, value = flat[i], flat[i + 1]
    bytes = bytes + #value
    seen = seen + 1
    if is_record(field) then
      local ok, t = pcall(cmsgpack.unpack, value)
      -- a job record written before 'progress' (or 'ofGroup') was appended has fewer positions
      local fits = ok and type(t) == 'table'
        and (#t == size or (h == K_JOBS and #t >= J.progress - 1 and #t < size))
      if fits and type(t[at]) == 'string' then
        for p = 1, size do
          if t[p] == nil then
            t[p] = false
          end
        end
        local inline = t[at]
        t[at] = false
        redis.call('HSET', h, field, cmsgpack.pack(t), field .. suffix, inline)
        moved = moved + 1
      end
    end
  end
until cursor == '0' or bytes >= MIGRATE_BYTES or seen >= MIGRATE_ENTRIES
return {cursor, moved}
