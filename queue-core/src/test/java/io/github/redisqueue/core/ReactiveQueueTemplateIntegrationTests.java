package io.github.redisqueue.core;

import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.stream.IntStream;

import io.github.redisqueue.QueueException;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import org.springframework.data.redis.core.RedisCallback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The reactive producer on a real Redis: what it enqueues, submits and reads is what the blocking
 * template would have written and read (the same scripts, arguments and decoders), and what the
 * blocking template refuses arrives as an error signal with the same type and message.
 */
class ReactiveQueueTemplateIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private QueueTemplate blocking(QueueSettings settings) {
		return new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(), settings);
	}

	private QueueTemplate blocking() {
		return blocking(QueueSettings.builder().maxPayloadBytes(1024).build());
	}

	@Test
	void anEnqueuedJobIsReadyWithItsOptionsAndReadableReactivelyAndByTheAdmin() {
		QueueTemplate queues = blocking();
		ReactiveQueueTemplate reactive = new ReactiveQueueTemplate(queues);
		JobOptions options = JobOptions.builder().priority(7).maxAttempts(4).header("tenant", "acme").build();

		EnqueueResult result = reactive.enqueue("emails", "welcome", options).block(Duration.ofSeconds(10));

		assertThat(result).isNotNull();
		assertThat(result.duplicate()).isFalse();
		StepVerifier.create(reactive.job("emails", result.id()))
			.assertNext((job) -> {
				assertThat(job.state()).isEqualTo(JobState.READY);
				assertThat(job.priority()).isEqualTo(7);
				assertThat(job.maxAttempts()).isEqualTo(4);
				assertThat(job.headers()).containsEntry("tenant", "acme");
			})
			.verifyComplete();
		assertThat(new QueueAdmin(queues).job("emails", result.id())).isPresent();
		StepVerifier.create(reactive.counts("emails"))
			.assertNext((counts) -> assertThat(counts.ready()).isEqualTo(1))
			.verifyComplete();
		StepVerifier.create(reactive.job("emails", "999")).verifyComplete();
		List<Job<String>> reserved = queues.reserve("emails", 10, LEASE, String.class);
		assertThat(reserved).singleElement().satisfies((job) -> {
			assertThat(job.payload()).isEqualTo("welcome");
			assertThat(job.id()).isEqualTo(result.id());
		});
	}

	@Test
	void aBulkEnqueueSpanningChunksKeepsItsOrderAndIsTakenInThatOrder() {
		QueueTemplate queues = blocking(QueueSettings.builder().enqueueChunk(100).build());
		ReactiveQueueTemplate reactive = new ReactiveQueueTemplate(queues);
		List<String> payloads = IntStream.range(0, 250).mapToObj((i) -> "job-" + i).toList();

		List<EnqueueResult> results = reactive.enqueueAll("bulk", payloads, JobOptions.defaults())
			.collectList()
			.block(Duration.ofSeconds(30));

		assertThat(results).hasSize(250).noneMatch(EnqueueResult::duplicate);
		assertThat(new HashSet<>(results.stream().map(EnqueueResult::id).toList())).hasSize(250);
		StepVerifier.create(reactive.counts("bulk"))
			.assertNext((counts) -> assertThat(counts.ready()).isEqualTo(250))
			.verifyComplete();
		assertThat(queues.reserve("bulk", 250, LEASE, String.class)).extracting(Job::payload)
			.containsExactlyElementsOf(payloads);
		StepVerifier.create(reactive.enqueueAll("bulk", List.of(), JobOptions.defaults())).verifyComplete();
	}

	@Test
	void anIdempotencyKeyNamesOneJobWhicheverApiEnqueuesIt() {
		QueueTemplate queues = blocking();
		ReactiveQueueTemplate reactive = new ReactiveQueueTemplate(queues);
		JobOptions options = JobOptions.builder().idempotencyKey("order-42").build();

		EnqueueResult first = reactive.enqueue("orders", "a", options).block(Duration.ofSeconds(10));
		StepVerifier.create(reactive.enqueue("orders", "b", options))
			.assertNext((again) -> assertThat(again).isEqualTo(new EnqueueResult(first.id(), true)))
			.verifyComplete();
		assertThat(queues.enqueue("orders", "c", options)).isEqualTo(new EnqueueResult(first.id(), true));
		JobOptions unique = JobOptions.builder().uniqueKey("invoice-7").build();
		EnqueueResult blockingFirst = queues.enqueue("orders", "d", unique);
		StepVerifier.create(reactive.enqueue("orders", "e", unique))
			.assertNext((again) -> assertThat(again).isEqualTo(new EnqueueResult(blockingFirst.id(), true)))
			.verifyComplete();
		StepVerifier.create(reactive.counts("orders"))
			.assertNext((counts) -> assertThat(counts.ready()).isEqualTo(2))
			.verifyComplete();
	}

	@Test
	void refusalsArriveAsErrorSignalsWithTheMessagesOfTheBlockingApiAndSendNothing() {
		QueueTemplate queues = blocking(QueueSettings.builder().maxPayloadBytes(1024).partitions("split", 3).build());
		ReactiveQueueTemplate reactive = new ReactiveQueueTemplate(queues);
		String large = "x".repeat(2000);
		JobOptions twoKeys = JobOptions.builder().group("customer-0").uniqueKey("invoice-7").build();
		JobOptions idempotent = JobOptions.builder().idempotencyKey("k").build();

		sameRefusal(() -> queues.enqueue("emails", large), reactive.enqueue("emails", large), PayloadTooLargeException.class);
		sameRefusal(() -> queues.enqueueAll("emails", List.of("ok", large), JobOptions.defaults()),
				reactive.enqueueAll("emails", List.of("ok", large), JobOptions.defaults()).then(),
				PayloadTooLargeException.class);
		sameRefusal(() -> queues.enqueueAll("emails", List.of("a", "b"), idempotent),
				reactive.enqueueAll("emails", List.of("a", "b"), idempotent).then(), IllegalArgumentException.class);
		sameRefusal(() -> queues.enqueue("bad name!", "x"), reactive.enqueue("bad name!", "x"),
				IllegalArgumentException.class);
		sameRefusal(() -> queues.enqueue("split", "x", twoKeys), reactive.enqueue("split", "x", twoKeys),
				IllegalArgumentException.class);
		sameRefusal(() -> queues.enqueueAll("emails", Collections.singletonList(null), JobOptions.defaults()),
				reactive.enqueueAll("emails", Collections.singletonList(null), JobOptions.defaults()).then(),
				IllegalArgumentException.class);

		assertThat(new QueueAdmin(queues).counts("emails").ready()).isZero();
		assertThat(new QueueAdmin(queues).counts("split").ready()).isZero();
	}

	// the reactive submit checks every payload before it opens the batch; the blocking one opens it first
	@Test
	void aBatchWithAPayloadOverTheLimitIsRefusedBeforeItIsOpened() {
		QueueTemplate queues = blocking();
		ReactiveQueueTemplate reactive = new ReactiveQueueTemplate(queues);
		String large = "x".repeat(2000);

		StepVerifier.create(reactive.batch("batches").add("small").add(large).submit())
			.expectError(PayloadTooLargeException.class)
			.verify(Duration.ofSeconds(10));
		assertThat(new QueueAdmin(queues).batches("batches", 0, 10)).isEmpty();
		sameRefusal(() -> queues.batch("batches").add(large).submit(), reactive.batch("batches").add(large).submit(),
				PayloadTooLargeException.class);
		sameRefusal(() -> queues.batch("batches").onComplete("done", large).submit(),
				reactive.batch("batches").onComplete("done", large).submit(), PayloadTooLargeException.class);
	}

	private void sameRefusal(Runnable blockingCall, Mono<?> reactiveCall, Class<? extends Throwable> type) {
		Throwable expected = catchThrowable(blockingCall::run);
		assertThat(expected).isInstanceOf(type);
		StepVerifier.create(reactiveCall)
			.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOf(type).hasMessage(expected.getMessage()))
			.verify(Duration.ofSeconds(10));
	}

	@Test
	void aSubmittedBatchHoldsItsCapAndReportsItsStatus() {
		QueueTemplate queues = blocking();
		ReactiveQueueTemplate reactive = new ReactiveQueueTemplate(queues);

		BatchStatus submitted = reactive.batch("resize")
			.id("request-1")
			.maxConcurrency(2)
			.priority(5)
			.onComplete("resize-done", "all done")
			.addAll(List.of("p1", "p2", "p3", "p4", "p5"))
			.submit()
			.block(Duration.ofSeconds(10));

		assertThat(submitted).isNotNull();
		assertThat(submitted.id()).isEqualTo("request-1");
		assertThat(submitted.state()).isEqualTo(BatchState.SEALED);
		assertThat(submitted.total()).isEqualTo(5);
		assertThat(submitted.completionQueue()).isEqualTo("resize-done");
		StepVerifier.create(reactive.batchStatus("resize", "request-1"))
			.assertNext((status) -> assertThat(status.total()).isEqualTo(5))
			.verifyComplete();
		StepVerifier.create(reactive.batchStatus("resize", "no-such-batch")).verifyComplete();
		assertThat(queues.batch("resize", "request-1").status().total()).isEqualTo(5);

		List<Job<String>> first = queues.reserve("resize", 10, LEASE, String.class);
		assertThat(first).hasSize(2);

		Throwable taken = catchThrowable(() -> queues.batch("resize").id("request-1").submit());
		StepVerifier.create(reactive.batch("resize").id("request-1").add("again").submit())
			.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOf(QueueBatchException.class)
				.hasMessage(taken.getMessage()))
			.verify(Duration.ofSeconds(10));

		for (int round = 0; round < 3; round++) {
			List<Job<String>> held = (round == 0) ? first : queues.reserve("resize", 10, LEASE, String.class);
			queues.completeAll("resize", held.stream().map(Job::ref).toList());
		}
		StepVerifier.create(reactive.batchStatus("resize", "request-1"))
			.assertNext((status) -> {
				assertThat(status.completed()).isEqualTo(5);
				assertThat(status.isFinished()).isTrue();
			})
			.verifyComplete();
		assertThat(queues.reserve("resize-done", 10, LEASE, String.class)).singleElement()
			.satisfies((job) -> assertThat(job.payload()).isEqualTo("all done"));
	}

	@Test
	void anEmptyBatchFinishesAtOnceAndHandsOffItsCompletionJob() {
		QueueTemplate queues = blocking();
		ReactiveQueueTemplate reactive = new ReactiveQueueTemplate(queues);

		StepVerifier.create(reactive.batch("empty").onComplete("empty-done", "nothing").submit())
			.assertNext((status) -> assertThat(status.isFinished()).isTrue())
			.verifyComplete();

		assertThat(queues.reserve("empty-done", 10, LEASE, String.class)).singleElement()
			.satisfies((job) -> assertThat(job.payload()).isEqualTo("nothing"));
	}

	@Test
	void aPartitionedQueueSpreadsABulkEnqueueAndRoutesAKeyToItsPartition() {
		QueueTemplate queues = blocking(QueueSettings.builder().partitions("orders", 3).build());
		ReactiveQueueTemplate reactive = new ReactiveQueueTemplate(queues);
		QueueAdmin admin = new QueueAdmin(queues);

		StepVerifier.create(reactive.enqueueAll("orders", List.of("a", "b", "c", "d", "e", "f"), JobOptions.defaults()))
			.expectNextCount(6)
			.verifyComplete();
		assertThat(admin.partitionCounts("orders")).extracting((p) -> p.counts().ready()).containsExactly(2L, 2L, 2L);

		JobOptions keyed = JobOptions.builder().partitionKey("customer-9").build();
		EnqueueResult viaReactive = reactive.enqueue("orders", "r", keyed).block(Duration.ofSeconds(10));
		EnqueueResult viaBlocking = queues.enqueue("orders", "b", keyed);
		int partition = QueueTemplate.partitionOfKey("customer-9", 3);
		assertThat(QueueTemplate.partitionOfId(viaReactive.id(), 3)).isEqualTo(partition);
		assertThat(QueueTemplate.partitionOfId(viaBlocking.id(), 3)).isEqualTo(partition);
		StepVerifier.create(reactive.counts("orders"))
			.assertNext((counts) -> assertThat(counts.ready()).isEqualTo(8))
			.verifyComplete();
		StepVerifier.create(reactive.job("orders", viaReactive.id()))
			.assertNext((job) -> assertThat(job.state()).isEqualTo(JobState.READY))
			.verifyComplete();

		// the partition count is recorded in Redis: another count is refused as the blocking path refuses it
		QueueTemplate other = blocking(QueueSettings.builder().partitions("orders", 2).build());
		Throwable refused = catchThrowable(() -> other.enqueue("orders", "x"));
		StepVerifier.create(new ReactiveQueueTemplate(blocking(QueueSettings.builder().partitions("orders", 2).build()))
			.enqueue("orders", "x"))
			.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOf(QueueException.class).hasMessage(refused.getMessage()))
			.verify(Duration.ofSeconds(10));
	}

	@Test
	void aScriptRedisLostIsSentAgainInFull() {
		QueueTemplate queues = blocking();
		ReactiveQueueTemplate reactive = new ReactiveQueueTemplate(queues);
		reactive.enqueue("flushed", "before").block(Duration.ofSeconds(10));

		this.redis.execute((RedisCallback<Void>) (connection) -> {
			connection.scriptingCommands().scriptFlush();
			return null;
		});

		StepVerifier.create(reactive.enqueue("flushed", "after"))
			.assertNext((result) -> assertThat(result.duplicate()).isFalse())
			.verifyComplete();
		StepVerifier.create(reactive.counts("flushed"))
			.assertNext((counts) -> assertThat(counts.ready()).isEqualTo(2))
			.verifyComplete();
	}

	@Test
	void theLayoutIsCheckedBeforeTheFirstScriptCallAndTheOldOneMigrated() {
		this.redis.opsForValue().set("rq:layout", "3");
		Throwable refused = catchThrowable(() -> new QueueAdmin(blocking()).counts("emails"));
		assertThat(refused).isInstanceOf(QueueException.class);
		StepVerifier.create(new ReactiveQueueTemplate(blocking()).counts("emails"))
			.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOf(QueueException.class).hasMessage(refused.getMessage()))
			.verify(Duration.ofSeconds(10));
		StepVerifier.create(new ReactiveQueueTemplate(blocking()).enqueue("emails", "x"))
			.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOf(QueueException.class).hasMessage(refused.getMessage()))
			.verify(Duration.ofSeconds(10));

		this.redis.opsForValue().set("rq:layout", "4");
		StepVerifier.create(new ReactiveQueueTemplate(blocking()).enqueue("emails", "x"))
			.expectNextCount(1)
			.verifyComplete();
		assertThat(this.redis.opsForValue().get("rq:layout")).isEqualTo("5");
	}

	// the template looked at an empty prefix first (nothing written), then an instance of the old
	// layout wrote its version: the reactive registration must migrate, as the blocking one does
	@Test
	void aPrefixThatGotTheOldLayoutAfterTheTemplateOpenedIsMigratedOnRegistration() {
		QueueTemplate queues = blocking();
		new QueueAdmin(queues).counts("emails");
		assertThat(this.redis.hasKey("rq:layout")).isFalse();
		this.redis.opsForValue().set("rq:layout", "4");

		StepVerifier.create(new ReactiveQueueTemplate(queues).enqueue("emails", "x"))
			.expectNextCount(1)
			.verifyComplete();
		assertThat(this.redis.opsForValue().get("rq:layout")).isEqualTo("5");
	}

	@Test
	void callsSubscribedOnANonBlockingThreadComplete() {
		QueueTemplate queues = blocking();
		ReactiveQueueTemplate reactive = new ReactiveQueueTemplate(queues);

		Mono<QueueCounts> work = reactive.enqueue("parallel", "x")
			.then(reactive.batch("parallel").add("y").submit())
			.then(reactive.counts("parallel"))
			.subscribeOn(Schedulers.parallel());

		StepVerifier.create(work)
			.assertNext((counts) -> assertThat(counts.ready()).isEqualTo(2))
			.verifyComplete();
		assertThat(queues.reserve("parallel", 10, LEASE, String.class)).extracting(Job::payload)
			.containsExactlyInAnyOrder("x", "y");
	}

}
