-- common-sequence.lua: job ids and the ready order, a module of the queue scripts' prelude (see
-- common-keys.lua).
-- Defines: SEQ_BLOCK and seq_unsure; seq_id, plain_tail_seq, seq_lost_base, seq_mark, seq_take,
-- seq_raise, next_seq, new_id, seq_range, seq_peek; ready_score.
-- Relies on: K_SEQ, K_STATS, K_JOBS, K_PLAIN, K_READY, ID_STEP, ID_OFFSET and MAX_SEQ (common-keys); int
-- (common-records).
-- Invariants: no id is handed out twice, even after the counter K_SEQ was lost (it resumes past
-- its high-water mark '~seq' in K_STATS and past the last plain job); new_id never returns the id
-- of an existing job record; a partition's ids are its sequence numbers x ID_STEP + ID_OFFSET; a
-- ready score orders by priority, then by sequence number (capped at MAX_SEQ).

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

-- where a lost counter resumes: past its mark, the last plain job and the last ready job of
-- priority 0 with a record (one whose payload is kept apart waits at a plain job's place, its
-- score in that band); writes nothing
local function seq_lost_base()
  local mark = tonumber(redis.call('HGET', K_STATS, '~seq'))
  if not mark and redis.call('EXISTS', K_JOBS) == 1 then
    seq_unsure = true
  end
  local top = tonumber(redis.call('ZRANGE', K_READY, '(1001000000000000', '1000000000000000', 'BYSCORE', 'REV', 'LIMIT', 0, 1)[1])
  return math.max(mark and (mark - 1) or 0, plain_tail_seq(), top and math.floor((top - ID_OFFSET) / ID_STEP) or 0)
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
