-- Acknowledges jobs. ARGV[3] = retention ms of completed jobs (0 deletes them at once), then
-- pairs of id and lease token. Returns per pair: 1 acknowledged, 2 already completed under that
-- token, 0 stale token (someone else reserved the job since), -1 no such job; then the number of
-- finished batches whose completion job waits to be handed off.
local now = now_ms()
local retention = tonumber(ARGV[3])
local out = {}
local done = 0
for i = 4, #ARGV, 2 do
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
