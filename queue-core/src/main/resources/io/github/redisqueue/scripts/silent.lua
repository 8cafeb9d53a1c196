-- Lists the workers whose heartbeat ran out without a clean leave, so that the reaper can hand
-- out their jobs again; ARGV[1] = 'forget' removes the workers named in ARGV[2..] instead.
-- KEYS[1] = sorted set of live workers, KEYS[2] = sorted set of silent workers (one hash tag).
if ARGV[1] == 'forget' then
  for i = 2, #ARGV do
    redis.call('ZREM', KEYS[2], ARGV[i])
  end
  return {}
end
move_silent(KEYS[1], KEYS[2], now_ms())
return redis.call('ZRANGE', KEYS[2], 0, -1)
