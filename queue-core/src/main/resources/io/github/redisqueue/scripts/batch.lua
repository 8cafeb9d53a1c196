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
--             open batches, then per batch its id and the 12 values of 'status'.
--   'pending' (id unused) most entries: finished batches whose completion job is not handed off,
--             per batch its id, state, total, completed, dead, cancelled, completion queue,
--             completion payload, priority, finished at, created at.
--   'handed'  the completion job is enqueued: the batch leaves the hand-off set and its keys
--             expire after its retention. Returns {1}, or {0} when it was handed off already.
--   'results' offset and count of sub-jobs in the order they were added: per sub-job its id and
--             its stored result ('' when none).
local now = now_ms()
local op, bid = ARGV[3], ARGV[4]
local bk = BATCH .. bid
local STATUS = {'state', 'cap', 'priority', 'total', 'admits', 'completed', 'dead', 'cancelled', 'createdAt',
  'finishedAt', 'onComplete', 'ends'}

-- the 12 values of 'status'; admitted = admits - ends
local function status(key)
  local f = redis.call('HMGET', key, unpack(STATUS))
  if not f[1] then
    return nil
  end
  f[5] = (tonumber(f[5]) or 0) - (tonumber(f[12]) or 0)
  f[12] = redis.call('LLEN', key .. ':wait')
  return f
end

if op == 'open' then
  if bid == '' then
    -- a new id from the sequence, past ids that callers gave their batches
    for _ = 1, 10 do
      bid = int(redis.call('INCR', K_SEQ))
      bk = BATCH .. bid
      if redis.call('EXISTS', bk) == 0 then
        break
      end
    end
  end
  if redis.call('EXISTS', bk) == 1 then
    return {bid, 0}
  end
  local cap = math.max(1, math.min(MAX_GATE_CAP, tonumber(ARGV[5]) or 1))
  redis.call('HSET', bk, 'state', 'open', 'cap', cap, 'priority', tonumber(ARGV[6]) or 0, 'total', 0,
    'admits', 0, 'ends', 0, 'completed', 0, 'dead', 0, 'cancelled', 0, 'createdAt', now, 'finishedAt', 0,
    'onComplete', ARGV[7], 'context', ARGV[8], 'retention', tonumber(ARGV[9]) or 0,
    'maxAttempts', tonumber(ARGV[10]) or 1, 'headers', ARGV[11])
  redis.call('ZADD', K_BATCHES, now, bid)
  redis.call('HINCRBY', K_STATS, 'batchesOpened', 1)
  return {bid, 1}
end

if op == 'add' then
  local b = redis.call('HMGET', bk, 'state', 'priority', 'maxAttempts', 'headers')
  if b[1] ~= 'open' then
    return {0, b[1] or 'missing'}
  end
  local n = tonumber(ARGV[5])
  if (tonumber(redis.call('GET', K_SEQ)) or 0) + n > MAX_SEQ then
    return redis.error_reply('ERR queue sequence exhausted: a queue takes at most ' .. int(MAX_SEQ) .. ' jobs')
  end
  -- one range of ids from the sequence, unless the counter fell behind existing jobs
  local last = redis.call('INCRBY', K_SEQ, n)
  local per_id = redis.call('EXISTS', JOB .. int(last - n + 1)) == 1 or redis.call('EXISTS', JOB .. int(last)) == 1
  local out = {1, 0}
  local ids = {}
  for i = 1, n do
    local id = per_id and int(new_id()) or int(last - n + i)
    redis.call('HSET', JOB .. id, 'payload', ARGV[5 + i], 'headers', b[4], 'priority', b[2], 'score', 0,
      'attempts', 0, 'maxAttempts', b[3], 'token', 0, 'enqueuedAt', now, 'state', 'waiting', 'batch', bid)
    ids[i] = id
    out[2 + i] = id
  end
  redis.call('RPUSH', bk .. ':wait', unpack(ids))
  redis.call('RPUSH', bk .. ':jobs', unpack(ids))
  out[2] = redis.call('HINCRBY', bk, 'total', n)
  redis.call('HINCRBY', K_STATS, 'enqueued', n)
  local g = redis.call('HMGET', bk, unpack(GATE))
  local admitted = admit(bk, 'batch', bid, g, now)
  if admitted > 0 then
    redis.call('HINCRBY', bk, 'admits', admitted)
  end
  return out
end

if op == 'seal' then
  local state = redis.call('HGET', bk, 'state')
  if state ~= 'open' then
    return {0, state or 'missing'}
  end
  redis.call('HSET', bk, 'state', 'sealed')
  finish_batch(bid, redis.call('HMGET', bk, unpack(GATE)), now)
  return {1, redis.call('HGET', bk, 'state')}
end

if op == 'cancel' then
  local b = redis.call('HMGET', bk, 'state', 'total', 'cancelAt')
  local state = b[1]
  if not state then
    return {-1, 0, 'missing'}
  end
  if state ~= 'open' and state ~= 'sealed' and state ~= 'cancelling' then
    return {0, 0, state}
  end
  if state ~= 'cancelling' then
    redis.call('HSET', bk, 'state', 'cancelling')
  end
  local from, limit = tonumber(b[3]) or 0, tonumber(ARGV[5])
  local ids = redis.call('LRANGE', bk .. ':jobs', from, from + limit - 1)
  local removed = 0
  for _, id in ipairs(ids) do
    local f = redis.call('HMGET', JOB .. id, 'state', 'batch')
    if f[2] == bid then
      if f[1] == 'waiting' then
        redis.call('DEL', JOB .. id)
        removed = removed + 1
      elseif f[1] == 'ready' or f[1] == 'delayed' then
        cancel_job(id, bid, now)
      end
    end
  end
  if removed > 0 then
    redis.call('HINCRBY', bk, 'cancelled', removed)
    redis.call('HINCRBY', K_STATS, 'cancelled', removed)
  end
  local left = math.max(0, (tonumber(b[2]) or 0) - from - #ids)
  redis.call('HSET', bk, 'cancelAt', from + #ids)
  if left == 0 then
    redis.call('DEL', bk .. ':wait')
    finish_batch(bid, redis.call('HMGET', bk, unpack(GATE)), now)
  end
  return {1, left, redis.call('HGET', bk, 'state')}
end

if op == 'status' then
  return status(bk) or {}
end

if op == 'list' then
  local offset, count = tonumber(ARGV[5]), tonumber(ARGV[6])
  local out = {redis.call('ZCARD', K_BATCHES)}
  for _, id in ipairs(redis.call('ZRANGE', K_BATCHES, offset, offset + count - 1)) do
    local s = status(BATCH .. id)
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
  local out = {}
  for _, id in ipairs(redis.call('ZRANGE', K_BATCHES_DONE, 0, tonumber(ARGV[5]) - 1)) do
    local f = redis.call('HMGET', BATCH .. id, 'state', 'total', 'completed', 'dead', 'cancelled', 'onComplete',
      'context', 'priority', 'finishedAt', 'createdAt')
    if f[1] then
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
  local ttl = math.max(1, tonumber(redis.call('HGET', bk, 'retention')) or 1)
  redis.call('PEXPIRE', bk, ttl)
  redis.call('PEXPIRE', bk .. ':jobs', ttl)
  return {1}
end

if op == 'results' then
  local offset, count = tonumber(ARGV[5]), tonumber(ARGV[6])
  local out = {}
  for _, id in ipairs(redis.call('LRANGE', bk .. ':jobs', offset, offset + count - 1)) do
    out[#out + 1] = id
    out[#out + 1] = redis.call('GET', BASE .. 'result:' .. id) or ''
  end
  return out
end

return redis.error_reply('ERR unknown batch operation ' .. tostring(op))
