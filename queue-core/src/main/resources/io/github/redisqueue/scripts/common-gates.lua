-- common-gates.lua: batches and groups (gates), and the end of a job, a module of the queue
-- scripts' prelude (see common-keys.lua).
-- Defines: GATE (the fields of a gate record that admit and gate_end read), gate_id, gate_range,
-- wait_push, wait_pop and wait_count (the jobs waiting at a gate), finish_batch, admit, gate_end,
-- cancel_job, batch_cancelling, and to_dead (dead-letters a job: its uniqueness key released and
-- its end counted at its gate and in the history).
-- Relies on: HISTORY_FAILED and history_add (common-history); K_READY, K_DELAYED, K_DEAD, K_EXPIRY, K_STATS, K_JOBS, K_BATCHES, K_BATCHES_DONE,
-- K_GATES, K_GATE_WAIT, K_BATCHES_UNTIL and CHANNEL (common-keys); int, rget, rset, rdel, rexists,
-- afield, jget, jset and jdel (common-records); next_seq and ready_score (common-sequence); dmember,
-- dmember_id and dead_score (common-jobs); delayed_head and wake (common-wake); release_unique
-- (common-unique).
-- Invariants: a gate never holds more admitted jobs than its cap (admits - ends <= cap); a job's
-- end is counted once (gate_end clears its 'batch' or 'group' field); a batch finishes exactly
-- once; admit passes over at most 100 damaged or stale waiting entries per call.

-- Batches and groups are gates: a record with the cap ('cap'), the number of jobs it ever admitted
-- ('admits') and of admitted jobs that ended ('ends'), and its range of jobs waiting for a place
-- in K_GATE_WAIT. An admitted job is an ordinary job of the queue (ready, leased, or waiting for a
-- retry) whose 'batch' or 'group' field names its gate; a job waiting at its gate has state
-- 'waiting' and sits in none of the queue's sets. A job leaves its gate only when it ends
-- (completed, dead or cancelled: its field is cleared then, so it ends once), and only then is the
-- next waiting job admitted, at the end of its priority level: so at no time do more jobs of one
-- gate hold a lease than its cap (admits - ends <= cap), and gates of equal priority take turns.
local GATE = {'cap', 'admits', 'ends', 'state', 'total', 'completed', 'dead', 'cancelled', 'priority'}

-- a gate's id: its kind ('b' batch, 'g' group), the length of its name, ':' and the name; no
-- gate's id starts with another's, so one lexical range holds exactly one gate's entries
local function gate_id(kind, name)
  return kind .. #name .. ':' .. name
end

local function gate_range(gid)
  return '[' .. gid, '[' .. gid .. '\255'
end

local function wait_push(gid, id)
  redis.call('ZADD', K_GATE_WAIT, 0, gid .. dmember(id))
end

-- the id of the first job waiting at a gate, taken out of its range; nil when none waits
local function wait_pop(gid)
  local lo, hi = gate_range(gid)
  local first = redis.call('ZRANGEBYLEX', K_GATE_WAIT, lo, hi, 'LIMIT', 0, 1)[1]
  if not first then
    return nil
  end
  redis.call('ZREM', K_GATE_WAIT, first)
  return dmember_id(string.sub(first, #gid + 1))
end

local function wait_count(gid)
  local lo, hi = gate_range(gid)
  return redis.call('ZLEXCOUNT', K_GATE_WAIT, lo, hi)
end

-- a batch whose every sub-job ended, once sealed (or cancelled), finishes: exactly once, since
-- its state leaves 'sealed' here. g holds the GATE values of its record, counts included. With a
-- completion queue it goes to the hand-off set, to be enqueued there by the next client that
-- looks (see batch.lua 'pending'); its record lapses after its retention once handed off, at
-- once when there is nothing to hand off (see trim). A blocked consumer is woken so that it
-- looks, and subscribers of the channel ARGV[1] learn the batch id.
local function finish_batch(bid, g, now)
  if g[4] ~= 'sealed' and g[4] ~= 'cancelling' then
    return false
  end
  local ended = (tonumber(g[6]) or 0) + (tonumber(g[7]) or 0) + (tonumber(g[8]) or 0)
  if ended < (tonumber(g[5]) or 0) then
    return false
  end
  local gid = gate_id('b', bid)
  local final = (g[4] == 'sealed') and 'completed' or 'cancelled'
  rset(K_GATES, gid, 'state', final, 'finishedAt', now)
  -- nothing waits any more (a cancel took out each waiting sub-job it deleted)
  redis.call('ZREMRANGEBYLEX', K_GATE_WAIT, gate_range(gid))
  redis.call('ZREM', K_BATCHES, bid)
  local b = rget(K_GATES, gid, {'onComplete', 'retention'})
  if b[1] and b[1] ~= '' then
    redis.call('ZADD', K_BATCHES_DONE, now, bid)
    wake(1)
  else
    redis.call('ZADD', K_BATCHES_UNTIL, int(now + math.max(1, tonumber(b[2]) or 1)), bid)
  end
  redis.call('HINCRBY', K_STATS, 'batches' .. (final == 'completed' and 'Completed' or 'Cancelled'), 1)
  redis.call('PUBLISH', CHANNEL, bid)
  return true
end

-- admits waiting jobs of gate gk (its gate id; kind 'batch' or 'group', also the job field that
-- names the gate; name is the batch id or group key) while fewer than its cap are admitted; g
-- holds the GATE values of its record. A batch's sub-jobs take the batch's priority; a group's
-- job keeps its own and is read first: one whose record is damaged or gone ends as dead (with the
-- reason, when the record exists), at most 100 such entries per call. Returns how many were
-- admitted.
local function admit(gk, kind, name, g, now)
  local room = (tonumber(g[1]) or 0) - ((tonumber(g[2]) or 0) - (tonumber(g[3]) or 0))
  local n, budget = 0, 100
  while n < room and budget > 0 do
    local id = wait_pop(gk)
    if not id then
      break
    end
    local priority, expire_at, state = tonumber(g[9]), 0, 'waiting'
    if kind == 'group' then
      redis.call('HINCRBY', K_STATS, 'groupWaiting', -1)
      local f = jget(id, {'state', 'priority', 'expireAt'})
      state, priority, expire_at = f[1], tonumber(f[2]), tonumber(f[3]) or 0
      if state and state ~= 'waiting' then
        -- admitted or ended some other way already: not this gate's to count
        budget = budget - 1
        state = nil
      elseif not state or not priority then
        if rexists(K_JOBS, id) then
          local reason = (not state) and 'corrupt job: field state is missing'
            or ('corrupt job: field priority is ' .. (f[2] and ("'" .. string.sub(f[2], 1, 40) .. "'") or 'missing'))
          jset(id, 'state', 'dead', 'error', reason, 'finishedAt', now, 'group', '')
          redis.call('ZADD', K_DEAD, dead_score(jget(id, {'readyAt'})[1], now), id)
          redis.call('HINCRBY', K_STATS, 'dead', 1)
          history_add(HISTORY_FAILED, 1, now)
        end
        budget = budget - 1
        state = nil
      end
    end
    if state then
      -- a batch's sub-job is not read first: a damaged or deleted one is caught by the reserve
      -- that pops it (a job record without its numeric fields is dead-lettered there)
      local score = ready_score(priority, next_seq())
      jset(id, 'state', 'ready', 'score', score, 'readyAt', now, kind, name)
      redis.call('ZADD', K_READY, score, id)
      if expire_at > 0 then
        redis.call('ZADD', K_EXPIRY, expire_at, id)
      end
      n = n + 1
    end
  end
  if n > 0 then
    if kind == 'group' then
      redis.call('HINCRBY', K_STATS, 'groupActive', n)
    end
    wake(n)
  end
  return n
end

-- a job of a batch or a group ended with outcome 'completed', 'dead' or 'cancelled': its place is
-- freed, the next waiting job admitted, and a batch whose last sub-job this was finishes. The
-- job's 'batch' or 'group' field is cleared (the batch id stays in 'ofBatch', the group key in
-- 'ofGroup'), so an end is counted once even if the job runs again later (a dead sub-job retried
-- by an operator is a plain job; a dead job of a group retried by an operator joins its group
-- again, see dead.lua); pass deleting when the caller deletes the job next. Call it while the
-- record exists.
local function gate_end(id, batch, group, outcome, now, deleting)
  local kind, gk, name
  if batch and batch ~= '' then
    kind, gk, name = 'batch', gate_id('b', batch), batch
    if not deleting then
      jset(id, 'batch', '', 'ofBatch', batch)
    end
  elseif group and group ~= '' then
    kind, gk, name = 'group', gate_id('g', group), group
    if not deleting then
      jset(id, 'group', '', 'ofGroup', group)
    end
  else
    return
  end
  local g = rget(K_GATES, gk, GATE)
  if not g[1] then
    return
  end
  g[3] = (tonumber(g[3]) or 0) + 1
  if kind == 'group' then
    redis.call('HINCRBY', K_STATS, 'groupActive', -1)
  end
  local n = 0
  if g[4] ~= 'cancelling' and g[4] ~= 'cancelled' then
    n = admit(gk, kind, name, g, now)
  end
  g[2] = (tonumber(g[2]) or 0) + n
  if kind == 'batch' then
    local at = (outcome == 'completed' and 6) or (outcome == 'dead' and 7) or 8
    g[at] = (tonumber(g[at]) or 0) + 1
    rset(K_GATES, gk, 'admits', g[2], 'ends', g[3], outcome, g[at])
    finish_batch(batch, g, now)
  elseif g[2] <= g[3] and wait_count(gk) == 0 then
    rdel(K_GATES, gk)
  else
    rset(K_GATES, gk, 'admits', g[2], 'ends', g[3])
  end
end

-- removes a job of a cancelled batch that holds no lease (ready, or waiting for a retry)
local function cancel_job(id, batch, now)
  redis.call('ZREM', K_READY, id)
  redis.call('ZREM', K_DELAYED, dmember(id))
  delayed_head = false
  redis.call('ZREM', K_EXPIRY, id)
  gate_end(id, batch, nil, 'cancelled', now, true)
  jdel(id)
  redis.call('HINCRBY', K_STATS, 'cancelled', 1)
end

-- whether a job belongs to a batch being cancelled; states caches the state of each batch asked
-- for within one call
local function batch_cancelling(batch, states)
  if not batch or batch == '' then
    return false
  end
  local state = states and states[batch]
  if not state then
    state = rget(K_GATES, gate_id('b', batch), {'state'})[1] or ''
    if states then
      states[batch] = state
    end
  end
  return state == 'cancelling'
end

local function to_dead(id, reason, now)
  jset(id, 'state', 'dead', 'error', reason, 'finishedAt', now, 'worker', '')
  -- a dead job holds no reservation: its mark goes (see afield)
  redis.call('HDEL', K_JOBS, afield(id))
  redis.call('ZADD', K_DEAD, dead_score(jget(id, {'readyAt'})[1], now), id)
  local u = jget(id, {'uniqueKey', 'uniqueTtl', 'batch', 'group'})
  release_unique(id, u[1], u[2], false, now)
  redis.call('HINCRBY', K_STATS, 'dead', 1)
  history_add(HISTORY_FAILED, 1, now)
  gate_end(id, u[3], u[4], 'dead', now, false)
end
