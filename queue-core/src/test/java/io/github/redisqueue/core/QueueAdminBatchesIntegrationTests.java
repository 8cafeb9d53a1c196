package io.github.redisqueue.core;

import java.time.Duration;
import java.util.List;

import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The admin lists a queue's open batches oldest first with their progress, page by page, reads
 * and cancels one batch, and the queue's counts show how many batches are open.
 */
class QueueAdminBatchesIntegrationTests extends AbstractRedisIntegrationTests {

	private QueueTemplate queues;

	private QueueAdmin admin;

	@BeforeEach
	void engine() {
		this.queues = new QueueTemplate(this.connectionFactory);
		this.admin = new QueueAdmin(this.queues);
	}

	@Test
	void openBatchesOldestFirstWithTheirProgress() {
		Batch first = this.queues.batch("resize").id("a-first").maxConcurrency(2).priority(5)
			.addAll(List.of(1, 2, 3, 4, 5))
			.submit();
		Batch second = this.queues.batch("resize").id("b-second").maxConcurrency(1)
			.onComplete("resize-done")
			.addAll(List.of(6, 7))
			.open();
		ReservedJob job = this.queues.reserve("resize", 1, Duration.ofMinutes(1)).get(0);
		assertThat(job.priority()).as("the higher priority batch runs first").isEqualTo(5);
		this.queues.complete("resize", job.ref());

		List<BatchStatus> batches = this.admin.batches("resize", 0, 10);

		assertThat(batches).extracting(BatchStatus::id).containsExactly(first.id(), second.id());
		BatchStatus sealed = batches.get(0);
		assertThat(sealed.state()).isEqualTo(BatchState.SEALED);
		assertThat(sealed.maxConcurrency()).isEqualTo(2);
		assertThat(sealed.priority()).isEqualTo(5);
		assertThat(sealed.total()).isEqualTo(5);
		assertThat(sealed.completed()).isEqualTo(1);
		assertThat(sealed.active()).isEqualTo(2);
		assertThat(sealed.waiting()).isEqualTo(2);
		assertThat(sealed.finishedAt()).isNull();
		BatchStatus open = batches.get(1);
		assertThat(open.state()).isEqualTo(BatchState.OPEN);
		assertThat(open.active()).isEqualTo(1);
		assertThat(open.waiting()).isEqualTo(1);
		assertThat(open.completionQueue()).isEqualTo("resize-done");
		assertThat(open.createdAt()).isAfterOrEqualTo(sealed.createdAt());
		assertThat(batches).isEqualTo(List.of(first.status(), second.status()));

		assertThat(this.admin.batches("resize", 1, 1)).extracting(BatchStatus::id).containsExactly(second.id());
		assertThat(this.admin.batches("resize", 2, 100)).isEmpty();
		assertThat(this.admin.batches("other", 0, 1)).isEmpty();
	}

	@Test
	void finishedBatchesLeaveTheList() {
		this.queues.batch("resize").id("a").addAll(List.of(1)).submit();
		this.queues.batch("resize").id("b").addAll(List.of(2)).open();
		assertThat(this.admin.cancelBatch("resize", "b").state()).isEqualTo(BatchState.CANCELLED);
		assertThat(this.admin.batches("resize", 0, 10)).extracting(BatchStatus::id).containsExactly("a");
		assertThat(this.admin.batch("resize", "b")).get().extracting(BatchStatus::cancelled).isEqualTo(1L);
		assertThat(this.admin.batch("resize", "none")).isEmpty();
		assertThatExceptionOfType(QueueBatchException.class).isThrownBy(() -> this.admin.cancelBatch("resize", "none"));

		this.queues.complete("resize", this.queues.reserve("resize", 1, Duration.ofMinutes(1)).get(0).ref());

		assertThat(this.admin.batches("resize", 0, 10)).isEmpty();
		QueueCounts counts = this.admin.counts("resize");
		assertThat(counts.openBatches()).isZero();
		assertThat(counts.total("batchesCompleted")).isEqualTo(1);
		assertThat(counts.total("batchesCancelled")).isEqualTo(1);
	}

	@Test
	void countsShowOpenBatchesAndTheAdmittedSubJobsAsReady() {
		this.queues.batch("mixed").maxConcurrency(2).addAll(List.of(1, 2, 3, 4, 5)).open();
		this.queues.batch("mixed").addAll(List.of(6)).submit();
		this.queues.enqueue("mixed", "plain");

		QueueCounts counts = this.admin.counts("mixed");

		assertThat(counts.openBatches()).isEqualTo(2);
		assertThat(counts.ready()).as("admitted sub-jobs and the plain job").isEqualTo(2 + 1 + 1);
		assertThat(counts.pending()).as("waiting sub-jobs are in no state of the queue").isEqualTo(4);
		assertThat(this.admin.batches("mixed", 0, 10)).extracting(BatchStatus::waiting).containsExactly(3L, 0L);
		assertThat(this.admin.overview().queues().get("mixed").openBatches()).isEqualTo(2);
	}

	@Test
	void pageOutOfRangeIsRefusedNamingTheRule() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.batches("resize", -1, 10))
			.withMessageContaining("offset must be 0 or more");
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.batches("resize", 0, 0))
			.withMessageContaining("count from 1 to 100");
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.batches("resize", 0, 101))
			.withMessageContaining("count from 1 to 100");
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.batches("bad name", 0, 10))
			.withMessageContaining("'bad name'");
	}

}
