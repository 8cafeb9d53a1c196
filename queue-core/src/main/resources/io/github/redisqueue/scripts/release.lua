-- Gives leased jobs back. ARGV[3] = mode:
--   'unstarted' then pairs of id and token: jobs that never reached a handler go back to their
--      place in ready with nothing counted;
--   'started' then pairs of id and token: jobs whose handler ran but gave no outcome (still
--      running at shutdown) are taken back as lost (see take_back);
--   'worker' then a lease identity (ARGV[4]) and a cursor (ARGV[5]): a restarted worker takes
--      back the jobs its earlier run held, as lost, walking a bounded slice of the in-flight set.
-- Returns per pair 1 released, 0 stale token, -1 no such job; in worker mode the count taken
-- back and the cursor of the next call (0 when done).
local now = now_ms()
local mode = ARGV[3]
if mode == 'worker' then
  local identity = ARGV[4]
  local found, next_cursor = walk_inflight(tonumber(ARGV[5]), function(holder)
    return holder == identity
  end)
  take_back(found, now, 'worker restarted')
  return {#found, next_cursor}
end
local out = {}
local back, lost = 0, {}
for i = 4, #ARGV, 2 do
  local id, token = ARGV[i], ARGV[i + 1]
  local f = jget(id, {'state', 'token', 'score'})
  local refused = not_held(f, token)
  if refused then
    out[#out + 1] = refused
  else
    if mode == 'started' then
      lost[#lost + 1] = id
    elseif not tonumber(f[3]) then
      redis.call('ZREM', K_INFLIGHT, id)
      to_dead(id, "corrupt job: field score is '" .. string.sub(f[3] or '', 1, 40) .. "'", now)
    else
      redis.call('ZREM', K_INFLIGHT, id)
      jset(id, 'state', 'ready', 'readyAt', now, 'worker', '')
      redis.call('ZADD', K_READY, f[3], id)
      back = back + 1
    end
    out[#out + 1] = 1
  end
end
take_back(lost, now, 'given back unfinished')
if back > 0 then
  wake(back)
end
return out
