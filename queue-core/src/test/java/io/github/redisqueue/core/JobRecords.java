package io.github.redisqueue.core;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redisqueue.core.script.QueueKeys;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;

/**
 * Reads and damages the records of a queue's jobs through the scripts' own record functions, for
 * tests that look under the hood.
 */
public final class JobRecords {

	@SuppressWarnings("rawtypes")
	private static final DefaultRedisScript<List> READ = new DefaultRedisScript<>(QueueScripts.withPrelude("""
			local out = {}
			local r = record(K_JOBS, ARGV[3])
			if not r then
			  local element = plain_find(tonumber(ARGV[3]) or -1)
			  local t = element and plain_fields(element)
			  r = t and plain_record(ARGV[3], t)
			end
			if r then
			  for i, name in ipairs(FIELDS[K_JOBS]) do
			    if r[i] and name ~= 'inlinePayload' then
			      out[#out + 1] = name
			      out[#out + 1] = r[i]
			    end
			  end
			end
			return out
			"""), List.class);

	// a plain job is first given the record and ready entry it has once it is not plain (as a job
	// with options has them from the start), so that its record can be damaged
	private static final String TO_RECORD = """
			local function to_record(id)
			  local element, index = plain_find(tonumber(id) or -1)
			  local t = element and plain_fields(element)
			  if not t then
			    return
			  end
			  redis.call('LSET', K_PLAIN, index, '~')
			  redis.call('LREM', K_PLAIN, 1, '~')
			  local r = plain_record(id, t)
			  jcreate(id, r, t[4])
			  redis.call('ZADD', K_READY, r[J.score], id)
			end
			""";

	private static final DefaultRedisScript<Long> WRITE = new DefaultRedisScript<>(QueueScripts.withPrelude(TO_RECORD
			+ """
					to_record(ARGV[3])
					if ARGV[4] == 'payload' then
					  -- the payload has a field of its own
					  jsave(ARGV[3], record(K_JOBS, ARGV[3]))
					  redis.call('HDEL', K_JOBS, pfield(ARGV[3]))
					  if ARGV[5] == '1' then redis.call('HSET', K_JOBS, pfield(ARGV[3]), ARGV[6]) end
					  return 1
					end
					rset(K_JOBS, ARGV[3], ARGV[4], false)
					if ARGV[5] == '1' then rset(K_JOBS, ARGV[3], ARGV[4], ARGV[6]) end
					return 1
					"""), Long.class);

	// a plain job's payload is rewritten in its element
	private static final DefaultRedisScript<Long> PAYLOAD = new DefaultRedisScript<>(QueueScripts.withPrelude("""
			local element, index = plain_find(tonumber(ARGV[3]) or -1)
			local t = element and plain_fields(element)
			if t then
			  redis.call('LSET', K_PLAIN, index, plain_element(ARGV[3], plain_prefix(t[1], t[2], t[3]), ARGV[4]))
			else
			  redis.call('HSET', K_JOBS, pfield(ARGV[3]), ARGV[4])
			end
			return 1
			"""), Long.class);

	// replaces a plain job's element as a whole (ARGV[5] = 0), or one field of it (ARGV[5] = position)
	private static final DefaultRedisScript<Long> ELEMENT = new DefaultRedisScript<>(QueueScripts.withPrelude("""
			local element, index = plain_find(tonumber(ARGV[3]) or -1)
			if not element then
			  return 0
			end
			local at = tonumber(ARGV[5])
			if at > 0 then
			  local t = plain_fields(element)
			  t[at] = ARGV[4]
			  redis.call('LSET', K_PLAIN, index, plain_element(ARGV[3], plain_prefix(t[1], t[2], t[3]), t[4]))
			else
			  redis.call('LSET', K_PLAIN, index, ARGV[4])
			end
			return 1
			"""), Long.class);

	private static final DefaultRedisScript<Long> DELETE = new DefaultRedisScript<>(QueueScripts.withPrelude(TO_RECORD
			+ """
					to_record(ARGV[3])
					redis.call('HDEL', K_JOBS, ARGV[3], pfield(ARGV[3]))
					return 1
					"""), Long.class);

	private final StringRedisTemplate redis;

	private final QueueKeys keys;

	public JobRecords(StringRedisTemplate redis, QueueTemplate queues, String queue) {
		this.redis = redis;
		this.keys = queues.keys(queue);
	}

	/** The fields of a job's record (payload apart), empty when there is none. */
	@SuppressWarnings("unchecked")
	public Map<String, String> fields(String id) {
		List<String> flat = this.redis.execute(READ, keys(), "", "", id);
		Map<String, String> fields = new LinkedHashMap<>();
		for (int i = 0; i + 1 < flat.size(); i += 2) {
			fields.put(flat.get(i), flat.get(i + 1));
		}
		return fields;
	}

	/**
	 * The reservation mark of a job (the field {@code <id>:a}): a flag ({@code a} reserved ahead and
	 * not started, {@code s} started; upper case without uniqueness key, batch or group) and the lease
	 * token of its latest reservation; {@code null} when it has none.
	 */
	public @Nullable String mark(String id) {
		return (String) this.redis.opsForHash().get(this.keys.key("jobs"), id + ":a");
	}

	/**
	 * Sets a field of a job's record, or removes it when {@code value} is {@code null}. A plain job
	 * gets its record first.
	 */
	public void put(String id, String field, @Nullable String value) {
		this.redis.execute(WRITE, keys(), "", "", id, field, (value != null) ? "1" : "0", (value != null) ? value : "");
	}

	/** Replaces a job's payload (in its element, for a plain job). */
	public void payload(String id, String payload) {
		this.redis.execute(PAYLOAD, keys(), "", "", id, payload);
	}

	/** Replaces the list element of a plain job; false when the job is not a plain one. */
	public boolean element(String id, String element) {
		return Long.valueOf(1).equals(this.redis.execute(ELEMENT, keys(), "", "", id, element, "0"));
	}

	/**
	 * Replaces one field of a plain job's element: 1 headers, 2 max attempts, 3 enqueue time, 4
	 * payload; false when the job is not a plain one.
	 */
	public boolean plainField(String id, int position, String value) {
		return Long.valueOf(1)
			.equals(this.redis.execute(ELEMENT, keys(), "", "", id, value, Integer.toString(position)));
	}

	/** Deletes a job's record (a plain job's element), as if lost. */
	public void delete(String id) {
		this.redis.execute(DELETE, keys(), "", "", id);
	}

	/** Whether a job has a record. */
	public boolean exists(String id) {
		return this.redis.opsForHash().hasKey(this.keys.key("jobs"), id);
	}

	/** How many jobs have a record (the fields of their payloads, '<id>:p', apart). */
	public long count() {
		return this.redis.opsForHash().keys(this.keys.key("jobs")).stream().filter((f) -> !((String) f).contains(":")).count();
	}

	private List<String> keys() {
		return this.keys.scriptKeys().stream().map((key) -> new String(key, StandardCharsets.UTF_8)).toList();
	}

}
