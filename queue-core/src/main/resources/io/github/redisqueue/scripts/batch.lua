-- Batches of sub-jobs in one queue. ARGV[3] = operation, ARGV[4] = batch id, then:
--   'open'    cap, priority, completion queue ('' = none), completion payload, retention ms after
--             the batch finished, max attempts of its sub-jobs, headers of its sub-jobs. An empty
--             id asks for a new one (from the queue's sequence). Returns id, 1 created or 0 when
--             a batch of that id exists already.
--   'add'     count, then one payload per sub-job. The sub-jobs wait at the batch (state
--             'waiting') and are admitted while fewer than the cap are admitted (see admit).
--             Returns 1, the batch's total, then the new job ids; or 0 and the batch's state
--             ('missing' when there is none) when it is not open, before writing anything.
--   'seal'    no more sub-jobs; a batch whose sub-jobs all ended finishes now. Returns 1 sealed
--             (or 0 when it was not open) and the state after the call.
--   'cancel'  most sub-jobs to look at in this call. The batch admits nothing more; walking its
--             list of sub-jobs from where the last call stopped, it deletes those waiting and
--             those admitted but holding no lease; running ones finish (a retry of one removes
--             it). Returns 1 (0 when it had finished already, -1 missing), the sub-jobs still to
--             look at (call again while more than 0), the state after the call.
--   'status'  returns state, cap, priority, total, admitted, completed, dead, cancelled,
--             created at, finished at, completion queue, waiting; or nothing for no batch.
--   'list'    (id unused) offset and count of open batches, oldest first: returns the number of
--             open batches, then per batch its id and the 12 values of 'status'; with 'scores'
--             after the count, only the creation time (the index score, as text) of each; with
--             'finished', the finished batches still kept instead, latest to lapse first.
--   'pending' (id unused) most entries: finished batches whose completion job is not handed off.
--             Returns 1 when the call stopped early because the completion payloads it read
--             passed PAYLOAD_BUDGET bytes (it always reads one), else 0; then per batch its id,
--             state, total, completed, dead, cancelled, completion queue, completion payload,
--             priority, finished at, created at.
--   'handed'  the completion job is enqueued: the batch leaves the hand-off set and its keys
--             expire after its retention. Returns {1}, or {0} when it was handed off already.
--   'jobs'    offset and count of sub-jobs in the order they were added: their ids (the caller
--             reads their results, each a key of its own).
-- A finished batch past its retention reads as missing until the reaper deletes its record.
local now = now_ms()
local op, bid = ARGV[3], ARGV[4]
local bk = gate_id('b', bid)
local STATUS = {'state', 'cap', 'priority', 'total', 'admits', 'completed', 'dead', 'cancelled', 'createdAt',
  'finishedAt', 'onComplete', 'ends'}

local function lapsed(id)
  local at = tonumber(redis.call('ZSCORE', K_BATCHES_UNTIL, id))
  return at ~= nil and at <= now
end

-- whether a batch of that id exists (a lapsed one does not)
local function exists(id)
  return rexists(K_GATES, gate_id('b', id)) and not lapsed(id)
end

-- the 12 values of 'status'; admitted = admits - ends
local function status(id)
  local gid = gate_id('b', id)
  local f = rget(K_GATES, gid, STATUS)
  if not f[1] or lapsed(id) then
    return nil
  end
  f[5] = (tonumber(f[5]) or 0) - (tonumber(f[12]) or 0)
  f[12] = wait_count(gid)
  return f
end

if op == 'open' then
  if bid == '' then
    -- a new id from the sequence, past ids that callers gave their batches
    for _ = 1, 10 do
      bid = int(next_seq())
      bk = gate_id('b', bid)
      if not rexists(K_GATES, bk) then
        break
      end
    end
  end
  -- a lapsed batch's id is taken again only once the reaper deleted its record and sub-job list
  if rexists(K_GATES, bk) then
    return {bid, 0}
  end
  local cap = math.max(1, math.min(MAX_GATE_CAP, tonumber(ARGV[5]) or 1))
  rset(K_GATES, bk, 'state', 'open', 'cap', cap, 'priority', tonumber(ARGV[6]) or 0, 'total', 0,
    'admits', 0, 'ends', 0, 'completed', 0, 'dead', 0, 'cancelled', 0, 'createdAt', now, 'finishedAt', 0,
    'onComplete', ARGV[7], 'context', ARGV[8], 'retention', tonumber(ARGV[9]) or 0,
    'maxAttempts', tonumber(ARGV[10]) or 1, 'headers', ARGV[11])
  redis.call('ZADD', K_BATCHES, now, bid)
  redis.call('HINCRBY', K_STATS, 'batchesOpened', 1)
  return {bid, 1}
end

if op == 'add' then
  local b = rget(K_GATES, bk, {'state', 'priority', 'maxAttempts', 'headers'})
  if b[1] ~= 'open' then
    return {0, b[1] or 'missing'}
  end
  local n = tonumber(ARGV[5])
  if seq_id(seq_peek() + n) > MAX_SEQ then
    return redis.error_reply('ERR queue sequence exhausted: a queue takes at most ' .. int(MAX_SEQ) .. ' jobs')
  end
  -- one range of ids, unless they must be checked one by one (see seq_range)
  local last, per_id = seq_range(n)
  local out = {1, 0}
  local members = {}
  local enqueued_at = num(now)
  for i = 1, n do
    local id = per_id and int(new_id()) or int(seq_id(last - n + i))
    local r = blank(K_JOBS)
    r[J.state], r[J.headers], r[J.priority], r[J.score], r[J.batch] = 'waiting', b[4], b[2], '0', bid
    r[J.attempts], r[J.maxAttempts], r[J.token], r[J.enqueuedAt] = '0', b[3], '0', enqueued_at
    jcreate(id, r, ARGV[5 + i])
    members[2 * i - 1] = 0
    members[2 * i] = bk .. dmember(id)
    out[2 + i] = id
  end
  redis.call('ZADD', K_GATE_WAIT, unpack(members))
  redis.call('ZADD', K_BATCH_JOBS, unpack(members))
  local g = rget(K_GATES, bk, GATE)
  g[5] = (tonumber(g[5]) or 0) + n
  out[2] = g[5]
  redis.call('HINCRBY', K_STATS, 'enqueued', n)
  local admitted = admit(bk, 'batch', bid, g, now)
  rset(K_GATES, bk, 'total', g[5], 'admits', (tonumber(g[2]) or 0) + admitted)
  return out
end

if op == 'seal' then
  local state = rget(K_GATES, bk, {'state'})[1]
  if state ~= 'open' then
    return {0, state or 'missing'}
  end
  rset(K_GATES, bk, 'state', 'sealed')
  finish_batch(bid, rget(K_GATES, bk, GATE), now)
  return {1, rget(K_GATES, bk, {'state'})[1]}
end

if op == 'cancel' then
  local b = rget(K_GATES, bk, {'state', 'total', 'cancelAt'})
  local state = b[1]
  if not state or lapsed(bid) then
    return {-1, 0, 'missing'}
  end
  if state ~= 'open' and state ~= 'sealed' and state ~= 'cancelling' then
    return {0, 0, state}
  end
  if state ~= 'cancelling' then
    rset(K_GATES, bk, 'state', 'cancelling')
  end
  local from, limit = tonumber(b[3]) or 0, tonumber(ARGV[5])
  local lo, hi = gate_range(bk)
  local members = redis.call('ZRANGEBYLEX', K_BATCH_JOBS, lo, hi, 'LIMIT', from, limit)
  local removed = 0
  for _, member in ipairs(members) do
    local id = dmember_id(string.sub(member, #bk + 1))
    local f = jget(id, {'state', 'batch'})
    if f[2] == bid then
      if f[1] == 'waiting' then
        jdel(id)
        redis.call('ZREM', K_GATE_WAIT, member)
        removed = removed + 1
      elseif f[1] == 'ready' or f[1] == 'delayed' then
        cancel_job(id, bid, now)
      end
    end
  end
  local cancelled = tonumber(rget(K_GATES, bk, {'cancelled'})[1]) or 0
  if removed > 0 then
    redis.call('HINCRBY', K_STATS, 'cancelled', removed)
  end
  -- sub-jobs still to walk; none once the walk came to the end of the index (a damaged index
  -- holding fewer entries than the batch's total ends the walk there instead of never)
  local left = 0
  if #members >= limit then
    left = math.max(0, (tonumber(b[2]) or 0) - from - #members)
  end
  rset(K_GATES, bk, 'cancelAt', from + #members, 'cancelled', cancelled + removed)
  if left == 0 then
    finish_batch(bid, rget(K_GATES, bk, GATE), now)
  end
  return {1, left, rget(K_GATES, bk, {'state'})[1]}
end

if op == 'status' then
  return status(bid) or {}
end

if op == 'list' then
  local offset, count = tonumber(ARGV[5]), tonumber(ARGV[6])
  if ARGV[7] == 'scores' then
    -- what a partitioned queue's page merges: the creation times only, no record read
    local z = redis.call('ZRANGE', K_BATCHES, offset, offset + count - 1, 'WITHSCORES')
    local out = {}
    for i = 2, #z, 2 do
      out[#out + 1] = z[i]
    end
    return out
  end
  local ids
  if ARGV[7] == 'finished' then
    -- finished batches still kept, the latest to lapse (about the latest finished) first
    ids = redis.call('ZREVRANGE', K_BATCHES_UNTIL, offset, offset + count - 1)
  else
    ids = redis.call('ZRANGE', K_BATCHES, offset, offset + count - 1)
  end
  local out = {redis.call('ZCARD', (ARGV[7] == 'finished') and K_BATCHES_UNTIL or K_BATCHES)}
  for _, id in ipairs(ids) do
    local s = status(id)
    if s then
      out[#out + 1] = id
      for _, v in ipairs(s) do
        out[#out + 1] = v
      end
    end
  end
  return out
end

if op == 'pending' then
  local out, bytes = {0}, 0
  for _, id in ipairs(redis.call('ZRANGE', K_BATCHES_DONE, 0, tonumber(ARGV[5]) - 1)) do
    if bytes >= PAYLOAD_BUDGET then
      out[1] = 1
      break
    end
    local f = rget(K_GATES, gate_id('b', id), {'state', 'total', 'completed', 'dead', 'cancelled', 'onComplete',
      'context', 'priority', 'finishedAt', 'createdAt'})
    if f[1] then
      f[7] = gate_context(gate_id('b', id))
      bytes = bytes + #(f[7] or '')
      out[#out + 1] = id
      for i = 1, 10 do
        out[#out + 1] = f[i] or ''
      end
    else
      redis.call('ZREM', K_BATCHES_DONE, id)
    end
  end
  return out
end

if op == 'handed' then
  if redis.call('ZREM', K_BATCHES_DONE, bid) == 0 then
    return {0}
  end
  local ttl = math.max(1, tonumber(rget(K_GATES, bk, {'retention'})[1]) or 1)
  redis.call('ZADD', K_BATCHES_UNTIL, int(now + ttl), bid)
  return {1}
end

if op == 'jobs' then
  local lo, hi = gate_range(bk)
  local out = {}
  if exists(bid) then
    for _, member in ipairs(redis.call('ZRANGEBYLEX', K_BATCH_JOBS, lo, hi, 'LIMIT', tonumber(ARGV[5]),
        tonumber(ARGV[6]))) do
      out[#out + 1] = dmember_id(string.sub(member, #bk + 1))
    end
  end
  return out
end

return redis.error_reply('ERR unknown batch operation ' .. tostring(op))
