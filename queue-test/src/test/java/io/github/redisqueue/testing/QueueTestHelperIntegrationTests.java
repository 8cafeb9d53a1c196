package io.github.redisqueue.testing;

import java.time.Duration;
import java.util.List;

import io.github.redisqueue.config.QueueListenerEndpointRegistry;
import io.github.redisqueue.core.JobInfo;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobOrder;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.listener.QueueListenerContainer;
import io.github.redisqueue.testing.OrdersApplication.Handlers;
import io.github.redisqueue.testing.OrdersApplication.Order;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Each method of {@link QueueTestHelper} on an application under {@link QueueTest @QueueTest},
 * against the test Redis, with the messages of its failures.
 */
@QueueTest(classes = OrdersApplication.class, properties = "queue.listener.poll-interval=100ms")
class QueueTestHelperIntegrationTests {

	@Autowired
	private QueueTestHelper helper;

	@Autowired
	private QueueTemplate queues;

	@Autowired
	private Handlers handlers;

	@Autowired
	private StringRedisTemplate redis;

	@Autowired
	private Environment environment;

	@Autowired
	private QueueListenerEndpointRegistry registry;

	@BeforeEach
	void forgetHandledJobs() {
		this.handlers.orders.clear();
		this.handlers.invoices.clear();
	}

	@Test
	void theApplicationIsConnectedToTheTestRedis() {
		assertThat(this.environment.getProperty("spring.data.redis.port", Integer.class))
			.isEqualTo(TestRedis.shared().port());
		assertThat(this.redis.getConnectionFactory().getConnection().ping()).isEqualTo("PONG");
	}

	@Test
	void deleteQueueKeysEmptiesTheQueuesAndLeavesOtherKeys() {
		this.helper.pause("orders");
		this.queues.enqueue("orders", new Order("apple", 1));
		this.redis.opsForValue().set("app:setting", "kept");

		assertThat(this.helper.deleteQueueKeys()).isPositive();

		assertThat(this.helper.admin().counts("orders").pending()).isZero();
		assertThat(this.helper.admin().counts("orders").paused()).isFalse();
		// the registry of queue names stays: the template registers a queue once
		assertThat(this.helper.admin().queues()).contains("orders");
		assertThat(this.redis.opsForValue().get("app:setting")).isEqualTo("kept");
		this.redis.delete("app:setting");
	}

	@Test
	void awaitDrainedReturnsOnceTheListenerHandledEveryJob() {
		for (int i = 0; i < 5; i++) {
			this.queues.enqueue("orders", new Order("pear", i));
		}

		this.helper.awaitDrained("orders");

		assertThat(this.handlers.orders).extracting(Order::quantity).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
		assertThat(this.helper.admin().counts("orders").total("completed")).isEqualTo(5);
	}

	@Test
	void awaitDrainedFailsNamingWhatIsLeft() {
		this.helper.pause("orders");
		this.queues.enqueue("orders", new Order("plum", 1));

		assertThatThrownBy(() -> this.helper.awaitDrained("orders", Duration.ofMillis(300)))
			.isInstanceOf(AssertionError.class)
			.hasMessageContaining("Queue 'orders' not drained within PT0.3S")
			.hasMessageContaining("ready 1, in flight 0, delayed 0");
	}

	@Test
	void awaitDrainedWaitsForADelayedJobDueWithinTheTimeoutOnly() {
		this.queues.enqueue("orders", new Order("later", 1), JobOptions.builder().delay(Duration.ofHours(1)).build());
		assertThat(this.helper.awaitDrained("orders", Duration.ofSeconds(5)).delayed()).isEqualTo(1);

		this.queues.enqueue("orders", new Order("soon", 2), JobOptions.builder().delay(Duration.ofMillis(200)).build());
		this.helper.awaitDrained("orders", Duration.ofSeconds(10));
		assertThat(this.handlers.orders).extracting(Order::item).containsExactly("soon");
		assertThat(this.helper.admin().counts("orders").delayed()).isEqualTo(1);
	}

	@Test
	void awaitDrainedSeesADelayedJobThatBecomesReadyBetweenItsReads() {
		this.helper.pause("orders");
		this.queues.enqueue("orders", new Order("later", 1), JobOptions.builder().delay(Duration.ofHours(1)).build());
		String moved = this.queues
			.enqueue("orders", new Order("moved", 2), JobOptions.builder().delay(Duration.ofHours(1)).build())
			.id();
		// the job leaves the delayed jobs after the helper counted it there and before it reads the
		// first due time, as a job falling due at that moment does
		QueueAdmin admin = new QueueAdmin(this.queues) {
			@Override
			public List<JobInfo> jobs(String queue, JobState state, JobOrder order, int offset, int count) {
				promote(queue, moved);
				return super.jobs(queue, state, order, offset, count);
			}
		};
		QueueTestHelper racing = new QueueTestHelper(admin, this.registry);

		assertThatThrownBy(() -> racing.awaitDrained("orders", Duration.ofMillis(500)))
			.isInstanceOf(AssertionError.class)
			.hasMessageContaining("ready 1, in flight 0, delayed 1");
	}

	@Test
	void enqueuedShowsPayloadsOptionsAndHeadersWithoutTakingThem() {
		this.helper.pause("orders");
		this.queues.enqueue("orders", new Order("fig", 2),
				JobOptions.builder().priority(5).maxAttempts(4).header("tenant", "acme").build());
		this.queues.enqueue("orders", new Order("kiwi", 1), JobOptions.builder().delay(Duration.ofMinutes(5)).build());

		List<EnqueuedJob> jobs = this.helper.enqueued("orders");

		assertThat(jobs).extracting(EnqueuedJob::state).containsExactly(JobState.READY, JobState.DELAYED);
		EnqueuedJob first = jobs.get(0);
		assertThat(first.payload(Order.class)).isEqualTo(new Order("fig", 2));
		assertThat(first.priority()).isEqualTo(5);
		assertThat(first.maxAttempts()).isEqualTo(4);
		assertThat(first.headers()).containsEntry("tenant", "acme");
		assertThat(jobs.get(1).dueAt()).isAfter(this.helper.redisTime().plus(Duration.ofMinutes(4)));
		assertThat(this.helper.enqueuedPayloads("orders", Order.class)).containsExactly(new Order("fig", 2),
				new Order("kiwi", 1));
		// nothing was taken
		assertThat(this.helper.admin().counts("orders").ready()).isEqualTo(1);
		assertThat(this.handlers.orders).isEmpty();
	}

	@Test
	void runOneRunsTheListenerForOneJobOnTheTestThread() {
		this.queues.enqueue("invoices", new Order("desk", 1));
		this.queues.enqueue("invoices", new Order("chair", 4));

		JobRun run = this.helper.runOne("invoices");

		assertThat(run.completed()).isTrue();
		assertThat(run.state()).isEqualTo(JobState.COMPLETED);
		assertThat(run.error()).isNull();
		assertThat(this.handlers.invoices).containsExactly(new Order("desk", 1));
		assertThat(this.helper.enqueuedPayloads("invoices", Order.class)).containsExactly(new Order("chair", 4));
		assertThat(this.helper.runOneWith("invoices").id()).isNotEqualTo(run.id());
		assertThat(this.handlers.invoices).hasSize(2);
	}

	@Test
	void runOneReportsARetryAndADeadLetterWithTheError() {
		this.queues.enqueue("invoices", new Order("refuse-lamp", 1));

		JobRun first = this.helper.runOne("invoices");
		assertThat(first.retried()).isTrue();
		assertThat(first.state()).isEqualTo(JobState.DELAYED);
		assertThat(first.error()).contains("no billing address: refuse-lamp");

		this.helper.admin().promote("invoices", first.id());
		JobRun second = this.helper.runOne("invoices");
		assertThat(second.deadLettered()).isTrue();
		assertThat(second.id()).isEqualTo(first.id());
		assertThat(this.helper.deadLetters("invoices")).singleElement()
			.satisfies((dead) -> assertThat(dead.error()).contains("no billing address"));
		this.helper.expectDeadLetters("invoices");
	}

	@Test
	void runOneStopsARunningListenerUntilTheTestEnds() {
		QueueListenerContainer container = this.registry.getListenerContainer("orders");
		assertThat(container.isRunning()).isTrue();
		assertThatThrownBy(() -> this.helper.runOne("orders")).hasMessageStartingWith("No job ready in queue 'orders'");
		assertThat(container.isRunning()).isFalse();

		this.queues.enqueue("orders", new Order("bolt", 2));
		assertThat(this.helper.enqueued("orders")).hasSize(1);
		assertThat(this.helper.runOne("orders").completed()).isTrue();
		assertThat(this.handlers.orders).extracting(Order::item).containsExactly("bolt");

		this.helper.endTest();
		assertThat(container.isRunning()).isTrue();
	}

	@Test
	void runOneFailsWhenNoJobIsReadyOrNoListenerConsumesTheQueue() {
		assertThatThrownBy(() -> this.helper.runOne("invoices")).isInstanceOf(AssertionError.class)
			.hasMessageStartingWith("No job ready in queue 'invoices' for listener 'invoices'");
		assertThatThrownBy(() -> this.helper.runOne("nobody")).isInstanceOf(AssertionError.class)
			.hasMessage("No listener consumes queue 'nobody'");
		assertThatThrownBy(() -> this.helper.runOneWith("ghost")).isInstanceOf(AssertionError.class)
			.hasMessageStartingWith("No listener with id 'ghost'");
	}

	@Test
	@ExpectDeadLetters("orders")
	void anExpectedDeadLetterDoesNotFailTheTest() {
		this.queues.enqueue("orders", new Order("refuse-one", 1));
		this.helper.awaitDrained("orders");
		assertThat(this.helper.deadLetters("orders")).hasSize(1);
	}

}
