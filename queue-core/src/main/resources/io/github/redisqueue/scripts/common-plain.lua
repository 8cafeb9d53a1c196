-- common-plain.lua: the list of plain ready jobs (K_PLAIN), a module of the queue scripts'
-- prelude (see common-keys.lua).
-- Defines: PLAIN_BASE, plain_prefix, plain_element, plain_id, plain_id_text, plain_fields_written, plain_fields and
-- plain_record (plain elements); TOMBS, plain_tombstone, is_tombstone, ready_count and
-- tombs_dropped (the tombstones of deleted plain jobs); pop_ready (the head of ready: K_READY and
-- K_PLAIN merged by score); PLAIN_WINDOW, plain_match and plain_find (a plain job by its id).
-- Relies on: K_READY, K_STATS, K_JOBS, K_PLAIN and ID_STEP (common-keys); int, J, blank and jsize
-- (common-records).
-- Invariants: K_PLAIN is in id order and a plain job's place in ready is PLAIN_BASE + its id, so
-- the merge reads K_READY and K_PLAIN as one sorted set; '~tombs' in K_STATS counts the
-- tombstones in the list; pop_ready reads at most n jobs and bytes (the first job always), and
-- plain_find at most 128 probes and one window of PLAIN_WINDOW elements.

-- Plain jobs (K_PLAIN): a ready job of priority 0 whose place in ready is its id, kept as one list
-- element instead of a record, a payload entry and a ready entry. The list holds them in id order
-- (enqueue appends fresh ids, and a lost counter resumes past the last one, see seq_lost_base), so the
-- reserve merges its head with the ready set's by score, exactly as if they were one sorted set.
local PLAIN_BASE = 1000 * 1000000000000

-- the start of the MessagePack array of a plain element, shared by the jobs of one enqueue: the
-- array header and its first three values
local function plain_prefix(headers, max_attempts, enqueued_at)
  return '\148' .. cmsgpack.pack(headers, max_attempts, enqueued_at)
end

-- a plain element: the id, ':', the prefix, then the payload as a MessagePack string (its header
-- written here, so that the payload is copied once)
local function plain_element(id, prefix, payload)
  local size, head = #payload
  if size < 32 then
    head = string.char(160 + size)
  elseif size < 256 then
    head = '\217' .. string.char(size)
  elseif size < 65536 then
    head = '\218' .. string.char(math.floor(size / 256), size % 256)
  else
    head = '\219' .. string.char(math.floor(size / 16777216), math.floor(size / 65536) % 256,
      math.floor(size / 256) % 256, size % 256)
  end
  return id .. ':' .. prefix .. head .. payload
end

-- the id of a plain element, as a number (nil when the element is damaged)
local function plain_id(element)
  return tonumber(string.match(element, '^(%d+):'))
end

-- the id of a plain element as the text of a job id (false when the element is damaged): its
-- digits as written, unless they carry leading zeros
local function plain_id_text(element)
  local digits = string.match(element, '^(%d+):')
  if not digits then
    return false
  end
  if string.byte(digits, 1) == 48 and #digits > 1 then
    return int(tonumber(digits))
  end
  return digits
end

-- the fields of a plain element as plain_element writes them, read without copying the payload
-- twice: the array header, the first three values, then the payload's string header read here, so
-- that the payload is copied once (a 10 KB payload costs a copy, not a copy and a decode); nil
-- when the element is not in that form exactly (plain_fields then decodes it whole). Used for
-- elements longer than 512 bytes (below, a whole decode is quicker: 0.9 against 1.1 us at 60
-- bytes; at 10 KB 25.8 against 13.6 us, in EVAL loops on the development machine)

local function plain_fields_written(element, at)
  if string.byte(element, at + 1) ~= 148 then
    return nil
  end
  -- offsets are 0-based: the array header is at 'at'
  local ok, after, headers, max_attempts, enqueued_at = pcall(cmsgpack.unpack_limit, element, 3, at + 1)
  if not ok or type(after) ~= 'number' or type(headers) ~= 'string' or max_attempts == nil or enqueued_at == nil then
    return nil
  end
  local b, start, size = string.byte(element, after + 1), nil, nil
  if not b then
    return nil
  elseif b >= 160 and b <= 191 then
    start, size = after + 2, b - 160
  elseif b == 217 and #element >= after + 2 then
    start, size = after + 3, string.byte(element, after + 2)
  elseif b == 218 and #element >= after + 3 then
    local b1, b2 = string.byte(element, after + 2, after + 3)
    start, size = after + 4, b1 * 256 + b2
  elseif b == 219 and #element >= after + 5 then
    local b1, b2, b3, b4 = string.byte(element, after + 2, after + 5)
    start, size = after + 6, ((b1 * 256 + b2) * 256 + b3) * 256 + b4
  else
    return nil
  end
  if start + size - 1 ~= #element then
    return nil
  end
  return {headers, max_attempts, enqueued_at, string.sub(element, start)}
end

-- the fields of a plain element: headers, max attempts, enqueue time, payload; when it cannot be
-- used: nil, the reason and its payload (the whole element when even that cannot be read)
local function plain_fields(element)
  local at = string.find(element, ':', 1, true)
  -- a short element decodes whole faster than it is read by parts
  local t = nil
  if at and #element > 512 then
    t = plain_fields_written(element, at)
  end
  local ok = t ~= nil
  if not ok then
    ok, t = pcall(cmsgpack.unpack, string.sub(element, (at or 0) + 1))
  end
  if not at or not ok or type(t) ~= 'table' or #t ~= 4 then
    return nil, 'corrupt job: plain ready entry cannot be read', element
  end
  if type(t[4]) ~= 'string' then
    return nil, 'corrupt job: field payload is missing', element
  end
  if not tonumber(t[2]) or not tonumber(t[3]) then
    local i, name = 2, 'maxAttempts'
    if tonumber(t[2]) then
      i, name = 3, 'enqueuedAt'
    end
    local found = (type(t[i]) == 'string') and ("'" .. string.sub(t[i], 1, 40) .. "'") or 'missing'
    return nil, 'corrupt job: field ' .. name .. ' is ' .. found, t[4]
  end
  return t
end

-- the record of a plain job while it is ready, t holding its plain_fields
local function plain_record(id, t)
  local r = blank(K_JOBS)
  r[J.state], r[J.headers], r[J.priority], r[J.score] = 'ready', t[1], '0', int(PLAIN_BASE + tonumber(id))
  r[J.attempts], r[J.maxAttempts], r[J.token], r[J.enqueuedAt] = '0', t[2], '0', t[3]
  r[J.dueAt], r[J.expireAt] = '0', '0'
  return r
end

-- A plain job deleted while ready leaves a tombstone in its place in the list: its id and ':'
-- alone (a delete replaces the element with LSET, where an LREM would compare every element of the
-- list). The list stays in id order; the reserve drops tombstones as they reach the head, a search
-- by id does not find them, and the stats field '~tombs' counts those in the list, so that counts
-- leave them out.
local TOMBS = '~tombs'

local function plain_tombstone(id)
  return id .. ':'
end

local function is_tombstone(element)
  return string.byte(element, -1) == 58 and string.match(element, '^%d+:$') ~= nil
end

local function ready_count()
  local plain = redis.call('LLEN', K_PLAIN)
  if plain > 0 then
    plain = math.max(0, plain - (tonumber(redis.call('HGET', K_STATS, TOMBS)) or 0))
  end
  return redis.call('ZCARD', K_READY) + plain
end

-- tombstones dropped off the list: the count follows (and is cleared with an empty list)
local function tombs_dropped(n)
  if n > 0 then
    if redis.call('LLEN', K_PLAIN) == 0 then
      redis.call('HDEL', K_STATS, TOMBS)
    else
      redis.call('HINCRBY', K_STATS, TOMBS, -n)
    end
  end
end

-- Takes up to n jobs off the head of ready: from the ready set and the plain list, merged by score,
-- while their bytes (a plain element's length; a record's and its payload's weight, see jsize) come to at
-- most bytes, the first job always. Plain elements are read as the merge needs them: two, then 4
-- at a time (a read of large elements that the bytes left cannot take is wasted; two at first, so
-- that a list of one job is known to end after one read).
-- Returns a list of {id, element, payload length} in ready order, element being the plain element
-- (no length then) or false, the
-- number of tombstones taken off the list on the way (they count against n: a caller that got
-- fewer jobs than asked for while tombstones were dropped may call again), and whether both ran
-- out (nothing else was ready: a caller need not look again, unless it made jobs ready since).
local function pop_ready(n, bytes)
  local z = redis.call('ZRANGE', K_READY, 0, n - 1, 'WITHSCORES')
  local out, used, dropped = {}, 0, 0
  local zi, taken = 1, 0
  local l, li, list_end = {}, 1, false
  while #out + dropped < n do
    if li > #l and not list_end then
      local want = math.min((taken == 0) and 2 or 4, n - #out - dropped)
      l, li = redis.call('LRANGE', K_PLAIN, taken, taken + want - 1), 1
      list_end = #l < want
    end
    local e = l[li]
    local take_plain = e ~= nil
    if take_plain and zi <= #z then
      -- a damaged element (no id) goes first, to be dead-lettered
      local id = plain_id(e)
      take_plain = not id or PLAIN_BASE + id < tonumber(z[zi + 1])
    end
    if not take_plain and zi > #z then
      break
    end
    if take_plain and is_tombstone(e) then
      -- a deleted plain job's place: dropped, no bytes of a job
      dropped = dropped + 1
      li, taken = li + 1, taken + 1
    else
      local size, psize
      if take_plain then
        size = #e
      else
        size, psize = jsize(z[zi])
      end
      if #out > 0 and used + size > bytes then
        break
      end
      used = used + size
      if take_plain then
        out[#out + 1] = {plain_id_text(e), e}
        li, taken = li + 1, taken + 1
      else
        out[#out + 1] = {z[zi], false, psize}
        zi = zi + 2
      end
    end
  end
  if zi > 1 then
    redis.call('ZPOPMIN', K_READY, (zi - 1) / 2)
  end
  if taken > 0 then
    redis.call('LTRIM', K_PLAIN, taken, -1)
  end
  tombs_dropped(dropped)
  -- the set was read whole (fewer than n) and taken, the list's end was read and taken
  local ran_out = zi > #z and #z < 2 * n and list_end and li > #l
  return out, dropped, ran_out
end

-- the plain element of job id (a number) and its index in the list, or nil. The list is in id
-- order and ids grow by at least ID_STEP from one element to the next, so the element lies at most
-- (id - id_lo) / ID_STEP places after an element of id id_lo, and as many before one of a higher
-- id: an interpolation search narrows the span with a few reads of an element (each a walk of the
-- list from its nearer end) until it holds at most PLAIN_WINDOW elements, read at once. With
-- ids without gaps that is at once; every other probe halves the span, so at most about 2 x 64.
local PLAIN_WINDOW = 256

-- the element at list index at when it is job id's (a tombstone is not), else nil
local function plain_match(e, id, at)
  if e and plain_id(e) == id and not is_tombstone(e) then
    return e, at
  end
  return nil
end

local function plain_find(id)
  local len = redis.call('LLEN', K_PLAIN)
  if len == 0 then
    return nil
  end
  -- known elements on either side: at index plo an id below id, at phi one above
  local first, last = redis.call('LINDEX', K_PLAIN, 0), redis.call('LINDEX', K_PLAIN, -1)
  local plo, idlo = 0, plain_id(first)
  local phi, idhi = len - 1, plain_id(last)
  if not idlo or not idhi or id < idlo or id > idhi then
    return nil
  elseif id == idlo then
    return plain_match(first, id, 0)
  elseif id == idhi then
    return plain_match(last, id, len - 1)
  end
  for round = 1, 128 do
    -- the span where the element can be
    local from = math.max(plo + 1, phi - math.floor((idhi - id) / ID_STEP))
    local to = math.min(phi - 1, plo + math.floor((id - idlo) / ID_STEP))
    if from > to then
      return nil
    end
    if to - from < PLAIN_WINDOW then
      for i, e in ipairs(redis.call('LRANGE', K_PLAIN, from, to)) do
        if plain_id(e) == id then
          return plain_match(e, id, from + i - 1)
        end
      end
      return nil
    end
    local at
    if round % 2 == 1 then
      at = plo + math.floor((id - idlo) * (phi - plo) / (idhi - idlo))
    else
      at = math.floor((from + to) / 2)
    end
    at = math.max(from, math.min(to, at))
    local e = redis.call('LINDEX', K_PLAIN, at)
    local found = e and plain_id(e)
    if not found then
      return nil
    elseif found == id then
      return plain_match(e, id, at)
    elseif found < id then
      plo, idlo = at, found
    else
      phi, idhi = at, found
    end
  end
  return nil
end
