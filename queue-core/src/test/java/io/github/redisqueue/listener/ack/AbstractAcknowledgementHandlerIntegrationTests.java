package io.github.redisqueue.listener.ack;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.ExtendResult;
import io.github.redisqueue.core.FailResult;
import io.github.redisqueue.core.JobInfo;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.listener.Acknowledgement;
import io.github.redisqueue.listener.AcknowledgementMode;
import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.listener.fetch.RunningJob;
import io.github.redisqueue.listener.retry.FailureHandler;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A handler of one acknowledgement mode, on a job reserved from a real Redis as a container
 * holds it: started on this thread, completions batched, failures retried after a 10 s
 * back-off, and a dead-letter callback that records what it is told.
 */
abstract class AbstractAcknowledgementHandlerIntegrationTests extends AbstractRedisIntegrationTests {

	static final String QUEUE = "acks";

	static final String WORKER = "worker#handlers";

	CountingTemplate queues;

	// counts, jobs and dead letters
	QueueAdminOperations admin;

	AckBatcher acks;

	final Map<String, Throwable> deadLettered = new ConcurrentHashMap<>();

	// the handler under test
	AcknowledgementHandler handler;

	private final AcknowledgementMode mode;

	private final Class<? extends AcknowledgementHandler> handlerType;

	AbstractAcknowledgementHandlerIntegrationTests(AcknowledgementMode mode,
			Class<? extends AcknowledgementHandler> handlerType) {
		this.mode = mode;
		this.handlerType = handlerType;
	}

	@BeforeEach
	void createParts() {
		this.queues = new CountingTemplate(this.connectionFactory);
		this.admin = new QueueAdmin(this.queues);
		this.acks = new AckBatcher(this.queues, QUEUE);
		this.deadLettered.clear();
		this.handler = handler(this.mode);
	}

	@Test
	void modeSelectsItsHandler() {
		assertThat(this.handler).isInstanceOf(this.handlerType);
	}

	@AfterEach
	void clearInterrupt() {
		Thread.interrupted();
	}

	AcknowledgementHandler handler(AcknowledgementMode mode) {
		ContainerOptions options = ContainerOptions.builder()
			.backOff(Duration.ofSeconds(10), 2.0, Duration.ofSeconds(10))
			.build();
		FailureHandler failures = new FailureHandler(this.queues, QUEUE, options,
				(job, cause) -> this.deadLettered.put(job.id(), cause));
		return AcknowledgementHandler.of(mode, QUEUE, this.queues, this.acks, failures);
	}

	RunningJob reserve(JobOptions options) {
		this.queues.enqueue(QUEUE, "work", options);
		ReservedJob job = this.queues.reserveBatch(QUEUE, 1, Duration.ofSeconds(30), WORKER).jobs().get(0);
		RunningJob running = new RunningJob(job);
		running.started(Thread.currentThread());
		return running;
	}

	RunningJob reserve() {
		return reserve(JobOptions.defaults());
	}

	/** Lose the job's lease, as the lease keeper does when an extension is refused. */
	static void loseLease(RunningJob job) {
		job.loseLease();
		Thread.interrupted(); // the handler thread is this test's
	}

	/** The job in Redis; empty once it completed. */
	Optional<JobInfo> info(RunningJob job) {
		return this.admin.job(QUEUE, job.job().id());
	}

	/** The job's state in Redis; empty once it completed. */
	Optional<JobState> state(RunningJob job) {
		return info(job).map(JobInfo::state);
	}

	long total(String name) {
		return this.admin.counts(QUEUE).total(name);
	}

	/** A template that counts the failures it is asked to record. */
	static final class CountingTemplate extends QueueTemplate {

		final AtomicInteger failureCalls = new AtomicInteger();

		CountingTemplate(RedisConnectionFactory connectionFactory) {
			super(connectionFactory);
		}

		@Override
		public FailResult retry(String queue, JobRef job, String error, Duration delay) {
			this.failureCalls.incrementAndGet();
			return super.retry(queue, job, error, delay);
		}

		@Override
		public FailResult deadLetter(String queue, JobRef job, String error) {
			this.failureCalls.incrementAndGet();
			return super.deadLetter(queue, job, error);
		}

	}

	/** The handle a listener settles its job with (complete and release are all these tests use). */
	static final class ListenerAcknowledgement implements Acknowledgement {

		private final QueueTemplate queues;

		private final RunningJob job;

		private volatile boolean settled;

		ListenerAcknowledgement(QueueTemplate queues, RunningJob job) {
			this.queues = queues;
			this.job = job;
		}

		@Override
		public AckResult complete() {
			settle();
			return this.queues.complete(QUEUE, this.job.job().ref());
		}

		@Override
		public AckResult release() {
			settle();
			return this.queues.release(QUEUE, this.job.job().ref());
		}

		@Override
		public FailResult retry(String error) {
			throw new UnsupportedOperationException();
		}

		@Override
		public FailResult deadLetter(String error) {
			throw new UnsupportedOperationException();
		}

		@Override
		public ExtendResult extend(Duration lease) {
			throw new UnsupportedOperationException();
		}

		@Override
		public boolean progress(Object progress) {
			throw new UnsupportedOperationException();
		}

		@Override
		public boolean isSettled() {
			return this.settled;
		}

		private void settle() {
			this.settled = true;
			this.job.stopExtending();
		}

	}

}
