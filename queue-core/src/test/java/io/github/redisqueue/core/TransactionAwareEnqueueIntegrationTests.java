package io.github.redisqueue.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.listener.QueueListenerContainer;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Enqueues of a transaction-aware template inside a Spring transaction (a real
 * {@link DataSourceTransactionManager} on H2): nothing reaches Redis before the commit, the jobs
 * are enqueued once after it, none after a rollback, and a handler always finds the rows the
 * transaction wrote.
 */
class TransactionAwareEnqueueIntegrationTests extends AbstractRedisIntegrationTests {

	private static final String QUEUE = "orders";

	private final DriverManagerDataSource dataSource = new DriverManagerDataSource(
			"jdbc:h2:mem:transaction-aware-enqueue;DB_CLOSE_DELAY=-1", "sa", "");

	private final JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);

	private final TransactionTemplate transactions = new TransactionTemplate(
			new DataSourceTransactionManager(this.dataSource));

	private QueueTemplate queues;

	private QueueAdmin admin;

	private QueueListenerContainer container;

	@BeforeAll
	void createTable() {
		this.jdbc.execute("create table orders (id bigint primary key, item varchar(100) not null)");
	}

	@BeforeEach
	void setUp() {
		this.jdbc.update("delete from orders");
		this.queues = new QueueTemplate(this.connectionFactory);
		this.queues.setTransactionAware(true);
		this.admin = new QueueAdmin(this.queues);
	}

	@AfterEach
	void tearDown() {
		if (this.container != null) {
			this.container.stop();
			this.container = null;
		}
		this.queues.destroy();
	}

	@Test
	void rollbackEnqueuesNothing() {
		this.transactions.executeWithoutResult((status) -> {
			this.jdbc.update("insert into orders values (1, 'book')");
			assertThat(this.queues.enqueue(QUEUE, 1L)).isEqualTo(EnqueueResult.DEFERRED);
			status.setRollbackOnly();
		});

		assertThat(this.jdbc.queryForObject("select count(*) from orders", Long.class)).isZero();
		assertThat(this.admin.counts(QUEUE).pending()).isZero();
		assertThat(this.admin.counts(QUEUE).total("enqueued")).isZero();
	}

	@Test
	void commitEnqueuesOnceAndNothingBefore() {
		this.transactions.executeWithoutResult((status) -> {
			this.jdbc.update("insert into orders values (1, 'book')");
			EnqueueResult result = this.queues.enqueue(QUEUE, 1L);
			assertThat(result.deferred()).isTrue();
			assertThat(result.id()).isNull();
			assertThatIllegalStateException().isThrownBy(result::requireId).withMessageContaining("deferred");
			assertThat(this.queues.enqueueAll(QUEUE, List.of(2L, 3L), JobOptions.defaults()))
				.containsExactly(EnqueueResult.DEFERRED, EnqueueResult.DEFERRED);
			assertThat(this.admin.counts(QUEUE).total("enqueued")).as("jobs in Redis before the commit").isZero();
		});

		QueueCounts counts = this.admin.counts(QUEUE);
		assertThat(counts.ready()).isEqualTo(3);
		assertThat(counts.total("enqueued")).isEqualTo(3);
		assertThat(this.queues.reserve(QUEUE, 10, Duration.ofMinutes(1), Long.class).stream().map(Job::payload))
			.as("in call order").containsExactly(1L, 2L, 3L);
	}

	@Test
	void outsideATransactionTheEnqueueRunsAtOnce() {
		EnqueueResult result = this.queues.enqueue(QUEUE, 1L);

		assertThat(result.deferred()).isFalse();
		assertThat(this.admin.job(QUEUE, result.id())).isPresent();
	}

	@Test
	void templateThatIsNotTransactionAwareEnqueuesBeforeTheCommitAndAConsumerMissesTheRow() {
		this.queues.setTransactionAware(false);
		this.transactions.executeWithoutResult((status) -> {
			this.jdbc.update("insert into orders values (1, 'book')");
			assertThat(this.queues.enqueue(QUEUE, 1L).deferred()).isFalse();
			// the job is there before the commit: a consumer on another connection reads no row
			Job<Long> job = this.queues.reserve(QUEUE, 1, Duration.ofMinutes(1), Long.class).get(0);
			assertThat(CompletableFuture.supplyAsync(() -> rows(job.payload())).join()).isZero();
		});
	}

	@Test
	void handlerFindsTheRowsTheTransactionCommitted() {
		Map<Long, Long> rowsSeen = new ConcurrentHashMap<>();
		this.container = new QueueListenerContainer("tx", QUEUE, this.queues, (job, ack) -> {
			long order = this.queues.readPayload(job, Long.class);
			rowsSeen.put(order, rows(order));
		}, ContainerOptions.builder().concurrency(4).pollInterval(Duration.ofMillis(50)).build(), null, null);
		this.container.start();

		for (long order = 1; order <= 20; order++) {
			long id = order;
			this.transactions.executeWithoutResult((status) -> {
				this.jdbc.update("insert into orders values (?, 'book')", id);
				this.queues.enqueue(QUEUE, id);
				// more work in the transaction after the enqueue, while the handlers poll
				this.jdbc.queryForObject("select count(*) from orders", Long.class);
			});
		}

		await().atMost(Duration.ofSeconds(30)).until(() -> rowsSeen.size() == 20);
		assertThat(rowsSeen.values()).as("rows each handler found").containsOnly(1L);
		assertThat(this.admin.counts(QUEUE).total("enqueued")).isEqualTo(20);
	}

	@Test
	void badPayloadFailsInsideTheTransactionAndRollsItBack() {
		QueueTemplate small = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().maxPayloadBytes(16).build());
		small.setTransactionAware(true);
		try {
			assertThatThrownBy(() -> this.transactions.executeWithoutResult((status) -> {
				this.jdbc.update("insert into orders values (1, 'book')");
				small.enqueue(QUEUE, "a payload longer than sixteen bytes");
			})).isInstanceOf(PayloadTooLargeException.class);
		}
		finally {
			small.destroy();
		}

		assertThat(this.jdbc.queryForObject("select count(*) from orders", Long.class)).isZero();
		assertThat(this.admin.counts(QUEUE).total("enqueued")).isZero();
	}

	@Test
	void innerTransactionOfItsOwnEnqueuesAtItsCommitWhateverTheOuterOneDoes() {
		TransactionTemplate inner = new TransactionTemplate(this.transactions.getTransactionManager());
		inner.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.transactions.executeWithoutResult((status) -> {
			this.queues.enqueue(QUEUE, 1L);
			inner.executeWithoutResult((innerStatus) -> this.queues.enqueue(QUEUE, 2L));
			assertThat(this.queues.reserve(QUEUE, 10, Duration.ofMinutes(1), Long.class).stream().map(Job::payload))
				.as("after the inner commit").containsExactly(2L);
			status.setRollbackOnly();
		});

		assertThat(this.admin.counts(QUEUE).total("enqueued")).isEqualTo(1);
	}

	@Test
	void enqueueFromAnotherSynchronizationAfterTheCommitStillRuns() {
		this.transactions.executeWithoutResult((status) -> {
			this.jdbc.update("insert into orders values (1, 'book')");
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
				@Override
				public void afterCommit() {
					// the transaction committed, but its synchronization is still active
					TransactionAwareEnqueueIntegrationTests.this.queues.enqueue(QUEUE, 1L);
				}
			});
		});

		assertThat(this.admin.counts(QUEUE).ready()).isEqualTo(1);
	}

	// an exception from afterCommit would skip the afterCommit of every synchronization after this
	// one (a transacted JMS session's commit, another resource's): a failed enqueue is logged
	@Test
	@Tag("single-node")
	void enqueueThatFailsAfterTheCommitIsLoggedAndTheOthersAndLaterSynchronizationsStillRun() {
		boolean[] laterCommitted = new boolean[1];
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			LettuceConnectionFactory lost = TestRedis.connectionFactory(server.endpoint());
			QueueTemplate failing = new QueueTemplate(lost);
			failing.setTransactionAware(true);
			failing.setEnqueueTimeout(Duration.ofSeconds(2));
			try {
				this.transactions.executeWithoutResult((status) -> {
					this.jdbc.update("insert into orders values (1, 'book')");
					failing.enqueue(QUEUE, 2L);
					this.queues.enqueue(QUEUE, 1L);
					TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
						@Override
						public void afterCommit() {
							laterCommitted[0] = true;
						}
					});
					server.stop();
				});
			}
			finally {
				failing.destroy();
				lost.destroy();
			}
		}

		assertThat(laterCommitted[0]).as("afterCommit of a synchronization registered later").isTrue();
		assertThat(this.jdbc.queryForObject("select count(*) from orders", Long.class)).isEqualTo(1);
		assertThat(this.queues.reserve(QUEUE, 10, Duration.ofMinutes(1), Long.class).stream().map(Job::payload))
			.containsExactly(1L);
	}

	// under SUPPORTS without an outer transaction synchronization is active, but no transaction
	// runs: nothing would roll back, and the enqueue must not wait for a commit that never comes
	@Test
	void withSynchronizationButNoTransactionTheEnqueueRunsAtOnce() {
		TransactionTemplate supports = new TransactionTemplate(this.transactions.getTransactionManager());
		supports.setPropagationBehavior(TransactionDefinition.PROPAGATION_SUPPORTS);
		assertThatThrownBy(() -> supports.executeWithoutResult((status) -> {
			assertThat(TransactionSynchronizationManager.isSynchronizationActive()).isTrue();
			EnqueueResult result = this.queues.enqueue(QUEUE, 1L);
			assertThat(result.deferred()).isFalse();
			assertThat(result.id()).isNotNull();
			throw new IllegalStateException("the caller fails after the enqueue");
		})).isInstanceOf(IllegalStateException.class).hasMessage("the caller fails after the enqueue");

		assertThat(this.admin.counts(QUEUE).ready()).isEqualTo(1);
	}

	@Test
	void aDeferredResultSerializesToJson() throws Exception {
		String json = new tools.jackson.databind.json.JsonMapper().writeValueAsString(EnqueueResult.DEFERRED);
		assertThat(json).contains("\"deferred\":true").contains("\"id\":null");
	}

	private long rows(long order) {
		return this.jdbc.queryForObject("select count(*) from orders where id = ?", Long.class, order);
	}

}
