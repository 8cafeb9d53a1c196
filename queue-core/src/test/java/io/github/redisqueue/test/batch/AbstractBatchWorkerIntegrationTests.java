package io.github.redisqueue.test.batch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.support.BatchCompletion;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.test.WorkerJvm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Base of the batch tests whose sub-jobs run in worker JVMs ({@link BatchWorkerMain}): a producer
 * template in this JVM, the worker JVMs of each test (killed after it), and a look at the
 * completion jobs the batches left.
 */
public abstract class AbstractBatchWorkerIntegrationTests extends AbstractRedisIntegrationTests {

	/** The queue of the sub-jobs. */
	protected static final String QUEUE = "pieces";

	/** The queue of the completion jobs, which nothing consumes. */
	protected static final String DONE = "pieces-done";

	private static final Duration WORKER_START = Duration.ofSeconds(60);

	private final List<WorkerJvm> workers = new ArrayList<>();

	/** The producer. */
	protected QueueTemplate queues;

	@BeforeEach
	void producer() {
		this.queues = new QueueTemplate(this.connectionFactory);
	}

	@AfterEach
	void stopWorkers() {
		this.workers.forEach(WorkerJvm::close);
		this.queues.destroy();
	}

	/**
	 * Start worker JVMs on {@link #QUEUE}, all at once, and wait until each runs its listener.
	 * @param concurrency handler threads of each
	 * @param lease lease of each job
	 * @param hang whether pieces marked {@code hang} block their handler for good
	 * @param names their worker ids
	 * @return the JVMs, in the order of the names
	 */
	protected List<WorkerJvm> startWorkers(int concurrency, Duration lease, boolean hang, String... names) {
		List<WorkerJvm> started = new ArrayList<>();
		for (String name : names) {
			WorkerJvm worker = BatchWorkerMain.launch(name, endpoint(), QUEUE, concurrency, lease, hang);
			this.workers.add(worker);
			started.add(worker);
		}
		started.forEach((worker) -> worker.awaitOutput(BatchWorkerMain.STARTED, WORKER_START));
		return started;
	}

	/**
	 * Wait until {@link #DONE} holds {@code count} completion jobs and stays so for two seconds,
	 * check that no more were ever enqueued, and take them.
	 * @param count the completion jobs expected
	 * @return what each tells its handler
	 */
	protected List<BatchCompletion> awaitCompletionJobs(int count) {
		QueueAdmin admin = new QueueAdmin(this.queues);
		await("completion jobs").atMost(Duration.ofSeconds(30)).until(() -> admin.counts(DONE).ready() == count);
		await("no further completion job").during(Duration.ofSeconds(2))
			.atMost(Duration.ofSeconds(10))
			.until(() -> admin.counts(DONE).ready() == count);
		assertThat(admin.counts(DONE).total("enqueued")).as("completion jobs ever enqueued").isEqualTo(count);
		return this.queues.reserve(DONE, count + 1, Duration.ofSeconds(30))
			.stream()
			.map((job) -> BatchCompletion.from(job.headers()::get))
			.toList();
	}

}
