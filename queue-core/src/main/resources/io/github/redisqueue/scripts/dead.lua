-- Acts on dead letters. ARGV[3] 'retry' or 'purge', ARGV[4] the most jobs to touch when no ids
-- follow (then the oldest dead jobs are taken, those that died at or before ARGV[5] only: a time
-- in ms, or '+inf'), then optional ids from ARGV[6].
-- Retried jobs start again with no attempts used and no progress, at the end of their priority
-- level; a past expiry is cleared. A job whose uniqueness key is held by another job stays dead,
-- its error says why, and its time of death becomes a millisecond from now (after the bound of
-- any retry-all call under way, so that the call passes over it once).
-- Returns the number of jobs retried or purged, the number refused, and the server time.
local op, limit = ARGV[3], tonumber(ARGV[4])
local now = now_ms()
local ids = {}
if #ARGV >= 6 then
  for i = 6, #ARGV do
    if not is_job_id(ARGV[i]) then
      return redis.error_reply('ERR invalid job id')
    end
    ids[#ids + 1] = ARGV[i]
  end
else
  ids = redis.call('ZRANGEBYSCORE', K_DEAD, '-inf', ARGV[5], 'LIMIT', 0, limit)
end
local count, refused = 0, 0
for _, id in ipairs(ids) do
  if redis.call('ZSCORE', K_DEAD, id) then
    local names = {'state', 'priority', 'uniqueKey', 'expireAt'}
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
      jset(id, 'state', 'ready', 'readyAt', now, 'attempts', 0, 'lost', 0, 'score', score, 'finishedAt', 0,
        'progress', false)
      local expire_at = tonumber(f[4]) or 0
      if expire_at > 0 and expire_at <= now then
        jset(id, 'expireAt', 0)
        redis.call('ZREM', K_EXPIRY, id)
      elseif expire_at > 0 then
        redis.call('ZADD', K_EXPIRY, expire_at, id)
      end
      if f[3] and f[3] ~= '' then
        unique_take(f[3], id)
      end
      redis.call('ZADD', K_READY, score, id)
      count = count + 1
    end
  end
end
if op == 'retry' and count > 0 then
  wake(count)
end
return {count, refused, now}
