-- Acts on dead letters. ARGV[3] 'retry' or 'purge', ARGV[4] the most jobs to touch when no ids
-- follow (then the oldest dead jobs are taken, those that died at or before ARGV[5] only: a time
-- in ms, or '+inf'), ARGV[6] the queue's group concurrency, then optional ids from ARGV[7].
-- Retried jobs start again with no attempts used and no progress, at the end of their priority
-- level; a past expiry is cleared, and the token of their last lease no longer acknowledges them.
-- A job that died in a group (its key kept in 'ofGroup') joins its group again: admitted at once
-- while the group has room (ARGV[6] is the cap of a group that has no record any more), else
-- waiting at the group in id order, like a job enqueued there. A job whose uniqueness key is held
-- by another job stays dead, its error says why, and its time of death becomes a millisecond from
-- now (after the bound of any retry-all call under way, so that the call passes over it once; a
-- retried job that dies again in the same millisecond is stamped likewise, see dead_score).
-- Returns the number of jobs retried or purged, the number refused, and the server time.
local op, limit, group_cap = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[6]) or 1
local now = now_ms()
local ids = {}
if #ARGV >= 7 then
  for i = 7, #ARGV do
    if not is_job_id(ARGV[i]) then
      return redis.error_reply('ERR invalid job id')
    end
    ids[#ids + 1] = ARGV[i]
  end
else
  ids = redis.call('ZRANGEBYSCORE', K_DEAD, '-inf', ARGV[5], 'LIMIT', 0, limit)
end
local count, refused, woken = 0, 0, 0
for _, id in ipairs(ids) do
  if redis.call('ZSCORE', K_DEAD, id) then
    local names = {'state', 'priority', 'uniqueKey', 'expireAt', 'ofGroup', 'token'}
    local f = jget(id, names)
    local holder = false
    if op == 'retry' and f[3] and f[3] ~= '' then
      holder = unique_holder(f[3], now)
      if holder == id then
        holder = false
      end
    end
    if op == 'purge' or gone(id, f) then
      redis.call('ZREM', K_DEAD, id)
      jdel(id)
      count = count + 1
    elseif holder then
      jset(id, 'error', "retry refused: uniqueness key '" .. f[3] .. "' is held by job " .. holder)
      redis.call('ZADD', K_DEAD, now + 1, id)
      refused = refused + 1
    elseif corrupt(f, names, {2}) then
      jset(id, 'error', 'retry refused: ' .. corrupt(f, names, {2}))
      redis.call('ZADD', K_DEAD, now + 1, id)
      refused = refused + 1
    else
      redis.call('ZREM', K_DEAD, id)
      local score = ready_score(tonumber(f[2]), next_seq())
      -- a retried job starts afresh, outside the batch that counted its death (so that no batch
      -- end refuses its completion), with no loss counted under either limit; its token moves
      -- on, so that neither its last holder's token nor any earlier one is ever handed out again
      jset(id, 'state', 'ready', 'readyAt', now, 'attempts', 0, 'lost', 0, 'score', score, 'finishedAt', 0,
        'progress', false, 'token', (tonumber(f[6]) or 0) + 1, 'ofBatch', false, 'lostAhead', 0, 'ahead', false)
      local expire_at = tonumber(f[4]) or 0
      if expire_at > 0 and expire_at <= now then
        jset(id, 'expireAt', 0)
        expire_at = 0
        redis.call('ZREM', K_EXPIRY, id)
      end
      if f[3] and f[3] ~= '' then
        unique_take(f[3], id)
      end
      local waits = false
      if f[5] and f[5] ~= '' then
        local gk = gate_id('g', f[5])
        local g = rget(K_GATES, gk, {'cap', 'admits', 'ends'})
        if not g[1] then
          g = {math.max(1, math.min(MAX_GATE_CAP, group_cap)), 0, 0}
        end
        local admitted = (tonumber(g[2]) or 0) - (tonumber(g[3]) or 0)
        waits = admitted >= (tonumber(g[1]) or 1) or wait_count(gk) > 0
        jset(id, 'group', f[5], 'ofGroup', false)
        if waits then
          jset(id, 'state', 'waiting')
          rset(K_GATES, gk, 'cap', g[1], 'admits', g[2], 'ends', g[3])
          wait_push(gk, id)
          redis.call('HINCRBY', K_STATS, 'groupWaiting', 1)
        else
          rset(K_GATES, gk, 'cap', g[1], 'admits', (tonumber(g[2]) or 0) + 1, 'ends', g[3])
          redis.call('HINCRBY', K_STATS, 'groupActive', 1)
        end
      end
      if not waits then
        if expire_at > 0 then
          redis.call('ZADD', K_EXPIRY, expire_at, id)
        end
        redis.call('ZADD', K_READY, score, id)
        woken = woken + 1
      end
      count = count + 1
    end
  end
end
if woken > 0 then
  wake(woken)
end
return {count, refused, now}
