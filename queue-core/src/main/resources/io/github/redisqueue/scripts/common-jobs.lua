-- common-jobs.lua: reading and checking one job, a module of the queue scripts' prelude (see
-- common-keys.lua).
-- Defines: job_view (a job as inspection shows it), is_job_id, dmember and dmember_id (a job id
-- as a member of the delayed set and of the gates' ranges, and back), corrupt and gone (checks
-- of the fields read from a job record), dead_score.
-- Relies on: K_JOBS (common-keys); int, FIELDS, J, blank, record, rexists and jpayload
-- (common-records); PLAIN_BASE, plain_id, plain_fields, plain_record and plain_find
-- (common-plain).
-- Invariants: nothing here writes to Redis; a damaged record or plain element is reported (the
-- reason from corrupt, or under 'error' in job_view), never raised as an error of the call.

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
