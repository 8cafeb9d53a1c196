-- Fires the ticks of a recurring job (a schedule) on the queue, at most once each whatever the number
-- of callers. KEYS[24] is the hash of the queue's schedules (in the queue's hash tag): schedule name
-- -> the time (ms, server clock) of the last tick it handled. ARGV[3] = mode: 'peek' answers the
-- server time and the last tick of schedule ARGV[4], and writes nothing. 'fire': ARGV[4] schedule
-- name, [5] tick T (ms), [6] the tick before T (ms, 0 = none), [7] missed policy ('fire-once' or
-- 'skip'), [8] grace ms, [9] max attempts, [10] headers of T's job, [11] headers of the job of the
-- tick before T, [12] payload. 'pass': ARGV[4] schedule name, [5] tick: records the tick as handled
-- without a job (unless a later tick was handled).
-- A tick is on time when the call runs at most the grace after it (server clock). The call handles
-- T when the last handled tick is before T. T on time fires; when ticks were missed between the
-- last tick and T, 'fire-once' also fires one job for the latest of them (the tick before T), first.
-- T late is the latest missed tick: 'fire-once' fires it, 'skip' does not. A schedule without a
-- last tick (new, or its state was lost) has missed nothing: it fires T only when T is on time.
-- Each job fired is a plain job (see plain_element), or a job whose payload is kept apart (over
-- 4 KB, see apart_weight) at a plain job's place. A last tick that is not a number (damaged by
-- hand) counts as none, and is replaced by T.
-- Returns, for 'peek': server time, last tick ('' = none); for 'fire': server time, the outcome
-- ('fired', 'handled' when T was handled already, 'late' when T was late and fired nothing), then
-- per job fired its tick and id.
local now = now_ms()
local K_SCHEDULES = KEYS[FIXED_KEYS + 1]
local name = ARGV[4]
local last = tonumber(redis.call('HGET', K_SCHEDULES, name) or '')
if ARGV[3] == 'peek' then
  return {num(now), last and num(last) or ''}
end
if ARGV[3] == 'pass' then
  -- the tick ARGV[5] is handled without a job (the payload source had none for it)
  local passed = tonumber(ARGV[5])
  if not passed or passed > now then
    return redis.error_reply('ERR invalid schedule arguments')
  end
  if not last or last < passed then
    redis.call('HSET', K_SCHEDULES, name, num(passed))
  end
  return {num(now), 'passed'}
end
if ARGV[3] ~= 'fire' then
  return redis.error_reply('ERR unknown schedule mode')
end
local tick, before, policy = tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7]
local grace, max_attempts = tonumber(ARGV[8]), ARGV[9]
if not tick or not before or not grace or (policy ~= 'fire-once' and policy ~= 'skip') or tick > now then
  return redis.error_reply('ERR invalid schedule arguments')
end
if last and last >= tick then
  return {num(now), 'handled'}
end
local on_time = now - tick <= grace
local fire = {}
if on_time then
  if last and before > 0 and last < before and policy == 'fire-once' then
    fire[1] = {before, ARGV[11]}
  end
  fire[#fire + 1] = {tick, ARGV[10]}
elseif last and policy == 'fire-once' then
  -- T is the latest missed tick
  fire[1] = {tick, ARGV[10]}
end
if seq_id(seq_peek() + #fire) > MAX_SEQ then
  return redis.error_reply('ERR queue sequence exhausted: a queue takes at most ' .. int(MAX_SEQ) .. ' jobs')
end
local out = {num(now), (#fire > 0) and 'fired' or 'late'}
-- the ids first: new_id may fail (no free id), and the tick is recorded only with its jobs; a payload
-- kept apart (see apart_weight) gives each job a record and a ready entry at a plain job's place
-- instead of an element, as an enqueue does
local payload = ARGV[12]
local kept_apart = apart_weight(#payload)
local elements, apart, ready = {}, {}, {}
for _, job in ipairs(fire) do
  local id = int(new_id())
  if kept_apart then
    local r = plain_record(id, {job[2], max_attempts, num(now)})
    local a, k = #apart, #ready
    apart[a + 1], apart[a + 2], apart[a + 3], apart[a + 4] = id, cmsgpack.pack(r), pfield(id), payload
    ready[k + 1], ready[k + 2] = r[J.score], id
  else
    elements[#elements + 1] = plain_element(id, plain_prefix(job[2], max_attempts, num(now)), payload)
  end
  out[#out + 1] = num(job[1])
  out[#out + 1] = id
end
redis.call('HSET', K_SCHEDULES, name, num(tick))
if #fire > 0 then
  if #elements > 0 and redis.call('RPUSH', K_PLAIN, unpack(elements)) == #elements then
    -- a new list holds no tombstone (see plain_tombstone)
    redis.call('HDEL', K_STATS, TOMBS)
  end
  if #apart > 0 then
    redis.call('HSET', K_JOBS, unpack(apart))
    redis.call('ZADD', K_READY, unpack(ready))
  end
  redis.call('HINCRBY', K_STATS, 'enqueued', #fire)
  wake(#fire)
end
return out
