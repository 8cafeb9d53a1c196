package io.github.redisqueue.autoconfigure;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Map;

import io.github.redisqueue.autoconfigure.QueueProperties.Queue;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.MissedTicks;
import io.github.redisqueue.core.QueueNames;
import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.core.RateLimit;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.schedule.RecurringJobDefinition;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.support.CronExpression;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;

/**
 * The checks behind {@link QueueProperties#validate}: every value the engine or a listener
 * container could not work with is refused while the properties are bound, so the application
 * does not start, and the failure names the property, its value and the allowed range.
 */
final class QueuePropertiesValidator {

	/** Most jobs one reserve call may return, hence concurrency plus prefetch of one listener. */
	static final int MAX_RESERVE = QueueTemplate.MAX_RESERVE;

	static final int MAX_CONCURRENCY = ContainerOptions.MAX_CONCURRENCY;

	static final int MAX_BATCH = QueueSettings.MAX_BATCH;

	static final int MAX_GROUP_CONCURRENCY = QueueSettings.MAX_CONCURRENCY_CAP;

	static final int MAX_WORKER_ID_LENGTH = 200;

	static final Duration MIN_LEASE = ContainerOptions.MIN_LEASE;

	static final Duration MAX_LEASE = QueueTemplate.MAX_LEASE;

	static final Duration MIN_POLL_INTERVAL = ContainerOptions.MIN_POLL_INTERVAL;

	static final Duration MAX_POLL_INTERVAL = ContainerOptions.MAX_POLL_INTERVAL;

	private final Errors errors;

	private QueuePropertiesValidator(Errors errors) {
		this.errors = errors;
	}

	static void validate(QueueProperties properties, Errors errors) {
		new QueuePropertiesValidator(errors).check(properties);
	}

	private void check(QueueProperties properties) {
		try {
			QueueNames.validatePrefix(properties.getKeyPrefix());
		}
		catch (IllegalArgumentException ex) {
			reject("key-prefix", properties.getKeyPrefix(), "it must have 1 to " + QueueNames.MAX_LENGTH
					+ " characters, letters, digits, '.', '_' or '-', and start with a letter or digit");
		}
		String workerId = properties.getWorkerId();
		if (workerId != null && (workerId.isBlank() || workerId.length() > MAX_WORKER_ID_LENGTH
				|| workerId.indexOf('#') >= 0)) {
			reject("worker-id", workerId,
					"it must have 1 to " + MAX_WORKER_ID_LENGTH + " characters, not be blank and have no '#'");
		}
		range("default-max-attempts", properties.getDefaultMaxAttempts(), 1, JobOptions.MAX_ATTEMPTS_LIMIT);
		range("reaper.batch", properties.getReaper().getBatch(), 1, MAX_BATCH);
		range("enqueue-timeout", properties.getEnqueueTimeout(), Duration.ofMillis(1), Duration.ofMinutes(10));
		range("durable-enqueue.replicas", properties.getDurableEnqueue().getReplicas(), 0, 100);
		range("durable-enqueue.timeout", properties.getDurableEnqueue().getTimeout(), Duration.ofMillis(1),
				Duration.ofMinutes(1));
		size("max-payload-size", properties.getMaxPayloadSize());
		size("max-result-size", properties.getMaxResultSize());
		range("result-retention", properties.getResultRetention(), Duration.ZERO, JobOptions.MAX_WINDOW);
		range("batch-retention", properties.getBatchRetention(), Duration.ofMillis(1), JobOptions.MAX_WINDOW);
		range("default-group-concurrency", properties.getDefaultGroupConcurrency(), 1, MAX_GROUP_CONCURRENCY);
		QueueListenerProperties listener = properties.getListener();
		checkListener("listener", listener);
		int concurrency = orDefault(listener.getConcurrency(), ContainerOptions.DEFAULT_CONCURRENCY);
		reserveTotal("listener", concurrency, listener.getPrefetch(),
				(listener.getPrefetch() != null) ? "listener.prefetch" : "listener.concurrency");
		for (Map.Entry<String, Queue> entry : properties.getQueues().entrySet()) {
			checkQueue(entry.getKey(), entry.getValue(), concurrency, listener.getPrefetch());
		}
		properties.getSchedules().forEach(this::checkSchedule);
	}

	/** A recurring job: a cron expression, a valid queue name, a known zone and missed-tick policy. */
	private void checkSchedule(String name, QueueProperties.Schedule schedule) {
		String path = "schedules[" + name + "]";
		if (name.isBlank() || name.length() > RecurringJobDefinition.MAX_NAME_LENGTH) {
			this.errors.reject("queue.schedule.invalid", "queue.schedules.[" + name
					+ "] has an invalid name: it must have 1 to " + RecurringJobDefinition.MAX_NAME_LENGTH + " characters");
			return;
		}
		String cron = schedule.getCron();
		if (cron == null || cron.isBlank()) {
			reject(path + ".cron", "nothing", "a cron expression is required (six fields, seconds first, e.g. '0 * * * * *')");
		}
		else if (!CronExpression.isValidExpression(cron)) {
			reject(path + ".cron", "'" + cron + "'",
					"it is not a valid cron expression (six fields, seconds first: second minute hour day-of-month month day-of-week, e.g. '0 * * * * *')");
		}
		String queue = schedule.getQueue();
		if (queue == null || queue.isBlank()) {
			reject(path + ".queue", "nothing", "the queue the jobs go to is required");
		}
		else if (!validQueueName(queue)) {
			reject(path + ".queue", "'" + queue + "'", "a queue name has 1 to " + QueueNames.MAX_LENGTH
					+ " characters, letters, digits, '.', '_' or '-', and starts with a letter or digit");
		}
		String zone = schedule.getZone();
		if (zone != null) {
			try {
				ZoneId.of(zone);
			}
			catch (DateTimeException ex) {
				reject(path + ".zone", "'" + zone + "'", "it is not a time zone (use a region such as Europe/Paris, or an offset such as +02:00 or UTC)");
			}
		}
		try {
			MissedTicks.of(schedule.getMissed());
		}
		catch (IllegalArgumentException ex) {
			reject(path + ".missed", "'" + schedule.getMissed() + "'", "it must be fire-once or skip");
		}
		range(path + ".grace", schedule.getGrace(), Duration.ZERO, Duration.ofDays(1));
	}

	private void checkListener(String path, QueueListenerProperties settings) {
		range(path + ".concurrency", settings.getConcurrency(), 1, MAX_CONCURRENCY);
		range(path + ".prefetch", settings.getPrefetch(), 0, MAX_RESERVE);
		range(path + ".lease", settings.getLease(), MIN_LEASE, MAX_LEASE);
		range(path + ".poll-interval", settings.getPollInterval(), MIN_POLL_INTERVAL, MAX_POLL_INTERVAL);
		notNegative(path + ".shutdown-timeout", settings.getShutdownTimeout());
		range(path + ".max-attempts", settings.getMaxAttempts(), 1, JobOptions.MAX_ATTEMPTS_LIMIT);
	}

	private void checkQueue(String queue, Queue settings, int baseConcurrency, @Nullable Integer basePrefetch) {
		String path = "queues[" + queue + "]";
		try {
			QueueNames.validate(queue);
		}
		catch (IllegalArgumentException ex) {
			this.errors.reject("queue.name.invalid", "queue.queues.[" + queue + "] names an invalid queue '" + queue
					+ "': a queue name has 1 to " + QueueNames.MAX_LENGTH
					+ " characters, letters, digits, '.', '_' or '-', and starts with a letter or digit");
			return;
		}
		checkListener(path, settings);
		range(path + ".group-concurrency", settings.getGroupConcurrency(), 1, MAX_GROUP_CONCURRENCY);
		range(path + ".partitions", settings.getPartitions(), 1, QueueSettings.MAX_PARTITIONS);
		if (settings.getRateLimit() != null) {
			try {
				RateLimit.parse(settings.getRateLimit());
				if (settings.getPartitions() > 1) {
					reject(path + ".rate-limit", settings.getRateLimit(), "a partitioned queue cannot have a rate "
							+ "limit (its partitions keep no common window); remove it or the partitions");
				}
			}
			catch (IllegalArgumentException ex) {
				reject(path + ".rate-limit", "'" + settings.getRateLimit() + "'", "it must be <permits>/<window>, "
						+ "permits from 1 to " + RateLimit.MAX_PERMITS + " and a window of a whole number and a unit "
						+ "ms, s, m, h or d from 1ms to 1d, for example 100/1s or 1000/1m");
			}
		}
		if (settings.getConcurrency() != null || settings.getPrefetch() != null) {
			int concurrency = orDefault(settings.getConcurrency(), baseConcurrency);
			Integer prefetch = (settings.getPrefetch() != null) ? settings.getPrefetch() : basePrefetch;
			reserveTotal(path, concurrency, prefetch,
					path + ((settings.getPrefetch() != null) ? ".prefetch" : ".concurrency"));
		}
	}

	private static boolean validQueueName(String queue) {
		try {
			QueueNames.validate(queue);
			return true;
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
	}

	private static int orDefault(@Nullable Integer value, int fallback) {
		return (value != null) ? value : fallback;
	}

	/** One listener reserves up to concurrency + prefetch per call (an unset prefetch adapts up to its ceiling). */
	private void reserveTotal(String path, int concurrency, @Nullable Integer prefetch, String field) {
		if (concurrency < 1 || concurrency > MAX_CONCURRENCY || (prefetch != null && (prefetch < 0 || prefetch > MAX_RESERVE))) {
			return;
		}
		int effectivePrefetch = (prefetch != null) ? prefetch : ContainerOptions.adaptivePrefetchCeiling(concurrency);
		long total = (long) concurrency + effectivePrefetch;
		if (total > MAX_RESERVE) {
			reject(field, field.endsWith(".prefetch") ? effectivePrefetch : concurrency,
					"a listener's concurrency + prefetch (an unset prefetch adapts up to 16 per thread, at most 256) must be at most "
							+ MAX_RESERVE + ", here " + concurrency + " + " + effectivePrefetch + " = " + total);
		}
	}

	private void range(String field, @Nullable Integer value, int min, int max) {
		if (value != null && (value < min || value > max)) {
			reject(field, value, "it must be from " + min + " to " + max);
		}
	}

	private void range(String field, @Nullable Duration value, Duration min, Duration max) {
		if (value != null && (value.compareTo(min) < 0 || value.compareTo(max) > 0)) {
			reject(field, value, "it must be from " + text(min) + " to " + text(max));
		}
	}

	/** A size in bytes that the engine keeps in an int. */
	private void size(String field, DataSize value) {
		if (value.toBytes() < 1 || value.toBytes() > Integer.MAX_VALUE) {
			reject(field, value, "it must be from 1B to " + Integer.MAX_VALUE + "B");
		}
	}

	private void notNegative(String field, @Nullable Duration value) {
		if (value != null && value.isNegative()) {
			reject(field, value, "it must be 0s or more");
		}
	}

	private void reject(String field, Object value, String rule) {
		String property = "queue." + field.replace("queues[", "queues.[").replace("schedules[", "schedules.[");
		this.errors.rejectValue(field, "queue.property.invalid", new Object[] { value, rule },
				property + " is " + value + ": " + rule);
	}

	private static String text(Duration duration) {
		if (duration.isZero()) {
			return "0s";
		}
		if (duration.toMillis() % 86_400_000 == 0) {
			return duration.toDays() + "d";
		}
		if (duration.toMillis() % 60_000 == 0) {
			return duration.toMinutes() + "m";
		}
		if (duration.toMillis() % 1000 == 0) {
			return duration.toSeconds() + "s";
		}
		return duration.toMillis() + "ms";
	}

}
