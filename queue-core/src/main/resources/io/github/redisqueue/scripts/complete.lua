-- Acknowledges jobs, and records the start of jobs reserved ahead. ARGV[3] = retention ms of
-- completed jobs (0 deletes them at once), ARGV[4] = S, the number of started jobs, then S pairs
-- of id and lease token of jobs reserved ahead (see afield) whose handlers start now: they are
-- marked as started, so that losing them from now on counts against their max attempts (see
-- take_back); then pairs of id and lease token to acknowledge. Returns per started pair: 1
-- recorded, 0 stale token (not held under it), -1 no such job; then per acknowledged pair: 1
-- acknowledged, 2 already completed under that token, 0 stale token (someone else reserved the
-- job since), -1 no such job; then the number of finished batches whose completion job waits to
-- be handed off.
local now = now_ms()
local retention = tonumber(ARGV[3])
local starts = tonumber(ARGV[4])
if not retention or not starts or starts < 0 or starts % 1 ~= 0 or 4 + 2 * starts > #ARGV then
  error('complete: retention and started count must be numbers within the arguments')
end
-- records the start of job id under token the long way, for a job its mark does not speak for (a
-- stale token, a job gone or started at once, a record that says 'ahead' itself): appends the result
local function start_held(id, token, out)
  local r = record(K_JOBS, id)
  local refused = not_held(r and {r[J.state], r[J.token]} or {}, token)
  if refused then
    out[#out + 1] = refused
  else
    if r[J.ahead] == '1' then
      r[J.ahead] = '0'
      jsave(id, r)
    end
    redis.call('HSET', K_JOBS, afield(id), reservation_mark(r, token, false))
    out[#out + 1] = 1
  end
end

local out = {}
for i = 5, 4 + 2 * starts, 2 do
  local id, token = ARGV[i], ARGV[i + 1]
  -- marked reserved ahead under this token and in flight: held under it (see afield), and its
  -- record need not be read
  local flag = mark_flag(id, token)
  if (flag == 'a' or flag == 'A') and redis.call('ZSCORE', K_INFLIGHT, id) then
    redis.call('HSET', K_JOBS, afield(id), ((flag == 'A') and 'S' or 's') .. token)
    out[#out + 1] = 1
  else
    start_held(id, token, out)
  end
end
local done = 0
for i = 5 + 2 * starts, #ARGV, 2 do
  local result = complete_job(ARGV[i], ARGV[i + 1], retention, now)
  if result == 1 then
    done = done + 1
  end
  out[#out + 1] = result
end
if done > 0 then
  count_completed(done, now)
end
out[#out + 1] = redis.call('ZCARD', K_BATCHES_DONE)
return out
