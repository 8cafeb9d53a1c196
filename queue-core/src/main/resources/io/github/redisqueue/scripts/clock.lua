-- Shared by every script, before common-*.lua or registry.lua: times come from the Redis server
-- clock, in milliseconds.
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

