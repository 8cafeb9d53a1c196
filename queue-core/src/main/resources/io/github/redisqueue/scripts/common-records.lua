-- common-records.lua: the record codec, a module of the queue scripts' prelude (see
-- common-keys.lua).
-- Defines: ready_since; int and num (numbers as exact decimal strings, as Redis stores them) and
-- text; FIELDS and POSITION (the fields of a job record and of a gate record, and their
-- positions), J (the positions of a job's fields) and records (the cache of decoded records);
-- blank, record, rget, write, rset, rdel, rexists (records of either kind); pfield, afield, mark_flag,
-- MARKED_RUN and marked_held (the marks of many pairs at once), reservation_mark, pack_job,
-- jsave, jcreate, jget, jset, jdel, jpayload, apart_weight, jsize (job records and payloads); pack_gate and
-- gate_context (gate records and a batch's completion payload).
-- Relies on: K_JOBS, K_INFLIGHT and K_GATES (common-keys).
-- Invariants: a record is decoded at most once per call and every write goes through the cache,
-- so a later read in the same call sees it; a job's payload lives in the field '<id>:p' of K_JOBS
-- and a batch's completion payload in '<gate id>:c' of K_GATES, outside the record (a layout 4
-- record that still holds one gives it its own field when next written); fields are only ever
-- appended to FIELDS, so an older record reads with the newer fields unset; POSITION is FIELDS
-- written out (ScriptPreludeIntegrationTests checks both, and README's table of a job record's
-- fields, against each other).

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
local JOB_FIELDS = {'state', 'headers', 'priority', 'score', 'attempts', 'maxAttempts', 'token', 'enqueuedAt',
  'dueAt', 'readyAt', 'expireAt', 'finishedAt', 'uniqueKey', 'uniqueTtl', 'group', 'batch', 'ofBatch', 'worker',
  'leaseUntil', 'ahead', 'lost', 'lostAhead', 'error', 'inlinePayload', 'progress', 'ofGroup'}
local GATE_FIELDS = {'state', 'cap', 'admits', 'ends', 'priority', 'total', 'completed', 'dead', 'cancelled',
  'createdAt', 'finishedAt', 'onComplete', 'context', 'retention', 'maxAttempts', 'headers', 'cancelAt'}
-- the position of each field, written out (a test checks it against FIELDS): building it with loops
-- on every call cost more than the rest of this prelude's tables. J: a job's, for the hot paths
-- that read and write a record directly. These tables are never written (the Functions library
-- makes them once).
local J = {state = 1, headers = 2, priority = 3, score = 4, attempts = 5, maxAttempts = 6, token = 7,
  enqueuedAt = 8, dueAt = 9, readyAt = 10, expireAt = 11, finishedAt = 12, uniqueKey = 13, uniqueTtl = 14,
  group = 15, batch = 16, ofBatch = 17, worker = 18, leaseUntil = 19, ahead = 20, lost = 21,
  lostAhead = 22, error = 23, inlinePayload = 24, progress = 25, ofGroup = 26}
local GATE_POSITION = {state = 1, cap = 2, admits = 3, ends = 4, priority = 5, total = 6, completed = 7,
  dead = 8, cancelled = 9, createdAt = 10, finishedAt = 11, onComplete = 12, context = 13, retention = 14,
  maxAttempts = 15, headers = 16, cancelAt = 17}
-- the fields and positions of a record by the hash that holds it
local FIELDS = {[K_JOBS] = JOB_FIELDS, [K_GATES] = GATE_FIELDS}
local POSITION = {[K_JOBS] = J, [K_GATES] = GATE_POSITION}
local records = {[K_JOBS] = {}, [K_GATES] = {}}

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

-- The field of K_JOBS that marks job id's latest reservation: a flag, then the lease token. Flag
-- 'a': reserved ahead (to wait for a free thread), its start not recorded yet; 's': started (at
-- once, or its start recorded). Upper case ('A', 'S') when the job has no uniqueness key, batch or
-- group, so that its completion (without a retention) has nothing to do with its record but
-- delete it. Written with the record at every hand-out (reserve.lua is the only one), so a mark
-- that holds a token speaks of the latest reservation, and a job in flight whose mark holds token T
-- is held under T: a start rewrites the mark alone (complete.lua), a completion of a job marked
-- 'S' deletes it without decoding its record (complete_job), a take-back reads it to count the
-- loss (take_back). Records of an earlier release may say 'ahead' = '1' themselves, read as well.
local function afield(id)
  return id .. ':a'
end

-- the flag of job id's mark when the mark holds token ('a', 'A', 's' or 'S'), else nil
local function mark_flag(id, token)
  local mark = token and redis.call('HGET', K_JOBS, afield(id))
  if mark and string.sub(mark, 2) == token then
    return string.sub(mark, 1, 1)
  end
  return nil
end

-- The pairs of id and token in ARGV from index first to last whose job's mark holds the pair's
-- token under one of flags (a set such as {S = true}) and which are in flight, read for many at
-- once: one HMGET of the marks and one ZMSCORE per run of at most MARKED_RUN pairs. Calls held
-- once per run that found some, with a list of {ARGV index, flag}, before the next run is read.
-- A pair that repeats an id of an earlier pair, or has no token, is not looked at. Returns the set
-- of the ARGV indexes it looked at.
local MARKED_RUN = 500

local function marked_held(first, last, flags, held)
  local looked, seen = {}, {}
  for from = first, last, 2 * MARKED_RUN do
    local fields, at = {}, {}
    for i = from, math.min(last, from + 2 * MARKED_RUN - 1), 2 do
      local id = ARGV[i]
      if ARGV[i + 1] and not seen[id] then
        seen[id], looked[i] = true, true
        fields[#fields + 1] = afield(id)
        at[#at + 1] = i
      end
    end
    -- a run whose pairs all repeat earlier ids reads nothing (HMGET wants a field)
    local marks = (#fields > 0) and redis.call('HMGET', K_JOBS, unpack(fields)) or {}
    local ids, found = {}, {}
    for k, i in ipairs(at) do
      local mark = marks[k]
      local flag = mark and string.sub(mark, 2) == ARGV[i + 1] and string.sub(mark, 1, 1)
      if flag and flags[flag] then
        ids[#ids + 1] = ARGV[i]
        found[#found + 1] = {i, flag}
      end
    end
    if #ids > 0 then
      local scores = redis.call('ZMSCORE', K_INFLIGHT, unpack(ids))
      local in_flight = {}
      for k, pair in ipairs(found) do
        if scores[k] then
          in_flight[#in_flight + 1] = pair
        end
      end
      if #in_flight > 0 then
        held(in_flight)
      end
    end
  end
  return looked
end

-- the mark of job record r reserved under token, ahead or started
local function reservation_mark(r, token, ahead)
  local flag = ahead and 'a' or 's'
  if (r[J.uniqueKey] or '') == '' and (r[J.batch] or '') == '' and (r[J.group] or '') == '' then
    flag = string.upper(flag)
  end
  return flag .. token
end

-- deletes a job: its record, its payload and its reservation mark
local function jdel(id)
  records[K_JOBS][id] = false
  redis.call('HDEL', K_JOBS, id, pfield(id), afield(id))
end

-- the payload of a job that has a record (false when it has none), read only here
local function jpayload(id)
  local r = record(K_JOBS, id)
  if r and r[J.inlinePayload] then
    return r[J.inlinePayload]
  end
  return redis.call('HGET', K_JOBS, pfield(id))
end

-- A payload of more than 4 KB is kept out of the scripts' Lua strings where it can be (each 10 KB
-- string a call makes costs about as much as the rest of a job's handling): such a job is enqueued
-- with a record, its payload in its own field, and the reserve hands it out by its length, the
-- caller reading the field itself. apart_weight gives what such a payload of size bytes counts for
-- against PAYLOAD_BUDGET, a sixteenth; nil for a payload short enough to be read.
local function apart_weight(size)
  if size > 4096 then
    return math.ceil(size / 16)
  end
  return nil
end

-- the bytes a job with a record counts for (its record and its payload's weight) and its payload's
-- length, without reading them
local function jsize(id)
  local size = redis.call('HSTRLEN', K_JOBS, pfield(id))
  return redis.call('HSTRLEN', K_JOBS, id) + (apart_weight(size) or size), size
end
