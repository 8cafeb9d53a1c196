-- Shared prelude, prepended to every script of redis-queue when it is loaded.
-- KEYS (same order for every script; all share the queue's hash tag). A script reads and writes
-- these keys only (and keys it is given after them), never a key named after data it read:
--   1 ready     sorted set, score = priority band + sequence (lowest first)
--   2 delayed   sorted set, score = due time (ms, server clock); members are job ids left-padded
--               with zeros to 16 digits, so that jobs due in the same ms come out in id order
--   3 inflight  sorted set, score = lease deadline (ms, server clock)
--   4 dead      sorted set, score = time of death (ms)
--   5 done      sorted set, score = completion time (ms); only while completed jobs are retained
--   6 expiry    sorted set, score = expiry time of jobs enqueued with an expiry
--   7 wake      list; one element per pending wake-up for blocked consumers
--   8 seq       string counter; job ids and FIFO order
--   9 paused    string flag; present while the queue is paused
--  10 stats     hash of counters (fields starting with '~' are internal; '~rate' is the window of
--               a rate-limited queue, see reserve.lua)
--  11 woken     list that blocked consumers move wake-ups into; cleared by reserve
--  12 live      sorted set of the workers consuming the queue, score = heartbeat deadline (ms)
--  13 jobs      hash, job id -> the job's record (see FIELDS), and job id ':p' -> its payload: a
--               change of a job's state reads and writes its small record only, never its payload
--  14 ready:plain  list of the plain jobs that are ready, in id order: a job of the default
--               priority enqueued ready with no option that needs its record (no uniqueness,
--               idempotency, group, expiry or batch) is one element here, its id, ':' and a
--               MessagePack array of its headers, max attempts, enqueue time and payload, and has no
--               record until it is reserved (see plain_element)
--  15 unique    hash, uniqueness key -> id of the job holding it
--  16 unique:until  sorted set, uniqueness key -> when it lapses (ms; keys kept after completion)
--  17 batches   sorted set of open batches, score = creation time
--  18 batches:done  sorted set of finished batches whose completion job is not handed off yet
--  19 gates     hash, gate id (see gate_id) -> record of a batch or a group, like a job's
--  20 gates:wait  sorted set, all scores 0: per job waiting at a gate, its gate id and its padded
--               id, so that a lexical range holds one gate's waiting jobs in FIFO order
--  21 batches:jobs  sorted set, all scores 0: per sub-job its batch's gate id and padded id
--  22 batches:until  sorted set, batch id -> when the record of a finished batch lapses (ms)
-- Scripts that take more keys (enqueue: idempotency keys) find them from KEYS[23] on.
-- ARGV[1] is the pub/sub channel on which the ids of finished batches are published, ARGV[2] is
-- empty for a queue of one partition and 'count:index' for a partition of a partitioned queue;
-- the script's own arguments start at ARGV[3].
--
-- Rules every script keeps: it validates what it reads before it writes (Redis keeps the writes a
-- script made before an error), a job record with a missing or non-numeric field is dead-lettered
-- with the reason instead of failing the call, and every loop is bounded by an argument.
local K_READY, K_DELAYED, K_INFLIGHT, K_DEAD = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local K_DONE, K_EXPIRY, K_WAKE, K_SEQ, K_PAUSED, K_STATS = KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10]
local K_WOKEN, K_LIVE, K_JOBS, K_PLAIN = KEYS[11], KEYS[12], KEYS[13], KEYS[14]
local K_UNIQUE, K_UNIQUE_UNTIL, K_BATCHES, K_BATCHES_DONE = KEYS[15], KEYS[16], KEYS[17], KEYS[18]
local K_GATES, K_GATE_WAIT, K_BATCH_JOBS, K_BATCHES_UNTIL = KEYS[19], KEYS[20], KEYS[21], KEYS[22]
local CHANNEL = ARGV[1]
-- a partition's ids and ready order: sequence x ID_STEP + ID_OFFSET, so that a job id names its
-- partition (id modulo the partition count) and ids never repeat across partitions
local ID_STEP, ID_OFFSET = 1, 0
do
  local step, offset = string.match(ARGV[2] or '', '^(%d+):(%d+)$')
  if step then
    ID_STEP, ID_OFFSET = tonumber(step), tonumber(offset)
  end
end
-- consumers of a partitioned queue wait on pub/sub instead of blocking on K_WAKE
local PARTITIONED = ID_STEP > 1
local FIXED_KEYS = 22
-- most jobs one batch or group may have admitted (within its cap) at once
local MAX_GATE_CAP = 1000
local WAKE_CAP = 8
-- sequence numbers stay below 10^12 so that priority bands never overlap
local MAX_SEQ = 999999999999
-- longest uniqueness window kept after completion: 3650 days
local MAX_UNIQUE_TTL = 315360000000
-- in-flight entries one call walks when it looks for the jobs of a worker, and the most bytes of
-- records it reads doing so (a record still in layout 4 holds its payload)
local SLICE, SLICE_BYTES = 100, 32768
-- the most payload bytes one call reads to hand out or list jobs (it always takes one job)
local PAYLOAD_BUDGET = 65536
-- losses of a job that was only reserved ahead dead-letter it at this many times its max attempts
local AHEAD_FACTOR = 3

-- when a job became ready: the latest of its enqueue, its due time and its last return to ready
local function ready_since(enqueued_at, due_at, ready_at)
  return math.max(tonumber(enqueued_at) or 0, tonumber(due_at) or 0, tonumber(ready_at) or 0)
end

-- integers as exact decimal strings (Lua's default number formatting loses digits past 14)
local function int(n)
  return string.format('%d', n)
end

-- Records (of jobs in K_JOBS, of gates in K_GATES): MessagePack arrays of strings, one position
-- per field of the record's kind (false where a field is unset), read like hashes with rget (the
-- values of the named fields, false where unset, as HMGET answers) and written field by field
-- with rset. Each record is decoded once per call and kept in this cache (false: no record); a
-- record that cannot be decoded reads as one without fields. A job's payload is not in its record
-- but in the field '<id>:p' of the same hash (see jpayload): layout 4 kept it in the record at the
-- position now named 'inlinePayload', unset in every record written since; such a record (24
-- positions when written before 'progress' was appended, else 25) reads as it is, and gives its
-- payload its own field when it is next written (see pack_job) or migrated (migrate.lua). A job's
-- 'ofGroup' was appended after 'progress': a record written without it reads as one without it.
local FIELDS = {
  [K_JOBS] = {'state', 'headers', 'priority', 'score', 'attempts', 'maxAttempts', 'token', 'enqueuedAt', 'dueAt',
    'readyAt', 'expireAt', 'finishedAt', 'uniqueKey', 'uniqueTtl', 'group', 'batch', 'ofBatch', 'worker',
    'leaseUntil', 'ahead', 'lost', 'lostAhead', 'error', 'inlinePayload', 'progress', 'ofGroup'},
  [K_GATES] = {'state', 'cap', 'admits', 'ends', 'priority', 'total', 'completed', 'dead', 'cancelled', 'createdAt',
    'finishedAt', 'onComplete', 'context', 'retention', 'maxAttempts', 'headers', 'cancelAt'}
}
-- the position of each field, written out (a test checks it against FIELDS): building it with loops
-- on every call cost more than the rest of this prelude's tables
local POSITION = {
  [K_JOBS] = {state = 1, headers = 2, priority = 3, score = 4, attempts = 5, maxAttempts = 6, token = 7,
    enqueuedAt = 8, dueAt = 9, readyAt = 10, expireAt = 11, finishedAt = 12, uniqueKey = 13, uniqueTtl = 14,
    group = 15, batch = 16, ofBatch = 17, worker = 18, leaseUntil = 19, ahead = 20, lost = 21,
    lostAhead = 22, error = 23, inlinePayload = 24, progress = 25, ofGroup = 26},
  [K_GATES] = {state = 1, cap = 2, admits = 3, ends = 4, priority = 5, total = 6, completed = 7, dead = 8,
    cancelled = 9, createdAt = 10, finishedAt = 11, onComplete = 12, context = 13, retention = 14,
    maxAttempts = 15, headers = 16, cancelAt = 17}
}
local records = {[K_JOBS] = {}, [K_GATES] = {}}
-- positions of a job's fields, for the hot paths that read and write a record directly
local J = POSITION[K_JOBS]

local function blank(h)
  if h == K_JOBS then
    return {false, false, false, false, false, false, false, false, false, false, false, false, false, false,
      false, false, false, false, false, false, false, false, false, false, false, false}
  end
  local r = {}
  for i = 1, #FIELDS[h] do
    r[i] = false
  end
  return r
end

local function record(h, id)
  local r = records[h][id]
  if r == nil then
    local raw = redis.call('HGET', h, id)
    r = false
    if raw then
      local ok, t = pcall(cmsgpack.unpack, raw)
      if ok and type(t) == 'table' and #t == #FIELDS[h] then
        r = t
      elseif ok and type(t) == 'table' and h == K_JOBS and #t >= J.progress - 1 and #t < #FIELDS[h] then
        -- written before the last fields were appended: it has none of them
        for i = #t + 1, #FIELDS[h] do
          t[i] = false
        end
        r = t
      else
        -- damaged: what can be read of it, the rest unset
        r = blank(h)
        for i = 1, #r do
          local v = ok and type(t) == 'table' and t[i]
          if type(v) == 'string' then
            r[i] = v
          end
        end
      end
    end
    records[h][id] = r
  end
  return r
end

-- a number as Redis would store it (HSET writes numbers with 17 significant digits); Lua's own
-- conversion, quicker, is exact below 10^14
local function num(n)
  if n < 100000000000000 and n > -100000000000000 then
    return n .. ''
  end
  return string.format('%.17g', n)
end

local function text(v)
  if type(v) == 'number' then
    return num(v)
  end
  return v
end

local function rget(h, id, names)
  local r = record(h, id)
  local at = POSITION[h]
  local f = {}
  for i, name in ipairs(names) do
    f[i] = r and r[at[name]] or false
  end
  return f
end

-- the field of K_JOBS that holds job id's payload
local function pfield(id)
  return id .. ':p'
end

-- a job record r as written: a record still holding its payload (layout 4) gives it its own field
local function pack_job(id, r)
  if r[J.inlinePayload] then
    redis.call('HSET', K_JOBS, pfield(id), r[J.inlinePayload])
    r[J.inlinePayload] = false
  end
  return cmsgpack.pack(r)
end

-- a gate record r as written: a batch's completion payload ('context', as large as a job's) is kept
-- in the field '<gate id>:c' of K_GATES (see gate_context), so that the record every sub-job's end
-- rewrites stays small; a record of layout 4 that holds it gives it its own field here
local function pack_gate(gid, r)
  local c = POSITION[K_GATES].context
  if r[c] then
    redis.call('HSET', K_GATES, gid .. ':c', r[c])
    r[c] = false
  end
  return cmsgpack.pack(r)
end

-- the completion payload of a batch (gate id gid), false when it has none
local function gate_context(gid)
  local r = record(K_GATES, gid)
  local c = r and r[POSITION[K_GATES].context]
  if c then
    return c
  end
  return redis.call('HGET', K_GATES, gid .. ':c')
end

-- sets fields (name, value pairs) of a record, r being its cached copy
local function write(h, id, r, ...)
  local at = POSITION[h]
  local n = select('#', ...)
  local a = {...}
  for i = 1, n, 2 do
    local position = at[a[i]]
    if not position then
      error('unknown record field ' .. tostring(a[i]))
    end
    r[position] = text(a[i + 1])
  end
  redis.call('HSET', h, id, (h == K_JOBS) and pack_job(id, r) or pack_gate(id, r))
end

local function rset(h, id, ...)
  local r = record(h, id)
  if not r then
    r = blank(h)
    records[h][id] = r
  end
  write(h, id, r, ...)
end

-- writes a job's record r, read with record and changed in place
local function jsave(id, r)
  redis.call('HSET', K_JOBS, id, pack_job(id, r))
end

-- writes a new job: its record r (cached from now on) and its payload
local function jcreate(id, r, payload)
  records[K_JOBS][id] = r
  redis.call('HSET', K_JOBS, id, cmsgpack.pack(r), pfield(id), payload)
end

local function rdel(h, id)
  records[h][id] = false
  redis.call('HDEL', h, id, id .. ((h == K_JOBS) and ':p' or ':c'))
end

local function rexists(h, id)
  return record(h, id) ~= false
end

local function jget(id, names)
  return rget(K_JOBS, id, names)
end

local function jset(id, ...)
  rset(K_JOBS, id, ...)
end

-- deletes a job: its record and its payload
local function jdel(id)
  records[K_JOBS][id] = false
  redis.call('HDEL', K_JOBS, id, pfield(id))
end

-- the payload of a job that has a record (false when it has none), read only here
local function jpayload(id)
  local r = record(K_JOBS, id)
  if r and r[J.inlinePayload] then
    return r[J.inlinePayload]
  end
  return redis.call('HGET', K_JOBS, pfield(id))
end

-- the bytes a job with a record takes: its record and its payload, without reading them
local function jsize(id)
  return redis.call('HSTRLEN', K_JOBS, id) + redis.call('HSTRLEN', K_JOBS, pfield(id))
end

-- The sequence (K_SEQ) numbers job ids and the ready order. Its high-water mark, kept in the
-- stats hash under '~seq', is past every number the sequence handed out: it moves a block of
-- SEQ_BLOCK at a time, so it is written once per block, not per id. A counter found missing (lost,
-- say by eviction or by hand; or a queue's first id) resumes past the mark and past the last plain
-- job's id, so that no id is handed out again, not even one of a job whose record was deleted but
-- whose result is kept. When the mark was lost too, each id this call takes is checked against the
-- job records (seq_unsure).
local SEQ_BLOCK = 4096
local seq_unsure = false

local function seq_id(seq)
  return seq * ID_STEP + ID_OFFSET
end

-- the sequence number of the last plain job (0 when there is none)
local function plain_tail_seq()
  local last = redis.call('LINDEX', K_PLAIN, -1)
  local id = last and tonumber(string.match(last, '^(%d+):'))
  if not id then
    return 0
  end
  return math.floor((id - ID_OFFSET) / ID_STEP)
end

-- where a lost counter resumes: past its mark and the last plain job; writes nothing
local function seq_lost_base()
  local mark = tonumber(redis.call('HGET', K_STATS, '~seq'))
  if not mark and redis.call('EXISTS', K_JOBS) == 1 then
    seq_unsure = true
  end
  return math.max(mark and (mark - 1) or 0, plain_tail_seq())
end

-- keeps the mark past last, the counter's new value, which was from before
local function seq_mark(from, last)
  if math.floor(last / SEQ_BLOCK) ~= math.floor(from / SEQ_BLOCK) then
    redis.call('HSET', K_STATS, '~seq', int((math.floor(last / SEQ_BLOCK) + 1) * SEQ_BLOCK))
  end
end

-- takes n numbers of the sequence and returns the last of them
local function seq_take(n)
  local last = redis.call('INCRBY', K_SEQ, n)
  if last == n then
    -- the counter was missing: it resumes past every number handed out, and its mark is written
    last = seq_lost_base() + n
    redis.call('SET', K_SEQ, int(last))
    seq_mark(-SEQ_BLOCK, last)
  else
    seq_mark(last - n, last)
  end
  return last
end

-- moves the counter up to seq (numbers below it are in use)
local function seq_raise(seq)
  local from = tonumber(redis.call('GET', K_SEQ)) or 0
  if from < seq then
    redis.call('SET', K_SEQ, int(seq))
    seq_mark(from, seq)
  end
end

-- the next number of the sequence, in the id space (orders a job that returns to ready)
local function next_seq()
  return seq_id(seq_take(1))
end

-- the next free id: the counter, or past it when an id is taken by a job record (the counter fell
-- behind, see above), so that no job record is ever overwritten
local function new_id()
  local seq = seq_take(1)
  if redis.call('HEXISTS', K_JOBS, int(seq_id(seq))) == 0 then
    return seq_id(seq)
  end
  local step = 1
  for _ = 1, 62 do
    seq = seq + step
    if redis.call('HEXISTS', K_JOBS, int(seq_id(seq))) == 0 then
      seq_raise(seq)
      return seq_id(seq)
    end
    step = step * 2
  end
  error('no free job id found')
end

-- Takes n ids of the sequence as one range for the jobs of one call, returning the last number
-- (its ids are seq_id(last - n + 1) .. seq_id(last)) and whether the ids must instead be taken one
-- by one with new_id: when the counter and its mark were both lost, or an id at either end of the
-- range is taken by a record (the counter fell behind existing jobs some other way). Without the
-- range, the first number is ignored (new_id moves the counter past it).
local function seq_range(n)
  local last = seq_take(n)
  local per_id = seq_unsure or redis.call('HEXISTS', K_JOBS, int(seq_id(last - n + 1))) == 1
    or (n > 1 and redis.call('HEXISTS', K_JOBS, int(seq_id(last))) == 1)
  return last, per_id
end

-- the counter's value, or where it resumes when it was lost (see above), for the check of a
-- sequence about to be exhausted; a counter behind the last plain job is moved past it so that the
-- plain list stays in id order
local function seq_peek()
  local current = tonumber(redis.call('GET', K_SEQ))
  if not current then
    return seq_lost_base()
  end
  local tail = plain_tail_seq()
  if current < tail then
    seq_raise(tail)
    return tail
  end
  return current
end

-- higher priority first, FIFO within a priority: priority in [-1000, 1000], seq capped below 10^12
local function ready_score(priority, seq)
  return int((1000 - priority) * 1000000000000 + math.min(seq, MAX_SEQ))
end

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

-- the fields of a plain element: headers, max attempts, enqueue time, payload; when it cannot be
-- used: nil, the reason and its payload (the whole element when even that cannot be read)
local function plain_fields(element)
  local at = string.find(element, ':', 1, true)
  local ok, t = pcall(cmsgpack.unpack, string.sub(element, (at or 0) + 1))
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
-- while their bytes (a plain element's length; a record's and its payload's, see jsize) come to at
-- most bytes, the first job always. Plain elements are read as the merge needs them: one, then 4
-- at a time (a read of large elements that the bytes left cannot take is wasted).
-- Returns a list of {id, element} in ready order, element being the plain element or false, and
-- the number of tombstones taken off the list on the way (they count against n: a caller that
-- got fewer jobs than asked for while tombstones were dropped may call again).
local function pop_ready(n, bytes)
  local z = redis.call('ZRANGE', K_READY, 0, n - 1, 'WITHSCORES')
  local out, used, dropped = {}, 0, 0
  local zi, taken = 1, 0
  local l, li, list_end = {}, 1, false
  while #out + dropped < n do
    if li > #l and not list_end then
      local want = math.min((taken == 0) and 1 or 4, n - #out - dropped)
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
      local size = take_plain and #e or jsize(z[zi])
      if #out > 0 and used + size > bytes then
        break
      end
      used = used + size
      if take_plain then
        out[#out + 1] = {plain_id_text(e), e}
        li, taken = li + 1, taken + 1
      else
        out[#out + 1] = {z[zi], false}
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
  return out, dropped
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

-- A job as inspection shows it (inspect.lua 'job', jobs.lua 'list'): the names and values of the
-- fields of its record that are set, payload included, as a flat list; for a plain job, those of
-- the record it gets once reserved (plain_record). element is the job's plain element when the
-- caller read it, else false: the job's record is read, or its element looked for when it has
-- none. An element that cannot be read (see plain_fields) shows with no state, the reason under
-- 'error' and what could be read of it under 'payload', so that it is seen before a reserve
-- dead-letters it. Empty when there is no such job. Also returns the payload's size.
local function job_view(id, element)
  local r = not element and record(K_JOBS, id)
  local payload = r and jpayload(id)
  if not r and not element and string.match(id, '^%d+$') then
    element = plain_find(tonumber(id))
  end
  if element then
    local t, reason, kept = plain_fields(element)
    if t then
      r, payload = plain_record(id, t), t[4]
    else
      r, payload = blank(K_JOBS), kept
      r[J.priority], r[J.attempts], r[J.error] = '0', '0', reason
      if plain_id(element) then
        r[J.score] = int(PLAIN_BASE + plain_id(element))
      end
    end
  end
  local out = {}
  if r then
    for i, name in ipairs(FIELDS[K_JOBS]) do
      if i == J.inlinePayload then
        if payload then
          out[#out + 1] = 'payload'
          out[#out + 1] = payload
        end
      elseif r[i] then
        out[#out + 1] = name
        out[#out + 1] = r[i]
      end
    end
  end
  return out, payload and #payload or 0
end

-- whether a text is a job id as scripts write them: a decimal number of at most 18 digits without
-- a leading zero; any other spelling ('05', ' 5') would reach the padded entries of another job
local function is_job_id(id)
  return type(id) == 'string' and #id <= 18 and (id == '0' or string.match(id, '^[1-9]%d*$') ~= nil)
end

-- member of the delayed set for a job id, and back
local function dmember(id)
  if #id < 16 and string.match(id, '^%d+$') then
    return string.rep('0', 16 - #id) .. id
  end
  return id
end

local function dmember_id(member)
  return string.match(member, '^0*(%d+)$') or member
end

-- the reason a job hash cannot be used, or nil: f holds the values of the fields named in names;
-- the fields at the positions in required must be numbers
local function corrupt(f, names, required)
  for _, i in ipairs(required) do
    if not tonumber(f[i]) then
      local found = f[i] and ("'" .. string.sub(f[i], 1, 40) .. "'") or 'missing'
      return 'corrupt job: field ' .. names[i] .. ' is ' .. found
    end
  end
  return nil
end

-- whether a job is gone, given the values f read from its record with the state field first; a
-- record without a state is damaged, not gone
local function gone(id, f)
  return not f[1] and not rexists(K_JOBS, id)
end

-- a job's score in the dead set: its time of death, but always after the time it last returned to
-- ready (its readyAt, when that is not more than an hour ahead): a job that an operator's retry
-- put back and that died again within the same millisecond is stamped a millisecond later, after
-- the bound of a retry-all call under way, so that the call does not retry it twice
local function dead_score(ready_at, now)
  local since = tonumber(ready_at)
  if since and since >= now and since < now + 3600000 then
    return since + 1
  end
  return now
end

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

-- Batches and groups are gates: a record with the cap ('cap'), the number of jobs it ever admitted
-- ('admits') and of admitted jobs that ended ('ends'), and its range of jobs waiting for a place
-- in K_GATE_WAIT. An admitted job is an ordinary job of the queue (ready, leased, or waiting for a
-- retry) whose 'batch' or 'group' field names its gate; a job waiting at its gate has state
-- 'waiting' and sits in none of the queue's sets. A job leaves its gate only when it ends
-- (completed, dead or cancelled: its field is cleared then, so it ends once), and only then is the
-- next waiting job admitted, at the end of its priority level: so at no time do more jobs of one
-- gate hold a lease than its cap (admits - ends <= cap), and gates of equal priority take turns.
local GATE = {'cap', 'admits', 'ends', 'state', 'total', 'completed', 'dead', 'cancelled', 'priority'}

-- a gate's id: its kind ('b' batch, 'g' group), the length of its name, ':' and the name; no
-- gate's id starts with another's, so one lexical range holds exactly one gate's entries
local function gate_id(kind, name)
  return kind .. #name .. ':' .. name
end

local function gate_range(gid)
  return '[' .. gid, '[' .. gid .. '\255'
end

local function wait_push(gid, id)
  redis.call('ZADD', K_GATE_WAIT, 0, gid .. dmember(id))
end

-- the id of the first job waiting at a gate, taken out of its range; nil when none waits
local function wait_pop(gid)
  local lo, hi = gate_range(gid)
  local first = redis.call('ZRANGEBYLEX', K_GATE_WAIT, lo, hi, 'LIMIT', 0, 1)[1]
  if not first then
    return nil
  end
  redis.call('ZREM', K_GATE_WAIT, first)
  return dmember_id(string.sub(first, #gid + 1))
end

local function wait_count(gid)
  local lo, hi = gate_range(gid)
  return redis.call('ZLEXCOUNT', K_GATE_WAIT, lo, hi)
end

-- a batch whose every sub-job ended, once sealed (or cancelled), finishes: exactly once, since
-- its state leaves 'sealed' here. g holds the GATE values of its record, counts included. With a
-- completion queue it goes to the hand-off set, to be enqueued there by the next client that
-- looks (see batch.lua 'pending'); its record lapses after its retention once handed off, at
-- once when there is nothing to hand off (see trim). A blocked consumer is woken so that it
-- looks, and subscribers of the channel ARGV[1] learn the batch id.
local function finish_batch(bid, g, now)
  if g[4] ~= 'sealed' and g[4] ~= 'cancelling' then
    return false
  end
  local ended = (tonumber(g[6]) or 0) + (tonumber(g[7]) or 0) + (tonumber(g[8]) or 0)
  if ended < (tonumber(g[5]) or 0) then
    return false
  end
  local gid = gate_id('b', bid)
  local final = (g[4] == 'sealed') and 'completed' or 'cancelled'
  rset(K_GATES, gid, 'state', final, 'finishedAt', now)
  -- nothing waits any more (a cancel took out each waiting sub-job it deleted)
  redis.call('ZREMRANGEBYLEX', K_GATE_WAIT, gate_range(gid))
  redis.call('ZREM', K_BATCHES, bid)
  local b = rget(K_GATES, gid, {'onComplete', 'retention'})
  if b[1] and b[1] ~= '' then
    redis.call('ZADD', K_BATCHES_DONE, now, bid)
    wake(1)
  else
    redis.call('ZADD', K_BATCHES_UNTIL, int(now + math.max(1, tonumber(b[2]) or 1)), bid)
  end
  redis.call('HINCRBY', K_STATS, 'batches' .. (final == 'completed' and 'Completed' or 'Cancelled'), 1)
  redis.call('PUBLISH', CHANNEL, bid)
  return true
end

-- admits waiting jobs of gate gk (its gate id; kind 'batch' or 'group', also the job field that
-- names the gate; name is the batch id or group key) while fewer than its cap are admitted; g
-- holds the GATE values of its record. A batch's sub-jobs take the batch's priority; a group's
-- job keeps its own and is read first: one whose record is damaged or gone ends as dead (with the
-- reason, when the record exists), at most 100 such entries per call. Returns how many were
-- admitted.
local function admit(gk, kind, name, g, now)
  local room = (tonumber(g[1]) or 0) - ((tonumber(g[2]) or 0) - (tonumber(g[3]) or 0))
  local n, budget = 0, 100
  while n < room and budget > 0 do
    local id = wait_pop(gk)
    if not id then
      break
    end
    local priority, expire_at, state = tonumber(g[9]), 0, 'waiting'
    if kind == 'group' then
      redis.call('HINCRBY', K_STATS, 'groupWaiting', -1)
      local f = jget(id, {'state', 'priority', 'expireAt'})
      state, priority, expire_at = f[1], tonumber(f[2]), tonumber(f[3]) or 0
      if state and state ~= 'waiting' then
        -- admitted or ended some other way already: not this gate's to count
        budget = budget - 1
        state = nil
      elseif not state or not priority then
        if rexists(K_JOBS, id) then
          local reason = (not state) and 'corrupt job: field state is missing'
            or ('corrupt job: field priority is ' .. (f[2] and ("'" .. string.sub(f[2], 1, 40) .. "'") or 'missing'))
          jset(id, 'state', 'dead', 'error', reason, 'finishedAt', now, 'group', '')
          redis.call('ZADD', K_DEAD, dead_score(jget(id, {'readyAt'})[1], now), id)
          redis.call('HINCRBY', K_STATS, 'dead', 1)
        end
        budget = budget - 1
        state = nil
      end
    end
    if state then
      -- a batch's sub-job is not read first: a damaged or deleted one is caught by the reserve
      -- that pops it (a job record without its numeric fields is dead-lettered there)
      local score = ready_score(priority, next_seq())
      jset(id, 'state', 'ready', 'score', score, 'readyAt', now, kind, name)
      redis.call('ZADD', K_READY, score, id)
      if expire_at > 0 then
        redis.call('ZADD', K_EXPIRY, expire_at, id)
      end
      n = n + 1
    end
  end
  if n > 0 then
    if kind == 'group' then
      redis.call('HINCRBY', K_STATS, 'groupActive', n)
    end
    wake(n)
  end
  return n
end

-- a job of a batch or a group ended with outcome 'completed', 'dead' or 'cancelled': its place is
-- freed, the next waiting job admitted, and a batch whose last sub-job this was finishes. The
-- job's 'batch' or 'group' field is cleared (the batch id stays in 'ofBatch', the group key in
-- 'ofGroup'), so an end is counted once even if the job runs again later (a dead sub-job retried
-- by an operator is a plain job; a dead job of a group retried by an operator joins its group
-- again, see dead.lua); pass deleting when the caller deletes the job next. Call it while the
-- record exists.
local function gate_end(id, batch, group, outcome, now, deleting)
  local kind, gk, name
  if batch and batch ~= '' then
    kind, gk, name = 'batch', gate_id('b', batch), batch
    if not deleting then
      jset(id, 'batch', '', 'ofBatch', batch)
    end
  elseif group and group ~= '' then
    kind, gk, name = 'group', gate_id('g', group), group
    if not deleting then
      jset(id, 'group', '', 'ofGroup', group)
    end
  else
    return
  end
  local g = rget(K_GATES, gk, GATE)
  if not g[1] then
    return
  end
  g[3] = (tonumber(g[3]) or 0) + 1
  if kind == 'group' then
    redis.call('HINCRBY', K_STATS, 'groupActive', -1)
  end
  local n = 0
  if g[4] ~= 'cancelling' and g[4] ~= 'cancelled' then
    n = admit(gk, kind, name, g, now)
  end
  g[2] = (tonumber(g[2]) or 0) + n
  if kind == 'batch' then
    local at = (outcome == 'completed' and 6) or (outcome == 'dead' and 7) or 8
    g[at] = (tonumber(g[at]) or 0) + 1
    rset(K_GATES, gk, 'admits', g[2], 'ends', g[3], outcome, g[at])
    finish_batch(batch, g, now)
  elseif g[2] <= g[3] and wait_count(gk) == 0 then
    rdel(K_GATES, gk)
  else
    rset(K_GATES, gk, 'admits', g[2], 'ends', g[3])
  end
end

-- removes a job of a cancelled batch that holds no lease (ready, or waiting for a retry)
local function cancel_job(id, batch, now)
  redis.call('ZREM', K_READY, id)
  redis.call('ZREM', K_DELAYED, dmember(id))
  delayed_head = false
  redis.call('ZREM', K_EXPIRY, id)
  gate_end(id, batch, nil, 'cancelled', now, true)
  jdel(id)
  redis.call('HINCRBY', K_STATS, 'cancelled', 1)
end

-- whether a job belongs to a batch being cancelled; states caches the state of each batch asked
-- for within one call
local function batch_cancelling(batch, states)
  if not batch or batch == '' then
    return false
  end
  local state = states and states[batch]
  if not state then
    state = rget(K_GATES, gate_id('b', batch), {'state'})[1] or ''
    if states then
      states[batch] = state
    end
  end
  return state == 'cancelling'
end

local function to_dead(id, reason, now)
  jset(id, 'state', 'dead', 'error', reason, 'finishedAt', now, 'worker', '')
  redis.call('ZADD', K_DEAD, dead_score(jget(id, {'readyAt'})[1], now), id)
  local u = jget(id, {'uniqueKey', 'uniqueTtl', 'batch', 'group'})
  release_unique(id, u[1], u[2], false, now)
  redis.call('HINCRBY', K_STATS, 'dead', 1)
  gate_end(id, u[3], u[4], 'dead', now, false)
end

-- takes in-flight jobs from a holder that gave no outcome (its lease ran out, it stopped
-- heartbeating, it restarted, it was still running at shutdown): each such loss counts in the
-- job's 'lost' field, apart from its attempts; a job lost as often as its max attempts is
-- dead-lettered (so a job that kills its worker ends dead), the others go back to their place in
-- ready. A job its holder had only reserved ahead (waiting for a free thread, field 'ahead') was
-- most likely not running: such losses count in 'lostAhead' and dead-letter the job only at
-- AHEAD_FACTOR times its max attempts. Returns how many went back to ready.
local function take_back(ids, now, reason)
  local back = 0
  for _, id in ipairs(ids) do
    redis.call('ZREM', K_INFLIGHT, id)
    local names = {'state', 'maxAttempts', 'score', 'lost', 'ahead', 'lostAhead'}
    local f = jget(id, names)
    if not gone(id, f) then
      local bad = (not f[1] and 'corrupt job: field state is missing') or corrupt(f, names, {2, 3})
      local field, count, limit = 'lost', (tonumber(f[4]) or 0) + 1, tonumber(f[2])
      if f[5] == '1' then
        field, count, limit = 'lostAhead', (tonumber(f[6]) or 0) + 1, AHEAD_FACTOR * (tonumber(f[2]) or 0)
      end
      if bad then
        to_dead(id, bad, now)
      elseif count >= limit then
        jset(id, field, count)
        local how = (field == 'lost') and ' times without an outcome (max attempts '
          or ' times while reserved ahead without an outcome (limit '
        to_dead(id, reason .. ': held ' .. count .. how .. limit .. ')', now)
      else
        jset(id, 'state', 'ready', 'readyAt', now, 'worker', '', 'error', reason, field, count)
        redis.call('ZADD', K_READY, f[3], id)
        back = back + 1
      end
    end
  end
  if #ids > 0 then
    redis.call('HINCRBY', K_STATS, 'reaped', #ids)
  end
  if back > 0 then
    wake(back)
  end
  return back
end

-- Outages. Leases (K_INFLIGHT) and heartbeats (K_LIVE) are deadlines on the Redis clock, which
-- runs on while no client can reach Redis (a restart loading its data, a failover): a live worker
-- could not extend anything meanwhile. The scripts that run often (reserve, reap, extend) keep the
-- last server time they ran at in the stats field '~seen' (written at most every SEEN_EVERY ms),
-- and the run id of the Redis server they ran on in '~run' (INFO server; read only when '~run' is
-- missing or a gap is found). One that finds '~seen' more than OUTAGE_MIN ms old while the run id
-- changed (Redis restarted, or another server took over: a failover) takes the gap for an outage
-- of s = min(gap, OUTAGE_CAP) ms that ended now (at 'to'), and records it in
-- '~outTo', '~outFor' and '~outTop', provided some lease in flight ran out in it or runs out
-- after it ('top' is one past the latest such deadline, at most to + s). Until the window lapses,
-- a deadline d from to - s to top counts as max(d, to) + s: a lease that ran out while Redis was
-- away lasts until s after its return, giving its holder as long as the outage to reconnect and
-- extend it; a lease due later keeps s more. Deadlines before to - s are due as usual (an outage
-- longer than the cap keeps only the last OUTAGE_CAP ms of them), so a job taken back late
-- because of an outage is late by at most s. A gap on the same server (a queue nobody called for
-- a while, a pause of the process) shifts nothing. Nothing is rewritten: the rule is a choice of
-- score ranges (see lapsed), the same work per call.
local OUTAGE_MIN, OUTAGE_CAP, SEEN_EVERY = 2000, 60000, 500
local outage = false

-- reads the outage window (recording one that ended now) and marks this call as seen; call it
-- before reclaim and before any other script's check of a deadline
local function watch_outage(now)
  local f = redis.call('HMGET', K_STATS, '~seen', '~outTo', '~outFor', '~outTop', '~run')
  local seen, to, s, top = tonumber(f[1]), tonumber(f[2]), tonumber(f[3]), tonumber(f[4])
  outage = false
  if to and s and top and now < math.max(to, top) + s then
    outage = {to = to, s = s, top = top}
  elseif f[2] or f[3] or f[4] then
    redis.call('HDEL', K_STATS, '~outTo', '~outFor', '~outTop')
  end
  local changed = seen and now - seen > OUTAGE_MIN
  if changed or not f[5] then
    local run = string.match(redis.call('INFO', 'server'), 'run_id:(%x+)') or ''
    if run ~= f[5] then
      redis.call('HSET', K_STATS, '~run', run)
    end
    -- a gap on the server that wrote '~run' is no outage (when it was missing, nothing tells)
    changed = changed and f[5] and run ~= f[5]
  end
  if changed then
    local gap = math.min(now - seen, OUTAGE_CAP)
    local last = redis.call('ZRANGE', K_INFLIGHT, -1, -1, 'WITHSCORES')
    local latest = tonumber(last[2])
    if latest and latest >= now - gap then
      outage = {to = now, s = gap, top = math.min(now + gap, latest + 1)}
      redis.call('HSET', K_STATS, '~outTo', int(now), '~outFor', int(gap), '~outTop', int(outage.top))
    end
  end
  if not seen or now - seen >= SEEN_EVERY or now < seen then
    redis.call('HSET', K_STATS, '~seen', int(now))
  end
end

-- members of K_INFLIGHT (or of K_LIVE, with live set) whose deadline passed by now, at most
-- limit, with their scores when withscores; during an outage window (see watch_outage) a
-- deadline d in [to - s, top) passes at max(d, to) + s instead, top being to + s for heartbeats
local function lapsed(key, now, limit, live, withscores)
  local ranges = {{'-inf', now}}
  if outage then
    local to, s = outage.to, outage.s
    local top = live and (to + s) or outage.top
    local hi = (now < to + s) and (to - s - 1) or math.min(now - s, top - 1)
    ranges = {{'-inf', hi}}
    if top <= now then
      ranges[2] = {top, now}
    end
  end
  local out, step = {}, withscores and 2 or 1
  for _, range in ipairs(ranges) do
    local room = limit - #out / step
    if room <= 0 then
      break
    end
    local got = withscores
      and redis.call('ZRANGEBYSCORE', key, range[1], range[2], 'WITHSCORES', 'LIMIT', 0, room)
      or redis.call('ZRANGEBYSCORE', key, range[1], range[2], 'LIMIT', 0, room)
    for _, v in ipairs(got) do
      out[#out + 1] = v
    end
  end
  return out
end

-- expired leases (after watch_outage)
local function reclaim(now, limit)
  if limit <= 0 then
    return 0
  end
  local ids = lapsed(K_INFLIGHT, now, limit, false, false)
  take_back(ids, now, 'lease expired')
  return #ids
end

-- walks at most SLICE in-flight entries from cursor, and no more once it read SLICE_BYTES of
-- records, and returns the ids whose lease holder matches, and the cursor of the next call (0 once
-- the walk reached the end). A cursor is 0 to start, else 1 + the index in the in-flight set to go
-- on from; the caller takes the returned jobs out of the in-flight set, which the next cursor
-- accounts for (a slice whose every job matched goes on from where it started).
local function walk_inflight(cursor, matches)
  local from = math.max(0, cursor - 1)
  local ids = redis.call('ZRANGE', K_INFLIGHT, from, from + SLICE - 1)
  local found, walked, bytes = {}, 0, 0
  for _, id in ipairs(ids) do
    if walked > 0 and bytes >= SLICE_BYTES then
      break
    end
    bytes = bytes + redis.call('HSTRLEN', K_JOBS, id)
    walked = walked + 1
    local holder = jget(id, {'worker'})[1]
    if holder and matches(holder) then
      found[#found + 1] = id
    end
  end
  if walked == #ids and #ids < SLICE then
    return found, 0
  end
  return found, from + walked - #found + 1
end

-- whether a job that was never handed to a handler is past its expiry
local function is_expired(expire_at, attempts, lost, now)
  local e = tonumber(expire_at) or 0
  return e > 0 and e <= now and (tonumber(attempts) or 0) == 0 and (tonumber(lost) or 0) == 0
end

local function expire(id, now)
  to_dead(id, 'expired', now)
  redis.call('ZREM', K_EXPIRY, id)
  redis.call('HINCRBY', K_STATS, 'expired', 1)
end

-- due delayed jobs move to the end of their priority level in ready, in due order and, for one
-- due time, in id order; returns promoted, expired
local function promote(now, limit)
  if limit <= 0 then
    return 0, 0
  end
  -- most calls find nothing due: one read of the head answers that, and next_due too
  local head = redis.call('ZRANGE', K_DELAYED, 0, 0, 'WITHSCORES')
  if #head == 0 or tonumber(head[2]) > now then
    delayed_head = head
    return 0, 0
  end
  delayed_head = false
  local members = redis.call('ZRANGEBYSCORE', K_DELAYED, '-inf', now, 'LIMIT', 0, limit)
  local promoted, expired = 0, 0
  for _, member in ipairs(members) do
    redis.call('ZREM', K_DELAYED, member)
    local id = dmember_id(member)
    local names = {'state', 'priority', 'expireAt', 'attempts', 'lost'}
    local f = jget(id, names)
    if not gone(id, f) then
      local bad = (not f[1] and 'corrupt job: field state is missing') or corrupt(f, names, {2})
      if bad then
        to_dead(id, bad, now)
      elseif is_expired(f[3], f[4], f[5], now) then
        expire(id, now)
        expired = expired + 1
      else
        local score = ready_score(tonumber(f[2]), next_seq())
        jset(id, 'state', 'ready', 'score', score)
        redis.call('ZADD', K_READY, score, id)
        promoted = promoted + 1
      end
    end
  end
  if promoted > 0 then
    wake(promoted)
  end
  return promoted, expired
end

-- completions are also counted in 10-second buckets, kept in seven slots of the stats hash
-- (fields ~b<slot> = bucket number, ~n<slot> = count), for the throughput of the last minute
local BUCKET_MS, SLOTS = 10000, 7

local function count_completed(n, now)
  redis.call('HINCRBY', K_STATS, 'completed', n)
  local bucket = math.floor(now / BUCKET_MS)
  local slot = bucket % SLOTS
  if tonumber(redis.call('HGET', K_STATS, '~b' .. slot)) == bucket then
    redis.call('HINCRBY', K_STATS, '~n' .. slot, n)
  else
    redis.call('HSET', K_STATS, '~b' .. slot, bucket, '~n' .. slot, n)
  end
end

-- completions in the current bucket and the five before it, and the span they cover in ms
local function completed_recently(now)
  local bucket = math.floor(now / BUCKET_MS)
  local fields = {}
  for slot = 0, SLOTS - 1 do
    fields[#fields + 1] = '~b' .. slot
    fields[#fields + 1] = '~n' .. slot
  end
  local f = redis.call('HMGET', K_STATS, unpack(fields))
  local sum = 0
  for i = 1, #f, 2 do
    local b = tonumber(f[i])
    if b and b > bucket - 6 and b <= bucket then
      sum = sum + (tonumber(f[i + 1]) or 0)
    end
  end
  return sum, 5 * BUCKET_MS + (now % BUCKET_MS)
end

-- The fencing check of every acknowledgement: f holds the job's 'state' and 'token' fields, in
-- that order, as HMGET returned them. Returns -1 when the job does not exist, 0 when it is not
-- held under token (taken back, or reserved by someone else since), nil when the caller holds
-- its lease.
local function not_held(f, token)
  if not f[1] then
    return -1
  end
  if f[1] ~= 'active' or f[2] ~= token then
    return 0
  end
  return nil
end

-- acknowledges one job held under token. Also accepted: a job taken back from that holder (its
-- lease ran out) and not reserved by anyone since, which still carries the same token: it is
-- done and nobody else holds it; that includes a job the take-back dead-lettered (it did run),
-- unless a batch or a group counted that death ('ofBatch' or 'ofGroup' set): an end counted
-- there stays as counted, and the late completion is refused as stale. Returns 1 done, 2
-- already completed under that token, 0 stale token (someone reserved it since, or its end was
-- counted otherwise), -1 no such job.
local function complete_job(id, token, retention, now)
  local r = record(K_JOBS, id)
  local state = r and r[J.state]
  if not state then
    return -1
  end
  if r[J.token] ~= token then
    return 0
  end
  if state == 'completed' then
    return 2
  elseif state == 'active' then
    redis.call('ZREM', K_INFLIGHT, id)
  elseif state == 'ready' then
    -- taken back but not handed out again
    redis.call('ZREM', K_READY, id)
    redis.call('ZREM', K_EXPIRY, id)
  elseif state == 'dead' and (r[J.ofBatch] or '') == '' and (r[J.ofGroup] or '') == '' then
    -- dead-lettered by the take-back; no batch or group counted it
    redis.call('ZREM', K_DEAD, id)
    redis.call('ZREM', K_EXPIRY, id)
  else
    return 0
  end
  release_unique(id, r[J.uniqueKey], r[J.uniqueTtl], true, now)
  gate_end(id, r[J.batch], r[J.group], 'completed', now, retention <= 0)
  if retention > 0 then
    r[J.state], r[J.finishedAt], r[J.worker], r[J.progress] = 'completed', num(now), '', false
    r[J.attempts] = num((tonumber(r[J.attempts]) or 0) + 1)
    jsave(id, r)
    redis.call('ZADD', K_DONE, now, id)
  else
    jdel(id)
  end
  return 1
end

-- a job delayed until due: when it is now the earliest, wake a waiting consumer so that it
-- learns the new due time (a consumer blocks until the earliest due time it knows)
local function delay_job(id, due)
  local member = dmember(id)
  redis.call('ZADD', K_DELAYED, due, member)
  delayed_head = false
  local first = redis.call('ZRANGE', K_DELAYED, 0, 0)
  if first[1] == member then
    wake(1)
  end
end

local function next_due()
  local first = delayed_head or redis.call('ZRANGE', K_DELAYED, 0, 0, 'WITHSCORES')
  if #first == 0 then
    return -1
  end
  return tonumber(first[2])
end
