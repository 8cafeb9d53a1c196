-- Enqueues one or more jobs. ARGV[3] = job count, then 13 values per job:
-- payload, headers, priority, delay ms, run-at ms (0 = none), uniqueness key ('' = none),
-- uniqueness window ms after completion, expire-after ms (0 = none), max attempts,
-- idempotency key (its position in KEYS, from 23 on; '' = none), idempotency window ms, group key
-- ('' = none), group concurrency. An idempotency key is a string key of its own holding the id,
-- expiring with its window.
-- A job of a group whose concurrency is taken waits at the group (state 'waiting', see admit);
-- a grouped job is never delayed (the caller refuses it).
-- A plain job (priority 0, ready at once, none of the options above) is appended to the plain list
-- (see plain_element) instead.
-- Returns id, created flag (1 new, 0 refused as duplicate: id is the existing job's) per job.
-- Refuses the whole call, before writing anything, when the queue's sequence would pass 10^12.
local now = now_ms()
local n = tonumber(ARGV[3])
plain_catch_up()
if seq_exhausted(n) then
  return redis.error_reply('ERR queue sequence exhausted: a queue takes at most ' .. int(MAX_SEQ) .. ' jobs')
end

local out = {}
local woken, created = 0, 0
local plain = {}
for i = 0, n - 1 do
  local o = 4 + i * 13
  local ukey = ARGV[o + 5]
  local ikey = (ARGV[o + 9] ~= '') and KEYS[tonumber(ARGV[o + 9])]
  local existing = false
  if ikey then
    existing = redis.call('GET', ikey)
  end
  if not existing and ukey ~= '' then
    existing = unique_holder(ukey, now)
  end
  if existing then
    out[#out + 1] = existing
    out[#out + 1] = 0
    redis.call('HINCRBY', K_STATS, 'duplicates', 1)
  else
    local seq = new_id()
    local id = int(seq)
    local priority = tonumber(ARGV[o + 2])
    local delay, run_at = tonumber(ARGV[o + 3]), tonumber(ARGV[o + 4])
    local expire_after = tonumber(ARGV[o + 7])
    local due = 0
    if run_at > 0 then
      due = run_at
    elseif delay > 0 then
      due = now + delay
    end
    local expire_at = 0
    if expire_after > 0 then
      expire_at = now + expire_after
    end
    local score = ready_score(priority, seq)
    local state = 'ready'
    if due > now then
      state = 'delayed'
    end
    local group = ARGV[o + 11]
    if state == 'ready' and priority == 0 and expire_at == 0 and ukey == '' and not ikey and group == '' then
      plain[#plain + 1] = plain_element(id, ARGV[o + 1], ARGV[o + 8], num(now), ARGV[o])
      woken = woken + 1
    else
      local gk = gate_id('g', group)
      local g
      if group ~= '' then
        g = rget(K_GATES, gk, {'cap', 'admits', 'ends'})
        if not g[1] then
          g = {math.max(1, math.min(MAX_GATE_CAP, tonumber(ARGV[o + 12]) or 1)), 0, 0}
        end
        if (tonumber(g[2]) or 0) - (tonumber(g[3]) or 0) >= (tonumber(g[1]) or 1) or wait_count(gk) > 0 then
          state = 'waiting'
        end
      end
      local r = blank(K_JOBS)
      r[J.state], r[J.headers], r[J.priority], r[J.score] = state, ARGV[o + 1], num(priority), score
      r[J.attempts], r[J.maxAttempts], r[J.token], r[J.enqueuedAt] = '0', ARGV[o + 8], '0', num(now)
      r[J.dueAt], r[J.expireAt], r[J.uniqueKey], r[J.uniqueTtl] = num(due), num(expire_at), ukey, ARGV[o + 6]
      if group ~= '' then
        r[J.group] = group
      end
      r[J.payload] = ARGV[o]
      records[K_JOBS][id] = r
      jsave(id, r)
      if ukey ~= '' then
        unique_take(ukey, id)
      end
      if ikey then
        redis.call('SET', ikey, id, 'PX', ARGV[o + 10])
      end
      if state == 'waiting' then
        rset(K_GATES, gk, 'cap', g[1], 'admits', g[2], 'ends', g[3])
        wait_push(gk, id)
        redis.call('HINCRBY', K_STATS, 'groupWaiting', 1)
      elseif state == 'delayed' then
        delay_job(id, due)
      else
        if group ~= '' then
          rset(K_GATES, gk, 'cap', g[1], 'admits', (tonumber(g[2]) or 0) + 1, 'ends', g[3])
          redis.call('HINCRBY', K_STATS, 'groupActive', 1)
        end
        redis.call('ZADD', K_READY, score, id)
        woken = woken + 1
      end
      if expire_at > 0 and state ~= 'waiting' then
        redis.call('ZADD', K_EXPIRY, expire_at, id)
      end
    end
    out[#out + 1] = id
    out[#out + 1] = 1
    created = created + 1
  end
end
for from = 1, #plain, 1000 do
  redis.call('RPUSH', K_PLAIN, unpack(plain, from, math.min(from + 999, #plain)))
end
if created > 0 then
  redis.call('HINCRBY', K_STATS, 'enqueued', created)
end
if woken > 0 then
  wake(woken)
end
return out
