package io.github.redisqueue.core.engine;

import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;

import io.github.redisqueue.core.DurableEnqueue;
import io.github.redisqueue.core.JobEvents;
import io.github.redisqueue.core.JobOutcome;
import io.github.redisqueue.core.QueueScripts;
import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.core.partition.QueuePartitions;
import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.core.script.QueueRegistration;
import io.github.redisqueue.core.script.QueueScriptExecutor;
import io.github.redisqueue.support.converter.JobConversionException;
import io.github.redisqueue.support.converter.JobSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * What the parts of a template share: the connection, the script executor, the serializer, the
 * settings and partitioning, the registry of queue names, and where job outcomes are reported.
 * The template builds one and hands it to its parts (enqueue, reserve, batches, schedules,
 * administration), which reach the template through nothing else. Its warnings are logged under
 * the template's name, as they were before the parts were split out of it.
 */
public final class QueueContext {

	private static final Logger logger = LoggerFactory.getLogger("io.github.redisqueue.core.QueueTemplate");

	private final RedisConnectionFactory connectionFactory;

	private final QueueScriptExecutor executor;

	private final JobSerializer serializer;

	private final QueueSettings settings;

	private final QueuePartitions partitioning;

	private final QueueRegistration registry;

	private volatile JobEvents events = JobEvents.NONE;

	private volatile Duration enqueueTimeout;

	private volatile DurableEnqueue durableEnqueue = DurableEnqueue.OFF;

	public QueueContext(RedisConnectionFactory connectionFactory, JobSerializer serializer, QueueSettings settings,
			QueueScripts scripts, Duration enqueueTimeout) {
		this.connectionFactory = connectionFactory;
		this.serializer = serializer;
		this.settings = settings;
		this.enqueueTimeout = enqueueTimeout;
		this.executor = new QueueScriptExecutor(connectionFactory, scripts);
		this.registry = new QueueRegistration(this.executor, settings.keyPrefix());
		this.partitioning = new QueuePartitions(settings);
	}

	public RedisConnectionFactory connectionFactory() {
		return this.connectionFactory;
	}

	public QueueScriptExecutor executor() {
		return this.executor;
	}

	public JobSerializer serializer() {
		return this.serializer;
	}

	public QueueSettings settings() {
		return this.settings;
	}

	/** Which partitions a queue has, where its jobs go, and which partitions answer. */
	public QueuePartitions partitioning() {
		return this.partitioning;
	}

	/** The keys of every partition of a queue; see {@link QueuePartitions#partitions}. */
	public QueueKeys[] partitions(String queue) {
		return this.partitioning.partitions(queue);
	}

	/** The keys of the partition holding a job or batch id; see {@link QueuePartitions#keysFor}. */
	public QueueKeys keysFor(String queue, String id) {
		return this.partitioning.keysFor(queue, id);
	}

	public JobEvents events() {
		return this.events;
	}

	public void setEvents(JobEvents events) {
		this.events = events;
	}

	public Duration enqueueTimeout() {
		return this.enqueueTimeout;
	}

	public void setEnqueueTimeout(Duration enqueueTimeout) {
		this.enqueueTimeout = enqueueTimeout;
	}

	public DurableEnqueue durableEnqueue() {
		return this.durableEnqueue;
	}

	public void setDurableEnqueue(DurableEnqueue durableEnqueue) {
		this.durableEnqueue = durableEnqueue;
	}

	/** The registry of queue names and the layout check, shared with the reactive producer. */
	public QueueRegistration registry() {
		return this.registry;
	}

	/** Record the queue in the registry of queue names, once, after checking the layout version. */
	public void register(QueueKeys k) {
		this.registry.register(k);
	}

	/** Headers of a job; unreadable ones are logged and read as none. */
	public Map<String, String> headers(String queue, byte[] raw) {
		try {
			return this.serializer.deserializeHeaders(raw);
		}
		catch (JobConversionException ex) {
			logger.warn("Ignoring unreadable headers of a job in queue '{}': {}", queue, ex.getMessage());
			return Map.of();
		}
	}

	/** Tells the job events how many jobs of a queue met an outcome. */
	public void record(String queue, JobOutcome outcome, long count) {
		if (count > 0) {
			report(queue, (events) -> events.record(queue, outcome, count));
		}
	}

	/** Tells the job events how long a job of a queue waited ready. */
	public void waited(String queue, Duration wait) {
		if (this.events != JobEvents.NONE) {
			report(queue, (events) -> events.waited(queue, wait));
		}
	}

	/** A failing job events listener is logged; it never fails the call that reports to it. */
	private void report(String queue, Consumer<JobEvents> event) {
		try {
			event.accept(this.events);
		}
		catch (RuntimeException ex) {
			logger.warn("Job events listener failed for queue '{}'", queue, ex);
		}
	}

}
