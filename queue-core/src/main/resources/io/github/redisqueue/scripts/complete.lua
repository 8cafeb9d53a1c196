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

-- the starts from ARGV index first to last that the marks speak for (marked reserved ahead under
-- the pair's token and in flight: held under it, see afield), recorded without reading a record:
-- the new marks in one HSET per run (see marked_held). Returns the set of their ARGV indexes, and
-- the set of the indexes of the pairs it looked at (the first to name each id).
local function start_marked(first, last)
  local started = {}
  local looked = marked_held(first, last, {a = true, A = true}, function(held)
    local writes = {}
    for _, pair in ipairs(held) do
      local i, flag = pair[1], pair[2]
      writes[#writes + 1] = afield(ARGV[i])
      writes[#writes + 1] = ((flag == 'A') and 'S' or 's') .. ARGV[i + 1]
      started[i] = true
    end
    redis.call('HSET', K_JOBS, unpack(writes))
  end)
  return started, looked
end

local out = {}
local started, looked = {}, {}
if starts > 0 then
  started, looked = start_marked(5, 4 + 2 * starts)
end
for i = 5, 4 + 2 * starts, 2 do
  if not looked[i] then
    -- an id named again: its mark as the pairs before left it
    started[i] = start_marked(i, i)[i]
  end
  if started[i] then
    out[#out + 1] = 1
  else
    start_held(ARGV[i], ARGV[i + 1], out)
  end
end
local first = 5 + 2 * starts
local marked, done = complete_marked(first, #ARGV, retention)
for i = first, #ARGV, 2 do
  local result = 1
  if not marked[i] then
    result = complete_job(ARGV[i], ARGV[i + 1], retention, now)
    if result == 1 then
      done = done + 1
    end
  end
  out[#out + 1] = result
end
if done > 0 then
  count_completed(done, now)
end
out[#out + 1] = redis.call('ZCARD', K_BATCHES_DONE)
return out
