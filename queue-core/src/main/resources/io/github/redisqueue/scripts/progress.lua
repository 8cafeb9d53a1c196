-- Records the progress of a job its caller holds. ARGV[3] id, ARGV[4] lease token, ARGV[5] the
-- serialized progress (empty clears it), at most MAX_PROGRESS bytes. Written only while the job
-- is active under that token: a holder whose lease was taken back writes nothing.
-- Returns 1 written, 0 stale token (not active under it), -1 no such job.
local MAX_PROGRESS = 4096
local id, token, progress = ARGV[3], ARGV[4], ARGV[5]
if #progress > MAX_PROGRESS then
  return redis.error_reply('progress of ' .. #progress .. ' bytes is larger than ' .. MAX_PROGRESS)
end
local r = record(K_JOBS, id)
local refused = not_held(r and {r[J.state], r[J.token]} or {}, token)
if refused then
  return {refused}
end
r[J.progress] = (progress ~= '') and progress or false
jsave(id, r)
return {1}
