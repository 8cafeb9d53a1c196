-- common-keys.lua: the first module of the shared prelude of the queue scripts. The prelude is
-- the files common-*.lua, concatenated in the order QueueScripts lists them: keys, history, records,
-- sequence, plain, jobs, wake, unique, gates, leases, transitions. Each module uses only what it
-- defines itself (above the use) or what modules before it define, since a Lua function sees a
-- local only when the local is defined before the function. Each script is sent clock.lua, the
-- top-level definitions of the modules that its own file reaches (see ScriptPrelude: a
-- definition starts at a line that begins with 'local' or 'do') and its own file; a module's
-- comments before its first definition, such as this contract, are not sent. All modules
-- together define about 150 top-level locals, under Lua's 200 per function (a script's own
-- top-level locals count too; the Functions library holds all of them at once).
-- The same files make the Functions library (ScriptLibrary), where the prelude runs once, when the
-- library loads, and a top-level statement runs again at each call only when it holds the call's
-- state: it reads KEYS or ARGV or a name such a statement defines, or its name is assigned (or its
-- table written) anywhere else, or it is a 'do' block. So a table that a call fills must be assigned
-- or written by name somewhere (never only through another name), and a statement that runs once
-- may call no function (the library's load has no redis.call, pairs or setmetatable).
-- Defines: the KEYS locals K_READY .. K_HISTORY below, CHANNEL (ARGV[1]), ID_STEP, ID_OFFSET
-- and PARTITIONED (from ARGV[2]), FIXED_KEYS, and the limits MAX_GATE_CAP, WAKE_CAP, MAX_SEQ,
-- MAX_UNIQUE_TTL, SLICE, SLICE_BYTES, PAYLOAD_BUDGET and AHEAD_FACTOR.
-- Relies on: KEYS and ARGV only.
--
-- KEYS (same order for every script; all share the queue's hash tag). A script reads and writes
-- these keys only (and keys it is given after them), never a key named after data it read:
--   1 ready     sorted set, score = priority band + sequence (lowest first)
--   2 delayed   sorted set, score = due time (ms, server clock); members are job ids left-padded
--               with zeros to 16 digits, so that jobs due in the same ms come out in id order
--   3 inflight  sorted set, score = lease deadline (ms, server clock)
--   4 dead      sorted set, score = time of death (ms)
--   5 done      sorted set, score = completion time (ms); only while completed jobs are retained
--   6 expiry    sorted set, score = expiry time of jobs enqueued with an expiry
--   7 wake      list; one element per pending wake-up for blocked consumers
--   8 seq       string counter; job ids and FIFO order
--   9 paused    string flag; present while the queue is paused
--  10 stats     hash of counters (fields starting with '~' are internal; '~rate' is the window of
--               a rate-limited queue, see reserve.lua)
--  11 woken     list that blocked consumers move wake-ups into; cleared by reserve
--  12 live      sorted set of the workers consuming the queue, score = heartbeat deadline (ms)
--  13 jobs      hash, job id -> the job's record (see FIELDS), and job id ':p' -> its payload: a
--               change of a job's state reads and writes its small record only, never its payload
--  14 ready:plain  list of the plain jobs that are ready, in id order: a job of the default
--               priority enqueued ready with no option that needs its record (no uniqueness,
--               idempotency, group, expiry or batch) is one element here, its id, ':' and a
--               MessagePack array of its headers, max attempts, enqueue time and payload, and has no
--               record until it is reserved (see plain_element)
--  15 unique    hash, uniqueness key -> id of the job holding it
--  16 unique:until  sorted set, uniqueness key -> when it lapses (ms; keys kept after completion)
--  17 batches   sorted set of open batches, score = creation time
--  18 batches:done  sorted set of finished batches whose completion job is not handed off yet
--  19 gates     hash, gate id (see gate_id) -> record of a batch or a group, like a job's
--  20 gates:wait  sorted set, all scores 0: per job waiting at a gate, its gate id and its padded
--               id, so that a lexical range holds one gate's waiting jobs in FIFO order
--  21 batches:jobs  sorted set, all scores 0: per sub-job its batch's gate id and padded id
--  22 batches:until  sorted set, batch id -> when the record of a finished batch lapses (ms)
--  23 history   string, completed and failed per minute of the last 24 hours (common-history)
-- Scripts that take more keys (enqueue: idempotency keys) find them from KEYS[24] on.
-- ARGV[1] is the pub/sub channel on which the ids of finished batches are published, ARGV[2] is
-- empty for a queue of one partition and 'count:index' for a partition of a partitioned queue;
-- the script's own arguments start at ARGV[3].
--
-- Rules every script keeps: it validates what it reads before it writes (Redis keeps the writes a
-- script made before an error), a job record with a missing or non-numeric field is dead-lettered
-- with the reason instead of failing the call, and every loop is bounded by an argument.
local K_READY, K_DELAYED, K_INFLIGHT, K_DEAD = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local K_DONE, K_EXPIRY, K_WAKE, K_SEQ, K_PAUSED, K_STATS = KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10]
local K_WOKEN, K_LIVE, K_JOBS, K_PLAIN = KEYS[11], KEYS[12], KEYS[13], KEYS[14]
local K_UNIQUE, K_UNIQUE_UNTIL, K_BATCHES, K_BATCHES_DONE = KEYS[15], KEYS[16], KEYS[17], KEYS[18]
local K_GATES, K_GATE_WAIT, K_BATCH_JOBS, K_BATCHES_UNTIL = KEYS[19], KEYS[20], KEYS[21], KEYS[22]
local K_HISTORY = KEYS[23]
local CHANNEL = ARGV[1]
-- a partition's ids and ready order: sequence x ID_STEP + ID_OFFSET, so that a job id names its
-- partition (id modulo the partition count) and ids never repeat across partitions
local ID_STEP, ID_OFFSET = 1, 0
do
  local step, offset = string.match(ARGV[2] or '', '^(%d+):(%d+)$')
  if step then
    ID_STEP, ID_OFFSET = tonumber(step), tonumber(offset)
  end
end
-- consumers of a partitioned queue wait on pub/sub instead of blocking on K_WAKE
local PARTITIONED = ID_STEP > 1
local FIXED_KEYS = 23
-- most jobs one batch or group may have admitted (within its cap) at once
local MAX_GATE_CAP = 1000
local WAKE_CAP = 8
-- sequence numbers stay below 10^12 so that priority bands never overlap
local MAX_SEQ = 999999999999
-- longest uniqueness window kept after completion: 3650 days
local MAX_UNIQUE_TTL = 315360000000
-- in-flight entries one call walks when it looks for the jobs of a worker, and the most bytes of
-- records it reads doing so (a record still in layout 4 holds its payload)
local SLICE, SLICE_BYTES = 100, 32768
-- the most payload bytes one call reads to hand out or list jobs (it always takes one job)
local PAYLOAD_BUDGET = 65536
-- losses of a job that was only reserved ahead dead-letter it at this many times its max attempts
local AHEAD_FACTOR = 3
