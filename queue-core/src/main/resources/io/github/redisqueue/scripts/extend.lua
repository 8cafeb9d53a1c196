-- Extends leases. ARGV[3] = new lease length ms from now, then pairs of id and token.
-- Returns per pair: the new deadline, 0 stale token, -1 no such job.
local now = now_ms()
local deadline = now + tonumber(ARGV[3])
-- a lease keeper's call is often the first after an outage of Redis: it records it (see watch_outage)
watch_outage(now)
local out = {}
for i = 4, #ARGV, 2 do
  local id, token = ARGV[i], ARGV[i + 1]
  local r = record(K_JOBS, id)
  local refused = not_held(r and {r[J.state], r[J.token]} or {}, token)
  if refused then
    out[#out + 1] = refused
  else
    redis.call('ZADD', K_INFLIGHT, deadline, id)
    r[J.leaseUntil] = num(deadline)
    jsave(id, r)
    out[#out + 1] = deadline
  end
end
return out
