-- common-leases.lua: leases, their take-back and outages, a module of the queue scripts' prelude
-- (see common-keys.lua).
-- Defines: take_back (jobs taken from a holder that gave no outcome), OUTAGE_MIN, OUTAGE_CAP,
-- SEEN_EVERY, outage, watch_outage, lapsed, reclaim and walk_inflight.
-- Relies on: K_READY, K_INFLIGHT, K_STATS, K_JOBS, SLICE, SLICE_BYTES and AHEAD_FACTOR
-- (common-keys); int, afield, mark_flag, jget and jset (common-records); corrupt and gone (common-jobs); wake
-- (common-wake); to_dead (common-gates).
-- Invariants: a script calls watch_outage before any check of a deadline (lapsed, reclaim), so
-- that a lease that ran out while Redis was away lasts until its holder could extend it; a job
-- lost as often as its max attempts (AHEAD_FACTOR times that when it was only reserved ahead) is
-- dead-lettered; lapsed and reclaim read at most their limit, walk_inflight at most SLICE entries
-- and about SLICE_BYTES of records per call.

-- takes in-flight jobs from a holder that gave no outcome (its lease ran out, it stopped
-- heartbeating, it restarted, it was still running at shutdown): each such loss counts in the
-- job's 'lost' field, apart from its attempts; a job lost as often as its max attempts is
-- dead-lettered (so a job that kills its worker ends dead), the others go back to their place in
-- ready. A job its holder had only reserved ahead (waiting for a free thread, field 'ahead') was
-- most likely not running: such losses count in 'lostAhead' and dead-letter the job only at
-- AHEAD_FACTOR times its max attempts. Returns how many went back to ready.
local function take_back(ids, now, reason)
  local back = 0
  for _, id in ipairs(ids) do
    redis.call('ZREM', K_INFLIGHT, id)
    local names = {'state', 'maxAttempts', 'score', 'lost', 'ahead', 'lostAhead', 'token'}
    local f = jget(id, names)
    if not gone(id, f) then
      local bad = (not f[1] and 'corrupt job: field state is missing') or corrupt(f, names, {2, 3})
      local field, count, limit = 'lost', (tonumber(f[4]) or 0) + 1, tonumber(f[2])
      -- the mark speaks for the reservation under the record's token (see afield); without one,
      -- the record's own field (a reservation by an earlier release)
      local flag = mark_flag(id, f[7])
      local ahead = f[5] == '1'
      if flag then
        ahead = flag == 'a' or flag == 'A'
      end
      redis.call('HDEL', K_JOBS, afield(id))
      if ahead then
        field, count, limit = 'lostAhead', (tonumber(f[6]) or 0) + 1, AHEAD_FACTOR * (tonumber(f[2]) or 0)
      end
      if bad then
        to_dead(id, bad, now)
      elseif count >= limit then
        jset(id, field, count)
        local how = (field == 'lost') and ' times without an outcome (max attempts '
          or ' times while reserved ahead without an outcome (limit '
        to_dead(id, reason .. ': held ' .. count .. how .. limit .. ')', now)
      else
        jset(id, 'state', 'ready', 'readyAt', now, 'worker', '', 'error', reason, field, count)
        redis.call('ZADD', K_READY, f[3], id)
        back = back + 1
      end
    end
  end
  if #ids > 0 then
    redis.call('HINCRBY', K_STATS, 'reaped', #ids)
  end
  if back > 0 then
    wake(back)
  end
  return back
end

-- Outages. Leases (K_INFLIGHT) and heartbeats (K_LIVE) are deadlines on the Redis clock, which
-- runs on while no client can reach Redis (a restart loading its data, a failover): a live worker
-- could not extend anything meanwhile. The scripts that run often (reserve, reap, extend) keep the
-- last server time they ran at in the stats field '~seen' (written at most every SEEN_EVERY ms),
-- and the run id of the Redis server they ran on in '~run' (INFO server; read only when '~run' is
-- missing or a gap is found). One that finds '~seen' more than OUTAGE_MIN ms old while the run id
-- changed (Redis restarted, or another server took over: a failover) takes the gap for an outage
-- of s = min(gap, OUTAGE_CAP) ms that ended now (at 'to'), and records it in
-- '~outTo', '~outFor' and '~outTop', provided some lease in flight ran out in it or runs out
-- after it ('top' is one past the latest such deadline, at most to + s). Until the window lapses,
-- a deadline d from to - s to top counts as max(d, to) + s: a lease that ran out while Redis was
-- away lasts until s after its return, giving its holder as long as the outage to reconnect and
-- extend it; a lease due later keeps s more. Deadlines before to - s are due as usual (an outage
-- longer than the cap keeps only the last OUTAGE_CAP ms of them), so a job taken back late
-- because of an outage is late by at most s. A gap on the same server (a queue nobody called for
-- a while, a pause of the process) shifts nothing. Nothing is rewritten: the rule is a choice of
-- score ranges (see lapsed), the same work per call.
local OUTAGE_MIN, OUTAGE_CAP, SEEN_EVERY = 2000, 60000, 500
local outage = false

-- reads the outage window (recording one that ended now) and marks this call as seen; call it
-- before reclaim and before any other script's check of a deadline
local function watch_outage(now)
  local f = redis.call('HMGET', K_STATS, '~seen', '~outTo', '~outFor', '~outTop', '~run')
  local seen, to, s, top = tonumber(f[1]), tonumber(f[2]), tonumber(f[3]), tonumber(f[4])
  outage = false
  if to and s and top and now < math.max(to, top) + s then
    outage = {to = to, s = s, top = top}
  elseif f[2] or f[3] or f[4] then
    redis.call('HDEL', K_STATS, '~outTo', '~outFor', '~outTop')
  end
  local changed = seen and now - seen > OUTAGE_MIN
  if changed or not f[5] then
    local run = string.match(redis.call('INFO', 'server'), 'run_id:(%x+)') or ''
    if run ~= f[5] then
      redis.call('HSET', K_STATS, '~run', run)
    end
    -- a gap on the server that wrote '~run' is no outage (when it was missing, nothing tells)
    changed = changed and f[5] and run ~= f[5]
  end
  if changed then
    local gap = math.min(now - seen, OUTAGE_CAP)
    local last = redis.call('ZRANGE', K_INFLIGHT, -1, -1, 'WITHSCORES')
    local latest = tonumber(last[2])
    if latest and latest >= now - gap then
      outage = {to = now, s = gap, top = math.min(now + gap, latest + 1)}
      redis.call('HSET', K_STATS, '~outTo', int(now), '~outFor', int(gap), '~outTop', int(outage.top))
    end
  end
  if not seen or now - seen >= SEEN_EVERY or now < seen then
    redis.call('HSET', K_STATS, '~seen', int(now))
  end
end

-- members of K_INFLIGHT (or of K_LIVE, with live set) whose deadline passed by now, at most
-- limit, with their scores when withscores; during an outage window (see watch_outage) a
-- deadline d in [to - s, top) passes at max(d, to) + s instead, top being to + s for heartbeats
local function lapsed(key, now, limit, live, withscores)
  local ranges = {{'-inf', now}}
  if outage then
    local to, s = outage.to, outage.s
    local top = live and (to + s) or outage.top
    local hi = (now < to + s) and (to - s - 1) or math.min(now - s, top - 1)
    ranges = {{'-inf', hi}}
    if top <= now then
      ranges[2] = {top, now}
    end
  end
  local out, step = {}, withscores and 2 or 1
  for _, range in ipairs(ranges) do
    local room = limit - #out / step
    if room <= 0 then
      break
    end
    local got = withscores
      and redis.call('ZRANGEBYSCORE', key, range[1], range[2], 'WITHSCORES', 'LIMIT', 0, room)
      or redis.call('ZRANGEBYSCORE', key, range[1], range[2], 'LIMIT', 0, room)
    for _, v in ipairs(got) do
      out[#out + 1] = v
    end
  end
  return out
end

-- expired leases (after watch_outage)
local function reclaim(now, limit)
  if limit <= 0 then
    return 0
  end
  local ids = lapsed(K_INFLIGHT, now, limit, false, false)
  take_back(ids, now, 'lease expired')
  return #ids
end

-- walks at most SLICE in-flight entries from cursor, and no more once it read SLICE_BYTES of
-- records, and returns the ids whose lease holder matches, and the cursor of the next call (0 once
-- the walk reached the end). A cursor is 0 to start, else 1 + the index in the in-flight set to go
-- on from; the caller takes the returned jobs out of the in-flight set, which the next cursor
-- accounts for (a slice whose every job matched goes on from where it started).
local function walk_inflight(cursor, matches)
  local from = math.max(0, cursor - 1)
  local ids = redis.call('ZRANGE', K_INFLIGHT, from, from + SLICE - 1)
  local found, walked, bytes = {}, 0, 0
  for _, id in ipairs(ids) do
    if walked > 0 and bytes >= SLICE_BYTES then
      break
    end
    bytes = bytes + redis.call('HSTRLEN', K_JOBS, id)
    walked = walked + 1
    local holder = jget(id, {'worker'})[1]
    if holder and matches(holder) then
      found[#found + 1] = id
    end
  end
  if walked == #ids and #ids < SLICE then
    return found, 0
  end
  return found, from + walked - #found + 1
end
