-- An operator's view of and actions on single jobs of one queue. ARGV[3] = operation, then:
--   'list'    state ('ready', 'delayed', 'active' or 'dead'), order ('asc' or 'desc'), offset,
--             count, '' or 'scores', and optionally how many plain elements come before offset
--             (as the previous call of a run returned it: the call then skips plain_split):
--             the jobs at positions offset to offset + count - 1
--             of that state's index, by ascending or descending score: ready in the order they are
--             handed out (the ready set and the plain list merged by score, as pop_ready takes
--             them; a plain job's score is PLAIN_BASE + its id), delayed by due time, active by
--             lease deadline, dead by time of death. A ready page finds how many plain elements
--             come before it with a binary search of the list (see plain_split), so that it reads
--             the entries of the page only (count of the ready set and count of the plain list,
--             which it merges). A plain element that cannot be read is listed in its place with no
--             state (see job_view); one without even an id has the id '' and the score of the
--             nearest element before it that has one (see plain_score). An index entry whose
--             record is gone is left out.
--             Returns first how many index entries the call covered, then how many plain
--             elements come before the entries it did not cover (what a call that goes on from
--             there is given), then per job: id, index score
--             (as text), its fields as job_view gives them (a nested flat list of names and
--             values). With 'scores', only the index score of each entry (as text), and no record
--             is read: what a partitioned queue's page merges. A call reads payloads (and plain
--             elements) until they pass PAYLOAD_BUDGET bytes, and builds at most VIEW_LIMIT jobs,
--             then stops: it covers fewer entries than asked, and the caller asks again from there.
--   'delete'  id: deletes a job that holds no lease: ready (a record, or a plain element), delayed,
--             dead, completed, or waiting at its batch or group. It leaves every index and its
--             record is deleted; its uniqueness key, when it holds one, is free again (even one kept
--             after completion); a job of a batch or group ends there as cancelled (an admitted one
--             frees its place, and a batch whose last open sub-job it was finishes). Counted under
--             'deleted'. Returns 1, the job's state ('' when its record has none) and the number of
--             finished batches whose completion job waits to be handed off (see batch.lua
--             'pending'); 0 when there is no such job; or -1, the worker holding it and its lease
--             deadline when it is active: then nothing is written. An optional expected state
--             (ARGV[5]: 'delayed' or 'dead') is checked first: a job not in that state's index
--             (it changed state meanwhile) is left alone, and the call returns 0.
--   'promote' id: a delayed job runs now: it moves to the end of its priority level in ready, as
--             promote moves a due job, its due time becoming now. Returns 1 when it is ready now, 0
--             when it was not delayed, or -1 when it was dead-lettered instead (expired, or a
--             damaged record); then the reason ('' unless -1) and the number of finished batches
--             whose completion job waits to be handed off.
local now = now_ms()
local op = ARGV[3]
-- the tombstones of deleted plain jobs (see plain_tombstone) take positions of the ready index
-- until the reserve drops them: a page covers them and leaves them out, so it may show fewer jobs
-- than its count, and no page repeats a job of the page before it
-- the most jobs one 'list' call builds (each a record, a payload and a list of its fields), so that
-- a page of small jobs is read in short calls too
local VIEW_LIMIT = 100

-- the score by which the plain element at list index i (element, when read) merges with the ready
-- set: its id's; an element without an id stays right after the nearest element before it that
-- has one (pop_ready takes it as soon as it heads the list), looked for among the 16 before it,
-- and takes its score (0 when there is none)
local function plain_score(i, element)
  local id = element and plain_id(element)
  if id then
    return PLAIN_BASE + id
  end
  for j = i - 1, math.max(0, i - 16), -1 do
    local before = redis.call('LINDEX', K_PLAIN, j)
    id = before and plain_id(before)
    if id then
      return PLAIN_BASE + id
    end
  end
  return 0
end

-- how many plain elements are among the first n jobs of ready in this order (the list holds
-- len): a binary search of the list, the rank of its k-th element in this order being k plus the
-- entries of the ready set that come before it
local function plain_split(n, desc, len)
  local lo, hi = 0, math.min(n, len)
  for _ = 1, 64 do
    if lo >= hi then
      break
    end
    local k = math.floor((lo + hi) / 2)
    local i = desc and (len - 1 - k) or k
    local score = int(plain_score(i, redis.call('LINDEX', K_PLAIN, i)))
    local before
    if desc then
      before = redis.call('ZCOUNT', K_READY, '(' .. score, '+inf')
    else
      before = redis.call('ZCOUNT', K_READY, '-inf', '(' .. score)
    end
    if k + before < n then
      lo = k + 1
    else
      hi = k
    end
  end
  return lo
end

if op == 'list' then
  local state, desc = ARGV[4], ARGV[5] == 'desc'
  local offset, count = tonumber(ARGV[6]), tonumber(ARGV[7])
  local index = ({ready = K_READY, delayed = K_DELAYED, active = K_INFLIGHT, dead = K_DEAD})[state]
  if not index then
    return redis.error_reply('ERR unknown job state ' .. tostring(state))
  end
  local range = desc and 'ZREVRANGE' or 'ZRANGE'
  local len = (index == K_READY) and redis.call('LLEN', K_PLAIN) or 0
  -- per entry: id, score (as text), plain element (false for an entry of a sorted set)
  local entries = {}
  -- plain elements before the page
  local a = 0
  if len == 0 then
    local z = redis.call(range, index, offset, offset + count - 1, 'WITHSCORES')
    for i = 1, #z, 2 do
      entries[#entries + 1] = {(index == K_DELAYED) and dmember_id(z[i]) or z[i], z[i + 1], false}
    end
  else
    -- the page starts after the first a plain elements and b entries of the ready set
    a = tonumber(ARGV[9] or '')
    if not a or a < 0 or a ~= math.floor(a) or a > offset or a > len then
      a = plain_split(offset, desc, len)
    end
    local b = offset - a
    local z = redis.call(range, K_READY, b, b + count - 1, 'WITHSCORES')
    -- the plain elements that may be on the page, in page order, until their bytes pass
    -- PAYLOAD_BUDGET: the merge stops where the elements read end (cut), if it gets there. Each read
    -- seeks its start in the list (deep in it, a walk of its nodes): one element first, then as
    -- many as the bytes left would hold at the size of those read (at most 32 per read)
    local l, at, bytes, cut = {}, {}, 0, false
    while #l < math.min(count, len - a) do
      if bytes >= PAYLOAD_BUDGET then
        cut = true
        break
      end
      local k = #l
      local want = 1
      if k > 0 and bytes > 0 then
        want = math.max(1, math.min(32, math.ceil((PAYLOAD_BUDGET - bytes) * k / bytes)))
      end
      want = math.min(want, count - k, len - a - k)
      local chunk
      if desc then
        chunk = redis.call('LRANGE', K_PLAIN, len - a - k - want, len - a - k - 1)
      else
        chunk = redis.call('LRANGE', K_PLAIN, a + k, a + k + want - 1)
      end
      for j = 1, #chunk do
        local element = desc and chunk[#chunk + 1 - j] or chunk[j]
        l[#l + 1] = element
        at[#l] = desc and (len - a - #l) or (a + #l - 1)
        bytes = bytes + #element
      end
      if #chunk < want then
        break
      end
    end
    -- in list order: an element without an id takes the score of the one before it in the list
    local ids, scores = {}, {}
    local from, to, step = 1, #l, 1
    if desc then
      from, to, step = #l, 1, -1
    end
    for k = from, to, step do
      local element = l[k]
      local id = plain_id(element)
      ids[k] = id and int(id) or ''
      scores[k] = id and (PLAIN_BASE + id) or scores[k - step] or plain_score(at[k], element)
    end
    local zi, li = 1, 1
    while #entries < count and (zi <= #z or li <= #l) do
      if li > #l and cut then
        break
      end
      local take_plain = li <= #l
      if take_plain and zi <= #z then
        local other = tonumber(z[zi + 1])
        take_plain = (desc and scores[li] > other) or (not desc and scores[li] < other)
      end
      if take_plain then
        -- a deleted plain job's tombstone keeps its place in the index until a reserve drops it:
        -- it is an entry the call covers, left out of the page (which is one job shorter)
        entries[#entries + 1] = {ids[li], int(scores[li]), l[li], is_tombstone(l[li])}
        li = li + 1
      else
        entries[#entries + 1] = {z[zi], z[zi + 1], false}
        zi = zi + 2
      end
    end
  end
  -- the first value: how many entries of the index this call covered (fewer than count when the
  -- index ends, or when PAYLOAD_BUDGET cut it short: then the caller goes on from there)
  -- the second: the plain elements before the first entry not covered
  local out = {0, a}
  if ARGV[8] == 'scores' then
    for i, entry in ipairs(entries) do
      out[i + 2] = entry[2]
      if entry[3] then
        out[2] = out[2] + 1
      end
    end
    out[1] = #entries
    return out
  end
  local bytes = 0
  for _, entry in ipairs(entries) do
    if out[1] > 0 and (bytes >= PAYLOAD_BUDGET or out[1] >= VIEW_LIMIT) then
      break
    end
    local fields, size = {}, 0
    if not entry[4] then
      fields, size = job_view(entry[1], entry[3])
    end
    bytes = bytes + size
    out[1] = out[1] + 1
    if entry[3] then
      out[2] = out[2] + 1
    end
    if #fields > 0 then
      out[#out + 1] = entry[1]
      out[#out + 1] = entry[2]
      out[#out + 1] = fields
    end
  end
  return out
end

-- a job waiting at its batch or group (never admitted) leaves it: a batch counts it as cancelled
-- and finishes when it was its last open sub-job; a group whose jobs all ended is forgotten
local function leave_gate(id, batch, group)
  if batch and batch ~= '' then
    local gk = gate_id('b', batch)
    redis.call('ZREM', K_GATE_WAIT, gk .. dmember(id))
    local g = rget(K_GATES, gk, GATE)
    if g[4] == 'open' or g[4] == 'sealed' or g[4] == 'cancelling' then
      g[8] = (tonumber(g[8]) or 0) + 1
      rset(K_GATES, gk, 'cancelled', g[8])
      finish_batch(batch, g, now)
    end
  elseif group and group ~= '' then
    local gk = gate_id('g', group)
    if redis.call('ZREM', K_GATE_WAIT, gk .. dmember(id)) == 1 then
      redis.call('HINCRBY', K_STATS, 'groupWaiting', -1)
    end
    local g = rget(K_GATES, gk, GATE)
    if g[1] and (tonumber(g[2]) or 0) <= (tonumber(g[3]) or 0) and wait_count(gk) == 0 then
      rdel(K_GATES, gk)
    end
  end
end

-- ids other than the engine's spelling are refused before anything is written
if (op == 'delete' or op == 'promote') and not is_job_id(ARGV[4]) then
  return redis.error_reply('ERR invalid job id')
end

if op == 'delete' then
  local id = ARGV[4]
  local expected = ARGV[5] or ''
  if expected == 'delayed' then
    if not redis.call('ZSCORE', K_DELAYED, dmember(id)) then
      return {0}
    end
  elseif expected == 'dead' then
    if not redis.call('ZSCORE', K_DEAD, id) then
      return {0}
    end
  elseif expected ~= '' then
    return redis.error_reply('ERR expected state must be delayed or dead')
  end
  local r = record(K_JOBS, id)
  if not r then
    local element, at
    if string.match(id, '^%d+$') then
      element, at = plain_find(tonumber(id))
    end
    if not element then
      return {0}
    end
    -- replaced in place by a tombstone (see plain_tombstone): no walk over the list
    redis.call('LSET', K_PLAIN, at, plain_tombstone(plain_id_text(element)))
    redis.call('HINCRBY', K_STATS, TOMBS, 1)
    redis.call('HINCRBY', K_STATS, 'deleted', 1)
    return {1, 'ready', 0}
  end
  local state = r[J.state]
  local lease = redis.call('ZSCORE', K_INFLIGHT, id)
  if state == 'active' or lease then
    return {-1, r[J.worker] or '', lease or r[J.leaseUntil] or ''}
  end
  redis.call('ZREM', K_READY, id)
  redis.call('ZREM', K_DELAYED, dmember(id))
  delayed_head = false
  redis.call('ZREM', K_DEAD, id)
  redis.call('ZREM', K_DONE, id)
  redis.call('ZREM', K_EXPIRY, id)
  release_unique(id, r[J.uniqueKey], r[J.uniqueTtl], false, now)
  if state == 'waiting' then
    leave_gate(id, r[J.batch], r[J.group])
  else
    gate_end(id, r[J.batch], r[J.group], 'cancelled', now, true)
  end
  jdel(id)
  redis.call('HINCRBY', K_STATS, 'deleted', 1)
  return {1, state or '', redis.call('ZCARD', K_BATCHES_DONE)}
end

if op == 'promote' then
  local id = ARGV[4]
  local member = dmember(id)
  if not redis.call('ZSCORE', K_DELAYED, member) then
    return {0}
  end
  local names = {'state', 'priority', 'expireAt', 'attempts', 'lost'}
  local f = jget(id, names)
  local is_gone = gone(id, f)
  -- the entry leaves the delayed set in every case: the job runs now, is dead-lettered, or is gone
  redis.call('ZREM', K_DELAYED, member)
  delayed_head = false
  if is_gone then
    return {0}
  end
  local bad = (not f[1] and 'corrupt job: field state is missing') or corrupt(f, names, {2})
  if bad then
    to_dead(id, bad, now)
    return {-1, bad, redis.call('ZCARD', K_BATCHES_DONE)}
  end
  if is_expired(f[3], f[4], f[5], now) then
    expire(id, now)
    return {-1, 'expired', redis.call('ZCARD', K_BATCHES_DONE)}
  end
  local score = ready_score(tonumber(f[2]), next_seq())
  jset(id, 'state', 'ready', 'score', score, 'dueAt', now)
  redis.call('ZADD', K_READY, score, id)
  wake(1)
  return {1, '', 0}
end

return redis.error_reply('ERR unknown jobs operation ' .. tostring(op))
