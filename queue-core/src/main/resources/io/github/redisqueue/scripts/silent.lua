-- Lists the workers whose heartbeat ran out without a clean leave within the last hour (the
-- reaper finds their jobs through each queue's own record of its consumers).
-- KEYS[1] = sorted set of live workers, KEYS[2] = sorted set of silent workers (one hash tag).
move_silent(KEYS[1], KEYS[2], now_ms())
return redis.call('ZRANGE', KEYS[2], 0, -1)
