package io.github.redisqueue.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * What a batch builder collects, each value checked as it is given: shared by
 * {@link BatchBuilder} and {@link ReactiveBatchBuilder}, so that both refuse the same values with
 * the same messages.
 */
final class BatchDefinition {

	/** Characters a batch id given by the caller may use. */
	private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,100}");

	private int priority;

	private int maxConcurrency = QueueSettings.MAX_CONCURRENCY_CAP;

	private @Nullable String completionQueue;

	private @Nullable Object completionPayload;

	private @Nullable String id;

	private @Nullable Integer maxAttempts;

	private final Map<String, String> headers = new LinkedHashMap<>();

	private final List<Object> payloads = new ArrayList<>();

	void priority(int priority) {
		if (priority < JobOptions.MIN_PRIORITY || priority > JobOptions.MAX_PRIORITY) {
			throw new IllegalArgumentException("Priority " + priority + " is out of range: it must be from "
					+ JobOptions.MIN_PRIORITY + " to " + JobOptions.MAX_PRIORITY);
		}
		this.priority = priority;
	}

	void maxConcurrency(int maxConcurrency) {
		if (maxConcurrency < 1 || maxConcurrency > QueueSettings.MAX_CONCURRENCY_CAP) {
			throw new IllegalArgumentException("Batch concurrency " + maxConcurrency
					+ " is out of range: it must be from 1 to " + QueueSettings.MAX_CONCURRENCY_CAP);
		}
		this.maxConcurrency = maxConcurrency;
	}

	void onComplete(String queue, @Nullable Object payload) {
		this.completionQueue = QueueNames.validate(queue);
		this.completionPayload = payload;
	}

	void id(String id) {
		if (!ID.matcher(id).matches()) {
			throw new IllegalArgumentException("Batch id '" + JobOptions.Builder.abbreviate(id)
					+ "' is invalid: it must have 1 to 100 letters, digits, '.', '_', ':' or '-'");
		}
		this.id = id;
	}

	void maxAttempts(int maxAttempts) {
		this.maxAttempts = JobOptions.builder().maxAttempts(maxAttempts).build().getMaxAttempts();
	}

	void header(String name, String value) {
		JobOptions.builder().header(name, value);
		this.headers.put(name, value);
	}

	void add(Object payload) {
		this.payloads.add(Objects.requireNonNull(payload, "payload"));
	}

	int priority() {
		return this.priority;
	}

	int maxConcurrency() {
		return this.maxConcurrency;
	}

	@Nullable String completionQueue() {
		return this.completionQueue;
	}

	@Nullable Object completionPayload() {
		return this.completionPayload;
	}

	@Nullable String id() {
		return this.id;
	}

	@Nullable Integer maxAttempts() {
		return this.maxAttempts;
	}

	/** The headers as they are now. */
	Map<String, String> headers() {
		return Collections.unmodifiableMap(new LinkedHashMap<>(this.headers));
	}

	/** The payloads added so far. */
	List<Object> payloads() {
		return List.copyOf(this.payloads);
	}

}
