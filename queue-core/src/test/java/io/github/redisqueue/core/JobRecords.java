package io.github.redisqueue.core;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
			if r then
			  for i, name in ipairs(FIELDS[K_JOBS]) do
			    if r[i] then
			      out[#out + 1] = name
			      out[#out + 1] = r[i]
			    end
			  end
			end
			return out
			"""), List.class);

	private static final DefaultRedisScript<Long> WRITE = new DefaultRedisScript<>(QueueScripts.withPrelude("""
			rset(K_JOBS, ARGV[3], ARGV[4], false)
			if ARGV[5] == '1' then rset(K_JOBS, ARGV[3], ARGV[4], ARGV[6]) end
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

	/** Sets a field of a job's record, or removes it when {@code value} is {@code null}. */
	public void put(String id, String field, @Nullable String value) {
		this.redis.execute(WRITE, keys(), "", "", id, field, (value != null) ? "1" : "0", (value != null) ? value : "");
	}

	/** Replaces a job's payload. */
	public void payload(String id, String payload) {
		this.redis.opsForHash().put(this.keys.key("payloads"), id, payload);
	}

	/** Deletes a job's record and payload, as if lost. */
	public void delete(String id) {
		this.redis.opsForHash().delete(this.keys.key("jobs"), id);
		this.redis.opsForHash().delete(this.keys.key("payloads"), id);
	}

	/** Whether a job has a record. */
	public boolean exists(String id) {
		return this.redis.opsForHash().hasKey(this.keys.key("jobs"), id);
	}

	/** How many jobs have a record. */
	public long count() {
		return this.redis.opsForHash().size(this.keys.key("jobs"));
	}

	private List<String> keys() {
		return this.keys.scriptKeys().stream().map((key) -> new String(key, StandardCharsets.UTF_8)).toList();
	}

	/** How many jobs have a payload. */
	public long payloads() {
		return this.redis.opsForHash().size(this.keys.key("payloads"));
	}

}
