-- Optional first part of every script (system property redisqueue.scripts.check-keys=true): a
-- local 'redis' that fails any call naming a key the script was not given in KEYS, so that a test
-- run proves the scripts keep Redis's rule for scripts. Commands whose arguments are all keys are
-- listed in ALL_KEYS, those that take no key in NO_KEYS; any other takes its key first. In the
-- Functions library (ScriptLibrary) the last statement runs at every call, since it reads KEYS.
local NO_KEYS = {TIME = true, PUBLISH = true, INFO = true}
local ALL_KEYS = {DEL = true, EXISTS = true, UNLINK = true, MGET = true, TOUCH = true}
local function check_keys(given, command, ...)
  local name = string.upper(command)
  if NO_KEYS[name] then
    return
  end
  local last = ALL_KEYS[name] and select('#', ...) or 1
  for i = 1, last do
    local key = select(i, ...)
    if not given[key] then
      error('script touched key ' .. tostring(key) .. ' (' .. name .. ') not given in KEYS')
    end
  end
end
local function checked(keys)
  local given = {}
  for _, key in ipairs(keys) do
    given[key] = true
  end
  local real = redis
  return setmetatable({
    call = function(command, ...)
      check_keys(given, command, ...)
      return real.call(command, ...)
    end,
    pcall = function(command, ...)
      check_keys(given, command, ...)
      return real.pcall(command, ...)
    end
  }, {__index = real})
end
local redis = checked(KEYS)
