-- One pass of the reaper over one queue, bounded by ARGV[3] jobs per step: the jobs of workers
-- whose heartbeat ran out are taken back (see below), expired leases go back to ready (or dead),
-- due delayed jobs are promoted, jobs past their expiry are dead-lettered, completed jobs older
-- than ARGV[4] ms (all of them when 0) and dead jobs older than ARGV[5] ms (0 = keep) are deleted,
-- and so are lapsed uniqueness keys and the records of finished batches past their retention.
-- Silent workers: the queue's own record of its consumers (K_LIVE, score = heartbeat deadline)
-- tells, inside this script, which workers are silent now; a worker whose heartbeat resumed is
-- live again and keeps its jobs. Lease identities are the worker id or the worker id, '#' and a
-- container id; worker ids contain no '#', so the match is exact. The in-flight set is walked in
-- slices, one per pass, from a cursor kept in the stats hash; once a walk reached the end, the
-- workers that were silent when it began are forgotten.
-- After an outage of Redis (or a long gap in the queue's calls), leases and heartbeats that ran
-- out in it are held as long again as the outage, at most a minute (see watch_outage).
-- Returns reclaimed, promoted, expired, purged completed, purged dead, taken from silent workers,
-- finished batches whose completion job waits to be handed off.
local now = now_ms()
local limit = tonumber(ARGV[3])
local done_ttl, dead_ttl = tonumber(ARGV[4]), tonumber(ARGV[5])
local abandoned = 0
-- after an outage of Redis, heartbeats and leases that ran out meanwhile are held a while longer
-- (see watch_outage)
watch_outage(now)
local gone = lapsed(K_LIVE, now, 100, true, true)
if #gone > 0 then
  local silent = {}
  for i = 1, #gone, 2 do
    silent[gone[i]] = tonumber(gone[i + 1])
  end
  local st = redis.call('HMGET', K_STATS, '~walk', '~walkFrom')
  local cursor = tonumber(st[1]) or 0
  local from = tonumber(st[2]) or now
  if cursor == 0 then
    from = now
  end
  local found, next_cursor = walk_inflight(cursor, function(holder)
    return silent[string.match(holder, '^[^#]*')] ~= nil
  end)
  take_back(found, now, 'worker stopped heartbeating')
  abandoned = #found
  if next_cursor == 0 then
    for worker, deadline in pairs(silent) do
      if deadline < from then
        redis.call('ZREM', K_LIVE, worker)
      end
    end
    redis.call('HDEL', K_STATS, '~walk', '~walkFrom')
  else
    redis.call('HSET', K_STATS, '~walk', next_cursor, '~walkFrom', from)
  end
end
local reclaimed = reclaim(now, limit)
local promoted, expired = promote(now, limit)
for _, id in ipairs(redis.call('ZRANGEBYSCORE', K_EXPIRY, '-inf', now, 'LIMIT', 0, limit)) do
  local f = jget(id, {'state', 'attempts', 'lost', 'expireAt'})
  if f[1] and (f[1] == 'ready' or f[1] == 'delayed') and is_expired(f[4], f[2], f[3], now) then
    redis.call('ZREM', K_READY, id)
    redis.call('ZREM', K_DELAYED, dmember(id))
    expire(id, now)
    expired = expired + 1
  else
    redis.call('ZREM', K_EXPIRY, id)
  end
end
local function purge(key, before)
  local ids = redis.call('ZRANGEBYSCORE', key, '-inf', before, 'LIMIT', 0, limit)
  for _, id in ipairs(ids) do
    jdel(id)
    redis.call('ZREM', key, id)
  end
  return #ids
end
local purged_dead = 0
if dead_ttl > 0 then
  purged_dead = purge(K_DEAD, now - dead_ttl)
end
-- uniqueness keys whose window lapsed, then records of finished batches past their retention with
-- their lists of sub-jobs, in steps of at most limit (and 1000) entries
local step = math.min(limit, 1000)
local lapsed = redis.call('ZRANGEBYSCORE', K_UNIQUE_UNTIL, '-inf', now, 'LIMIT', 0, step)
if #lapsed > 0 then
  redis.call('HDEL', K_UNIQUE, unpack(lapsed))
  redis.call('ZREM', K_UNIQUE_UNTIL, unpack(lapsed))
end
local budget = step
for _, bid in ipairs(redis.call('ZRANGEBYSCORE', K_BATCHES_UNTIL, '-inf', now, 'LIMIT', 0, step)) do
  local gid = gate_id('b', bid)
  local lo, hi = gate_range(gid)
  local members = redis.call('ZRANGEBYLEX', K_BATCH_JOBS, lo, hi, 'LIMIT', 0, budget)
  if #members > 0 then
    redis.call('ZREM', K_BATCH_JOBS, unpack(members))
  end
  budget = budget - #members
  if budget <= 0 then
    break
  end
  rdel(K_GATES, gid)
  redis.call('ZREM', K_BATCHES_UNTIL, bid)
  budget = budget - 1
end
return {reclaimed, promoted, expired, purge(K_DONE, now - done_ttl), purged_dead, abandoned,
  redis.call('ZCARD', K_BATCHES_DONE)}
