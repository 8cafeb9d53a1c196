package io.github.redisqueue.actuate.endpoint;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.github.redisqueue.core.Batch;
import io.github.redisqueue.core.BatchState;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.RateLimit;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.TestRedis;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.invoke.convert.ConversionServiceParameterValueMapper;
import org.springframework.boot.actuate.endpoint.web.EndpointMediaTypes;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpointDiscoverer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The {@code queues} endpoint's operations on a real Redis: invalid requests are refused as
 * invalid (a 400 over HTTP), pause and resume report whether they changed the queue's state,
 * batches show with their progress and can be cancelled, and the endpoint is read-only unless
 * its access is raised. As Actuator maps it to HTTP, each operation has a path and method of its
 * own, and the batch operations answer requests whose arguments arrive as text.
 */
@ExtendWith(OutputCaptureExtension.class)
class QueuesEndpointTests {

	private final RedisEndpoint redis = TestRedis.shared();

	private LettuceConnectionFactory factory;

	private QueueTemplate queues;

	private QueueAdmin admin;

	private QueuesEndpoint endpoint;

	@BeforeEach
	void start() {
		TestRedis.flushAll(this.redis);
		this.factory = TestRedis.connectionFactory(this.redis);
		this.queues = new QueueTemplate(this.factory);
		this.admin = new QueueAdmin(this.queues);
		this.endpoint = new QueuesEndpoint(this.admin);
	}

	@AfterEach
	void stop() {
		this.factory.destroy();
	}

	@Test
	void isReadOnlyUnlessItsAccessIsRaised() {
		Endpoint endpoint = QueuesEndpoint.class.getAnnotation(Endpoint.class);
		assertThat(endpoint.id()).isEqualTo("queues");
		assertThat(endpoint.defaultAccess()).isEqualTo(Access.READ_ONLY);
	}

	@Test
	void invalidQueueNameIsAnInvalidRequestNamingTheRule() {
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.queue("bad name", null, null, null, null))
			.satisfies((ex) -> assertThat(ex.getReason()).contains("'bad name'")
				.contains("letters, digits, '.', '_' or '-'"));
		for (String action : new String[] { "pause", "resume", "retry-dead", "purge-dead" }) {
			assertThatExceptionOfType(InvalidEndpointRequestException.class).as(action)
				.isThrownBy(() -> this.endpoint.act("bad name", action, null))
				.satisfies((ex) -> assertThat(ex.getReason()).contains("'bad name'"));
		}
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.act("bad name", "retry-dead", "1"));
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.act("bad name", "cancel-batch", "1"))
			.satisfies((ex) -> assertThat(ex.getReason()).contains("'bad name'"));
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.batch("bad name", "batches", "1"))
			.satisfies((ex) -> assertThat(ex.getReason()).contains("'bad name'"));
	}

	@Test
	void invalidDeadLetterPageIsAnInvalidRequestNamingTheRange() {
		this.queues.enqueue("emails", "x");
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.queue("emails", -1, null, null, null))
			.satisfies((ex) -> assertThat(ex.getReason()).contains("offset -1").contains("0 or more"));
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.queue("emails", null, 0, null, null))
			.satisfies((ex) -> assertThat(ex.getReason()).contains("size 0").contains("from 1 to"));
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.queue("emails", 0, 1_000_000, null, null));
		assertThat(this.endpoint.queue("emails", 0, 5, null, null).counts().ready()).isEqualTo(1);
	}

	@Test
	void pauseAndResumeCountOneOnlyWhenTheStateChanged() {
		assertThat(this.endpoint.act("idle", "pause", null).count()).isEqualTo(1);
		assertThat(this.admin.counts("idle").paused()).isTrue();
		assertThat(this.endpoint.act("idle", "pause", null).count()).isZero();
		assertThat(this.endpoint.act("idle", "resume", null).count()).isEqualTo(1);
		assertThat(this.admin.counts("idle").paused()).isFalse();
		assertThat(this.endpoint.act("idle", "resume", null).count()).isZero();
	}

	@Test
	void queuesShowTheRateLimitOfTheSettingsAndNoneWithout() {
		QueueSettings settings = QueueSettings.builder().rateLimit("limited", RateLimit.parse("1000/1m")).build();
		QueuesEndpoint withSettings = new QueuesEndpoint(this.admin, settings);
		this.queues.enqueue("limited", "x");
		this.queues.enqueue("free", "y");

		assertThat(withSettings.queues().get("limited").rateLimit()).isEqualTo("1000/1m");
		assertThat(withSettings.queues().get("free").rateLimit()).isNull();
		assertThat(withSettings.queue("limited", null, null, null, null).counts().rateLimit()).isEqualTo("1000/1m");
		assertThat(this.endpoint.queues().get("limited").rateLimit()).isNull();
	}

	@Test
	void unknownActionIsAnInvalidRequest() {
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.act("emails", "explode", null))
			.satisfies((ex) -> assertThat(ex.getReason())
				.contains("pause, resume, retry-dead, purge-dead or cancel-batch"));
	}

	@Test
	void queueShowsItsOpenBatchesWithTheirProgress() {
		Batch batch = this.queues.batch("resize").maxConcurrency(2).priority(3).onComplete("resize-done")
			.addAll(List.of(1, 2, 3, 4, 5))
			.submit();
		this.queues.complete("resize", this.queues.reserve("resize", 1, Duration.ofMinutes(1)).get(0).ref());

		QueueDescriptor counts = this.endpoint.queues().get("resize");
		assertThat(counts.openBatches()).isEqualTo(1);
		assertThat(counts.ready()).as("admitted sub-jobs").isEqualTo(2);

		QueueDetailsDescriptor details = this.endpoint.queue("resize", null, null, null, null);
		assertThat(details.counts().openBatches()).isEqualTo(1);
		assertThat(details.batches()).hasSize(1);
		assertThat(details.batches().get(0))
			.extracting(BatchDescriptor::id, BatchDescriptor::state, BatchDescriptor::maxConcurrency,
					BatchDescriptor::priority, BatchDescriptor::total, BatchDescriptor::waiting, BatchDescriptor::active,
					BatchDescriptor::completed, BatchDescriptor::dead, BatchDescriptor::cancelled,
					BatchDescriptor::createdAt, BatchDescriptor::finishedAt, BatchDescriptor::completionQueue)
			.containsExactly(batch.id(), BatchState.SEALED, 2, 3, 5L, 2L, 2L, 1L, 0L, 0L, batch.status().createdAt(),
					null, "resize-done");
	}

	@Test
	void queueShowsItsTwentyOldestOpenBatchesAndPagesShowTheRest() {
		for (int i = 0; i < 22; i++) {
			this.queues.batch("many").id(String.format("b%02d", i)).add(i).open();
		}

		QueueDetailsDescriptor details = this.endpoint.queue("many", null, null, null, null);
		assertThat(details.counts().openBatches()).isEqualTo(22);
		assertThat(details.batches()).hasSize(20);
		assertThat(details.batches().get(0).id()).isEqualTo("b00");
		assertThat(batchIds("many", 20, null)).containsExactly("b20", "b21");
		assertThat(batchIds("many", 1, 2)).containsExactly("b01", "b02");
		assertThat(batchIds("many", null, 100)).hasSize(22);
	}

	@Test
	void oneBatchOpenOrFinishedAndNoneForAnUnknownId() {
		Batch batch = this.queues.batch("resize").addAll(List.of(1)).submit();
		assertThat(this.endpoint.batch("resize", "batches", batch.id()).state()).isEqualTo(BatchState.SEALED);
		this.queues.complete("resize", this.queues.reserve("resize", 1, Duration.ofMinutes(1)).get(0).ref());

		BatchDescriptor finished = this.endpoint.batch("resize", "batches", batch.id());
		assertThat(finished.state()).isEqualTo(BatchState.COMPLETED);
		assertThat(finished.completed()).isEqualTo(1);
		assertThat(finished.finishedAt()).isNotNull();
		assertThat(this.endpoint.queue("resize", null, null, null, null).batches()).as("open batches only").isEmpty();
		assertThat(this.endpoint.batch("resize", "batches", "none")).isNull();
	}

	@Test
	void invalidBatchRequestsNameTheRule() {
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.part("resize", "workers", "1"))
			.satisfies((ex) -> assertThat(ex.getReason()).contains("'workers'").contains("use batches or jobs"));
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.queue("resize", null, null, -1, null))
			.satisfies((ex) -> assertThat(ex.getReason()).contains("Batch page offset -1").contains("0 or more"));
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.queue("resize", null, null, 0, 101))
			.satisfies((ex) -> assertThat(ex.getReason()).contains("Batch page size 101").contains("from 1 to 100"));
	}

	@Test
	void cancelBatchRemovesItsSubJobsThatHaveNotRunAndCountsThem(CapturedOutput output) {
		Batch batch = this.queues.batch("resize").maxConcurrency(1).addAll(List.of(1, 2, 3)).submit();

		QueueActionDescriptor cancelled = this.endpoint.act("resize", "cancel-batch", batch.id());

		assertThat(cancelled.action()).isEqualTo("cancel-batch");
		assertThat(cancelled.count()).isEqualTo(3);
		assertThat(batch.status().state()).isEqualTo(BatchState.CANCELLED);
		assertThat(this.admin.counts("resize").pending()).isZero();
		assertThat(output).contains("Queue 'resize': cancel-batch through the queues endpoint left batch '"
				+ batch.id() + "' CANCELLED, 3 sub-job(s) removed before they ran");
		assertThat(this.endpoint.act("resize", "cancel-batch", batch.id()).count()).as("already finished")
			.isEqualTo(3);
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.act("resize", "cancel-batch", null))
			.satisfies((ex) -> assertThat(ex.getReason()).contains("needs the id of the batch"));
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.act("resize", "cancel-batch", "none"))
			.satisfies((ex) -> assertThat(ex.getReason()).contains("has no batch 'none'"));
	}

	@Test
	void cancelBatchLetsRunningSubJobsFinish() {
		Batch batch = this.queues.batch("resize").maxConcurrency(2).addAll(List.of(1, 2, 3, 4)).submit();
		ReservedJob running = this.queues.reserve("resize", 1, Duration.ofMinutes(1)).get(0);

		assertThat(this.endpoint.act("resize", "cancel-batch", batch.id()).count()).isEqualTo(3);
		assertThat(this.endpoint.batch("resize", "batches", batch.id()).state()).isEqualTo(BatchState.CANCELLING);
		this.queues.complete("resize", running.ref());
		BatchDescriptor finished = this.endpoint.batch("resize", "batches", batch.id());
		assertThat(finished.state()).isEqualTo(BatchState.CANCELLED);
		assertThat(finished.completed()).isEqualTo(1);
		assertThat(finished.cancelled()).isEqualTo(3);
	}

	@Test
	void everyOperationHasAPathAndMethodOfItsOwn() {
		// no read shares the path of the writes: a write refused by the endpoint's access answers 404
		withOperations((operations) -> assertThat(operations.keySet()).containsExactlyInAnyOrder("GET queues",
				"GET queues/{name}", "GET queues/{name}/{part}/{id}",
				"POST queues/{name}/{action}"));
	}

	@Test
	void batchOperationsAnswerTextArguments() {
		Batch first = this.queues.batch("resize").id("a").addAll(List.of(1, 2)).submit();
		this.queues.batch("resize").id("b").add(3).open();
		withOperations((operations) -> {
			Object page = operations.get("GET queues/{name}")
				.invoke(context(Map.of("name", "resize", "batchOffset", "1", "batchSize", "5")));
			assertThat(page).isInstanceOfSatisfying(QueueDetailsDescriptor.class, (details) -> assertThat(
					details.batches()).extracting(BatchDescriptor::id).containsExactly("b"));
			Object one = operations.get("GET queues/{name}/{part}/{id}")
				.invoke(context(Map.of("name", "resize", "part", "batches", "id", first.id())));
			assertThat(one).isInstanceOfSatisfying(BatchDescriptor.class,
					(batch) -> assertThat(batch.total()).isEqualTo(2));
			Object cancelled = operations.get("POST queues/{name}/{action}")
				.invoke(context(Map.of("name", "resize", "action", "cancel-batch", "id", "b")));
			assertThat(cancelled).isEqualTo(new QueueActionDescriptor("resize", "cancel-batch", 1));
		});
	}

	@Test
	void jobOperationAnswersTextArgumentsWithTheJobsProgress() {
		String id = this.queues.enqueue("reports", "monthly").id();
		ReservedJob job = this.queues.reserve("reports", 1, Duration.ofMinutes(1)).get(0);
		assertThat(this.queues.progress("reports", job.ref(), 40)).isTrue();
		withOperations((operations) -> {
			WebOperation read = operations.get("GET queues/{name}/{part}/{id}");
			Object one = read.invoke(context(Map.of("name", "reports", "part", "jobs", "id", id)));
			assertThat(one).isInstanceOfSatisfying(JobDescriptor.class, (found) -> {
				assertThat(found.id()).isEqualTo(id);
				assertThat(found.state()).isEqualTo(JobState.ACTIVE);
				assertThat(found.progress()).isEqualTo("40");
				assertThat(found.worker()).isNotNull();
			});
			assertThat(read.invoke(context(Map.of("name", "reports", "part", "jobs", "id", "404")))).isNull();
		});
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.job("bad name", id))
			.satisfies((ex) -> assertThat(ex.getReason()).contains("'bad name'"));
	}

	@Test
	void jobIdsThatAreNotCanonicalDecimalsAreAnInvalidRequestAndChangeNothing() {
		this.queues.enqueueAll("ids", List.of(1, 2, 3, 4), JobOptions.defaults());
		String delayed = this.queues.enqueue("ids", 5, JobOptions.builder().delay(Duration.ofHours(1)).build()).id();
		for (String bad : List.of("05", "", "1a", "+5", " 5", "5 ")) {
			assertThatExceptionOfType(InvalidEndpointRequestException.class).as("'%s'", bad)
				.isThrownBy(() -> this.endpoint.job("ids", bad))
				.satisfies((ex) -> assertThat(ex.getReason()).contains("Job id '" + bad + "'"));
			for (String action : List.of("retry-dead", "purge-dead")) {
				assertThatExceptionOfType(InvalidEndpointRequestException.class).as("%s '%s'", action, bad)
					.isThrownBy(() -> this.endpoint.act("ids", action, bad))
					.satisfies((ex) -> assertThat(ex.getReason()).contains("Job id '" + bad + "'"));
			}
		}
		assertThat(this.admin.job("ids", delayed).orElseThrow().state()).isEqualTo(JobState.DELAYED);
		assertThat(this.admin.counts("ids").delayed()).isEqualTo(1);
	}

	private List<String> batchIds(String queue, @Nullable Integer offset, @Nullable Integer size) {
		return this.endpoint.queue(queue, null, null, offset, size)
			.batches()
			.stream()
			.map(BatchDescriptor::id)
			.toList();
	}

	private void withOperations(Consumer<Map<String, WebOperation>> check) {
		new ApplicationContextRunner().withBean(QueuesEndpoint.class, () -> this.endpoint)
			.run((context) -> {
				WebEndpointDiscoverer discoverer = new WebEndpointDiscoverer(context,
						new ConversionServiceParameterValueMapper(), EndpointMediaTypes.DEFAULT, List.of(), List.of(),
						List.of(), List.of(), List.of());
				ExposableWebEndpoint endpoint = discoverer.getEndpoints().iterator().next();
				Map<String, WebOperation> operations = new HashMap<>();
				endpoint.getOperations()
					.forEach((operation) -> operations.put(operation.getRequestPredicate().getHttpMethod() + " "
							+ operation.getRequestPredicate().getPath(), operation));
				check.accept(operations);
			});
	}

	private static InvocationContext context(Map<String, Object> arguments) {
		return new InvocationContext(SecurityContext.NONE, arguments);
	}

}
