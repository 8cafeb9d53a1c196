package io.github.redisqueue.core;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;

/**
 * Reads and damages the records of a queue's jobs the way the scripts store them (one hash of
 * MessagePack maps, one hash of payloads), for tests that look under the hood.
 */
public final class JobRecords {

	@SuppressWarnings("rawtypes")
	private static final DefaultRedisScript<List> READ = new DefaultRedisScript<>("""
			local raw = redis.call('HGET', KEYS[1], ARGV[1])
			if not raw then return {} end
			local out = {}
			for name, value in pairs(cmsgpack.unpack(raw)) do
			  out[#out + 1] = name
			  out[#out + 1] = tostring(value)
			end
			return out
			""", List.class);

	private static final DefaultRedisScript<Long> WRITE = new DefaultRedisScript<>("""
			local raw = redis.call('HGET', KEYS[1], ARGV[1])
			local r = raw and cmsgpack.unpack(raw) or {}
			if ARGV[3] == '1' then r[ARGV[2]] = ARGV[4] else r[ARGV[2]] = nil end
			redis.call('HSET', KEYS[1], ARGV[1], cmsgpack.pack(r))
			return 1
			""", Long.class);

	private final StringRedisTemplate redis;

	private final QueueKeys keys;

	public JobRecords(StringRedisTemplate redis, QueueTemplate queues, String queue) {
		this.redis = redis;
		this.keys = queues.keys(queue);
	}

	/** The fields of a job's record (payload apart), empty when there is none. */
	@SuppressWarnings("unchecked")
	public Map<String, String> fields(String id) {
		List<String> flat = this.redis.execute(READ, List.of(this.keys.key("jobs")), id);
		Map<String, String> fields = new LinkedHashMap<>();
		for (int i = 0; i + 1 < flat.size(); i += 2) {
			fields.put(flat.get(i), flat.get(i + 1));
		}
		return fields;
	}

	/** Sets a field of a job's record, or removes it when {@code value} is {@code null}. */
	public void put(String id, String field, @Nullable String value) {
		this.redis.execute(WRITE, List.of(this.keys.key("jobs")), id, field, (value != null) ? "1" : "0",
				(value != null) ? value : "");
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

	/** How many jobs have a payload. */
	public long payloads() {
		return this.redis.opsForHash().size(this.keys.key("payloads"));
	}

}
