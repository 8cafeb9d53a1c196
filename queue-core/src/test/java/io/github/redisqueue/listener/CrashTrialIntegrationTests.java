package io.github.redisqueue.listener;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import io.github.redisqueue.test.crash.CrashTrial;
import io.github.redisqueue.test.crash.TrialReport;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

/**
 * Fault injection across processes: three worker JVMs with a
 * {@code @QueueListener} (concurrency 4, prefetch 4) consume 5,000 jobs that a producer
 * enqueues, single and in bulk, over 40 seconds, while a worker is stopped every 3.5 s (SIGKILL,
 * every fourth stop a SIGTERM) and started again with the same worker id, Redis (append-only file,
 * {@code appendfsync always}) is SIGKILLed twice and started again on its data, the script cache
 * is flushed and every client connection is killed at intervals. Each handler run is journaled
 * outside Redis (a line before and after the handler's body). No job may be lost, stuck or dead,
 * and every duplicate must be a run that a worker's SIGKILL cut short while Redis had the job
 * under that worker's lease: its handler was running, or had ended and its acknowledgement had not
 * reached Redis ({@link TrialReport} has the exact rule); none may straddle a Redis SIGKILL.
 * {@code samples/crash-trial} runs the long version.
 */
// on one server only: it kills and restarts a server of its own
@Tag("single-node")
class CrashTrialIntegrationTests {

	@Test
	void noJobIsLostStuckOrDeadAndEveryDuplicateHasAnAcceptedCause() throws Exception {
		// journals and worker logs stay for a look after a failure
		Path dir = Files.createDirectories(Path.of("target", "crash-trial", String.valueOf(System.currentTimeMillis())));
		String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		try (RedisServerProcess redis = TestRedis.startPrivate("--appendonly", "yes", "--appendfsync", "always");
				CrashTrial trial = new CrashTrial(CrashTrial.Settings.ci(), redis, CrashTrial.classpath(classpath), dir,
						System.err::println)) {
			trial.start();
			trial.awaitProduction(Duration.ofSeconds(90));
			try {
				await().atMost(Duration.ofSeconds(45)).pollInterval(Duration.ofMillis(250)).until(trial::drained);
			}
			catch (ConditionTimeoutException ex) {
				fail("The queue did not drain within 45 s of the last enqueue: " + trial.progress() + "\n"
						+ trial.finish().details());
			}
			TrialReport report = trial.finish();
			System.err.println(report.details());

			assertThat(report.workerKills()).as("worker SIGKILLs").isGreaterThanOrEqualTo(3);
			assertThat(report.redisKills()).as("Redis SIGKILLs").isEqualTo(2);
			assertThat(report.unhandled()).as("enqueued jobs never handled to the end\n%s", report.details()).isEmpty();
			assertThat(report.lost()).as("lost\n%s", report.details()).isZero();
			assertThat(report.stuck()).as("stuck\n%s", report.details()).isZero();
			assertThat(report.dead()).as("dead\n%s", report.details()).isZero();
			assertThat(report.aroundRedisKills()).as("duplicates around Redis SIGKILLs\n%s", report.details()).isZero();
			assertThat(report.unexplained()).as("duplicates not cut short by a worker's SIGKILL\n%s", report.details())
				.isEmpty();
			assertThat(report.atWorkerKills() + report.explained().get(TrialReport.RESENT_ENQUEUE))
				.as("duplicates, each running or cut off at a worker's SIGKILL (or a re-sent enqueue)")
				.isEqualTo(report.duplicates());
		}
	}

}
