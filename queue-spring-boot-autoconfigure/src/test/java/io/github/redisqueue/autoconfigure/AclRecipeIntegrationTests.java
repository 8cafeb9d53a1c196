package io.github.redisqueue.autoconfigure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.github.redisqueue.actuate.endpoint.QueuesEndpoint;
import io.github.redisqueue.annotation.QueueListener;
import io.github.redisqueue.core.JobInfo;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobOrder;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.support.JobMetadata;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The ACL recipe of the documentation, read from docs/operating.md: a Redis user limited to the queue keys and
 * to the commands the library sends (directly and inside its scripts) runs producers,
 * listeners, lease extension, retries, dead letters, the reaper, the worker registry, the
 * administration calls and the startup check, with no command refused.
 */
// on one server only: it sets up ACL users on a server of its own
@Tag("single-node")
@ExtendWith(OutputCaptureExtension.class)
class AclRecipeIntegrationTests {

	/** The ACL line of docs/operating.md, "A Redis user for the queues", read from that page itself. */
	static String readmeRecipe() throws IOException {
		String prefix = "ACL SETUSER queues on >change-me ";
		try (Stream<String> lines = Files.lines(Path.of("..", "docs", "operating.md"))) {
			return lines.filter((line) -> line.startsWith(prefix))
				.findFirst()
				.orElseThrow(() -> new IllegalStateException("docs/operating.md has no line starting with " + prefix));
		}
	}

	@Test
	void limitedUserRunsEverythingTheLibraryDoes(CapturedOutput output) throws IOException {
		String recipe = readmeRecipe();
		try (RedisServerProcess server = TestRedis.startPrivate("--appendonly", "yes")) {
			LettuceConnectionFactory admin = TestRedis.connectionFactory(server.endpoint());
			try {
				command(admin, recipe.replace(">change-me", ">secret").split(" "));
				new ApplicationContextRunner()
					.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class,
							QueueListenerAutoConfiguration.class, QueueReaperAutoConfiguration.class))
					.withUserConfiguration(Worker.class)
					.withPropertyValues("spring.data.redis.host=" + server.host(),
							"spring.data.redis.port=" + server.port(), "spring.data.redis.username=queues",
							"spring.data.redis.password=secret", "queue.listener.poll-interval=200ms",
							"queue.reaper.interval=200ms", "queue.workers.heartbeat-interval=200ms",
							"queue.queues.acl.lease=300ms", "queue.queues.acl.max-attempts=1",
							"queue.queues.acl.backoff.initial=10ms")
					.run((context) -> {
						assertThat(context).hasNotFailed();
						QueueTemplate queues = context.getBean(QueueTemplate.class);
						QueueAdmin queueAdmin = context.getBean(QueueAdmin.class);
						Worker worker = context.getBean(Worker.class);

						queues.enqueue("acl", "plain");
						queues.enqueue("acl", "unique", JobOptions.builder().uniqueKey("k").uniqueFor(Duration.ofMinutes(1)).build());
						assertThat(queues.enqueue("acl", "unique", JobOptions.builder().uniqueKey("k").build()).duplicate())
							.isTrue();
						queues.enqueue("acl", "later", JobOptions.builder().delay(Duration.ofMillis(300)).priority(5).build());
						queues.enqueue("acl", "expiring", JobOptions.builder().expireAfter(Duration.ofMinutes(1)).build());
						queues.enqueueAll("acl", List.of("bulk-1", "bulk-2"), JobOptions.defaults());
						String slow = queues.enqueue("acl", "slow").id();
						queues.enqueue("acl", "fail");
						await().atMost(Duration.ofSeconds(20))
							.until(() -> worker.done.containsAll(Set.of("plain", "unique", "later", "expiring", "bulk-1",
									"bulk-2", "slow")) && queueAdmin.counts("acl").dead() == 1);
						assertThat(worker.extended).as("lease of job %s extended while it ran", slow).isTrue();

						// the scripts are loaded again after a flush
						command(admin, "SCRIPT", "FLUSH");
						QueuesEndpoint endpoint = new QueuesEndpoint(queueAdmin);
						assertThat(endpoint.queues()).containsKey("acl");
						assertThat(endpoint.queue("acl", 0, 10, null, null).deadLetters()).hasSize(1);
						String dead = queueAdmin.deadLetters("acl", 0, 1).get(0).id();
						assertThat(queueAdmin.job("acl", dead)).isPresent();
						assertThat(endpoint.act("acl", "pause", null).count()).isEqualTo(1);
						assertThat(queueAdmin.retryDead("acl", dead)).isTrue();
						assertThat(endpoint.act("acl", "resume", null).count()).isEqualTo(1);
						await().atMost(Duration.ofSeconds(10)).until(() -> queueAdmin.counts("acl").dead() == 1);
						assertThat(queueAdmin.purgeAllDead("acl")).isEqualTo(1);

						// what the dashboard does: pages of jobs, delete one, run a delayed one now
						queueAdmin.pause("acl-admin");
						queues.enqueue("acl-admin", "plain-1");
						String plain = queues.enqueue("acl-admin", "plain-2").id();
						queues.enqueue("acl-admin", "urgent", JobOptions.builder().priority(3).build());
						String delayed = queues
							.enqueue("acl-admin", "later", JobOptions.builder().delay(Duration.ofHours(1)).build())
							.id();
						assertThat(queueAdmin.jobs("acl-admin", JobState.READY, JobOrder.OLDEST_FIRST, 1, 2))
							.extracting(JobInfo::payloadAsString)
							.containsExactly("\"plain-1\"", "\"plain-2\"");
						assertThat(queueAdmin.deleteJob("acl-admin", plain)).isTrue();
						assertThat(queueAdmin.promote("acl-admin", delayed)).isTrue();
						assertThat(queueAdmin.counts("acl-admin").ready()).isEqualTo(3);
						await().atMost(Duration.ofSeconds(30)).until(() -> !queueAdmin.workers().isEmpty());
						queueAdmin.reapOnce();
						assertThat(queueAdmin.silentWorkers()).isEmpty();

						RedisConfigurationCheck.Report report = context.getBean(RedisConfigurationCheck.class)
							.report()
							.get();
						assertThat(report.source()).isEqualTo("INFO");
						assertThat(report.appendonly()).isEqualTo("yes");
					});
				assertNothingRefused(admin);
				assertThat(output).doesNotContain("NOPERM").doesNotContain("ERROR");
				assertThat(output.toString().lines().filter((line) -> line.contains(" WARN ")))
					.allSatisfy((line) -> assertThat(line).contains("dead-lettered after attempt 1"));
			}
			finally {
				admin.destroy();
			}
		}
	}

	/**
	 * Every command a script sends is granted: a script path that no test runs as the limited user
	 * still fails here when the recipe lacks its command.
	 */
	@Test
	void recipeGrantsEveryCommandOfTheScripts() throws IOException {
		Set<String> granted = new TreeSet<>();
		for (String word : readmeRecipe().split(" ")) {
			if (word.startsWith("+")) {
				granted.add(word.substring(1).toLowerCase(Locale.ROOT));
			}
		}
		Path scripts = Path.of("..", "queue-core", "src", "main", "resources", "io", "github", "redisqueue", "scripts");
		Set<String> sent = new TreeSet<>();
		Pattern call = Pattern.compile("redis\\.(?:p?call)\\('([A-Za-z]+)'");
		try (Stream<Path> files = Files.list(scripts)) {
			for (Path file : files.filter((f) -> f.toString().endsWith(".lua")).toList()) {
				Matcher m = call.matcher(Files.readString(file));
				while (m.find()) {
					sent.add(m.group(1).toLowerCase(Locale.ROOT));
				}
			}
		}
		assertThat(sent).hasSizeGreaterThan(30);
		assertThat(granted).containsAll(sent);
	}

	/**
	 * The features beyond the plain queue, as the limited user: a partitioned queue (its
	 * registration, consumers waiting on pub/sub, its admin pages), batches with a completion job
	 * and a cancel, groups, a recurring schedule, a rate-limited queue, progress, results,
	 * idempotent enqueues and the pull API's acknowledgements. Redis's ACL log must stay empty.
	 */
	@Test
	void limitedUserRunsEveryFeature(CapturedOutput output) throws IOException {
		String recipe = readmeRecipe();
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			LettuceConnectionFactory admin = TestRedis.connectionFactory(server.endpoint());
			try {
				command(admin, recipe.replace(">change-me", ">secret").split(" "));
				new ApplicationContextRunner()
					.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class,
							QueueListenerAutoConfiguration.class, QueueReaperAutoConfiguration.class,
							QueueScheduleAutoConfiguration.class))
					.withUserConfiguration(FeatureWorker.class)
					.withPropertyValues("spring.data.redis.host=" + server.host(),
							"spring.data.redis.port=" + server.port(), "spring.data.redis.username=queues",
							"spring.data.redis.password=secret", "queue.listener.poll-interval=200ms",
							"queue.reaper.interval=200ms", "queue.workers.heartbeat-interval=200ms",
							"queue.queues.acl-parts.partitions=4", "queue.queues.acl-rate.rate-limit=100/1s",
							"queue.schedules.acl-tick.cron=* * * * * *", "queue.schedules.acl-tick.queue=acl-ticks",
							"queue.schedules.acl-tick.payload=\"tick\"")
					.run((context) -> {
						assertThat(context).hasNotFailed();
						QueueTemplate queues = context.getBean(QueueTemplate.class);
						QueueAdmin queueAdmin = context.getBean(QueueAdmin.class);
						FeatureWorker worker = context.getBean(FeatureWorker.class);

						// a partitioned queue: every kind of enqueue, consumed by a listener
						for (int i = 0; i < 8; i++) {
							queues.enqueue("acl-parts", "p" + i, JobOptions.builder().partitionKey("tenant-" + i).build());
						}
						queues.enqueueAll("acl-parts", List.of("p-bulk-1", "p-bulk-2"), JobOptions.defaults());
						queues.enqueue("acl-parts", "p-unique", JobOptions.builder().uniqueKey("u").build());
						queues.enqueue("acl-parts", "p-idem", JobOptions.builder().idempotencyKey("i").build());
						assertThat(queues.enqueue("acl-parts", "p-idem", JobOptions.builder().idempotencyKey("i").build())
							.duplicate()).isTrue();
						queues.enqueue("acl-parts", "p-group", JobOptions.builder().group("g").build());
						queues.enqueue("acl-parts", "p-later", JobOptions.builder().delay(Duration.ofMillis(200)).build());
						// groups, batches and their completion job, a schedule
						for (int i = 0; i < 3; i++) {
							queues.enqueue("acl-groups", "g" + i, JobOptions.builder().group("customer-1").build());
						}
						queues.batch("acl-batch").onComplete("acl-batch-done", "batch finished")
							.addAll(List.of("b1", "b2", "b3"))
							.submit();
						await().atMost(Duration.ofSeconds(20))
							.until(() -> worker.done.containsAll(Set.of("p0", "p7", "p-bulk-2", "p-unique", "p-idem", "p-group",
									"p-later", "g2", "b3", "batch finished", "tick")));
						assertThat(queueAdmin.batches("acl-batch", 0, 10)).isEmpty();

						// administration of the partitioned queue
						queueAdmin.pause("acl-parts");
						queues.enqueue("acl-parts", "held-1", JobOptions.builder().partitionKey("t").build());
						String held = queues.enqueue("acl-parts", "held-2", JobOptions.builder().partitionKey("t").build()).id();
						String later = queues
							.enqueue("acl-parts", "held-later", JobOptions.builder().delay(Duration.ofHours(1)).build())
							.id();
						assertThat(queueAdmin.jobs("acl-parts", JobState.READY, JobOrder.OLDEST_FIRST, 0, 10)).hasSize(2);
						assertThat(queueAdmin.deleteJob("acl-parts", held)).isTrue();
						assertThat(queueAdmin.promote("acl-parts", later)).isTrue();
						assertThat(queueAdmin.partitionCounts("acl-parts")).hasSize(4);
						assertThat(queueAdmin.counts("acl-parts").ready()).isEqualTo(2);
						assertThat(queueAdmin.deadLetters("acl-parts", 0, 10)).isEmpty();
						assertThat(queueAdmin.overview()).isNotNull();
						assertThat(new QueuesEndpoint(queueAdmin).queue("acl-parts", 0, 10, null, null)).isNotNull();
						queueAdmin.resume("acl-parts");

						// a batch cancelled, the pull API on a rate-limited queue
						queueAdmin.pause("acl-batch");
						String cancelled = queues.batch("acl-batch").add("never").open().id();
						assertThat(queueAdmin.batches("acl-batch", 0, 10)).hasSize(1);
						assertThat(queueAdmin.cancelBatch("acl-batch", cancelled).state().isFinished()).isTrue();
						queues.enqueueAll("acl-rate", List.of("r1", "r2", "r3", "r4", "r5"), JobOptions.defaults());
						List<ReservedJob> pulled = queues.reserve("acl-rate", 5, Duration.ofMinutes(1));
						assertThat(pulled).hasSize(5);
						assertThat(queues.progress("acl-rate", pulled.get(0).ref(), "half")).isTrue();
						assertThat(queues.extend("acl-rate", pulled.get(0).ref(), Duration.ofMinutes(2))).isNotNull();
						assertThat(queues.storeResult("acl-rate", pulled.get(0).id(), "r1 done")).isTrue();
						queues.complete("acl-rate", pulled.get(0).ref());
						assertThat(queues.result("acl-rate", pulled.get(0).id(), String.class)).contains("r1 done");
						queues.retry("acl-rate", pulled.get(1).ref(), "again", Duration.ZERO);
						queues.deadLetter("acl-rate", pulled.get(2).ref(), "no");
						queues.release("acl-rate", pulled.get(3).ref());
						queues.releaseWorker("acl-rate", "nobody");
						assertThat(queueAdmin.retryAllDead("acl-rate")).isEqualTo(1);
						assertThat(queueAdmin.counts("acl-rate").ready()).isEqualTo(3);
						queueAdmin.reapOnce();
					});
				assertNothingRefused(admin);
				assertThat(output).doesNotContain("NOPERM").doesNotContain("ERROR");
			}
			finally {
				admin.destroy();
			}
		}
	}

	/**
	 * Redis counts, per command, the calls it refused before running them (INFO commandstats,
	 * {@code rejected_calls}), a refusal by ACL included, even of a call a script made: none, but
	 * for {@code CONFIG GET}, which the startup check tries before it falls back to {@code INFO}.
	 */
	private static void assertNothingRefused(LettuceConnectionFactory admin) {
		try (RedisConnection connection = admin.getConnection()) {
			Properties stats = connection.serverCommands().info("commandstats");
			assertThat(stats).isNotEmpty();
			assertThat(stats.stringPropertyNames()).filteredOn((command) -> !command.equals("cmdstat_config|get"))
				.allSatisfy((command) -> assertThat(stats.getProperty(command))
				.as(command)
				.contains("rejected_calls=0"));
		}
	}

	private static Object command(LettuceConnectionFactory factory, String... words) {
		List<byte[]> args = new ArrayList<>();
		for (int i = 1; i < words.length; i++) {
			args.add(words[i].getBytes(StandardCharsets.UTF_8));
		}
		try (RedisConnection connection = factory.getConnection()) {
			return connection.execute(words[0], args.toArray(byte[][]::new));
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Worker {

		final Set<String> done = ConcurrentHashMap.newKeySet();

		volatile boolean extended;

		private final QueueAdminOperations admin;

		Worker(QueueAdminOperations admin) {
			this.admin = admin;
		}

		@QueueListener(queue = "acl", id = "acl-worker", concurrency = "2")
		void handle(String payload, JobMetadata job) {
			if (payload.equals("fail")) {
				throw new IllegalStateException("fails on purpose");
			}
			if (payload.equals("slow")) {
				await().atMost(Duration.ofSeconds(10))
					.until(() -> this.admin.job("acl", job.id()).orElseThrow().leaseUntil().isAfter(job.leaseUntil()));
				this.extended = true;
			}
			this.done.add(payload);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FeatureWorker {

		final Set<String> done = ConcurrentHashMap.newKeySet();

		@QueueListener(queue = "acl-parts", id = "acl-parts-worker", concurrency = "2")
		void partitioned(String payload) {
			this.done.add(payload);
		}

		@QueueListener(queue = "acl-groups", id = "acl-groups-worker", concurrency = "2")
		void grouped(String payload) {
			this.done.add(payload);
		}

		@QueueListener(queue = "acl-batch", id = "acl-batch-worker")
		String batched(String payload) {
			this.done.add(payload);
			return payload + " done";
		}

		@QueueListener(queue = "acl-batch-done", id = "acl-batch-done-worker")
		void batchDone(String payload) {
			this.done.add(payload);
		}

		@QueueListener(queue = "acl-ticks", id = "acl-ticks-worker")
		void ticked(String payload) {
			this.done.add(payload);
		}

	}

}
