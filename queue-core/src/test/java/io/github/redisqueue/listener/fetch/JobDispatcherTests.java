package io.github.redisqueue.listener.fetch;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import io.github.redisqueue.core.Reservation;
import io.github.redisqueue.core.ReservedJob;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The hand-over of reserved jobs to the executor: in order, one slot and one task each; on the client's I/O thread
 * it stops at a stopped loop or a refusing executor without throwing, and tells how many it handed over.
 */
class JobDispatcherTests {

	private final JobSlots slots = new JobSlots(2, 4);

	private final List<Runnable> tasks = new ArrayList<>();

	@Test
	void handsOverEveryJobInOrderWhileTheLoopIsActive() {
		JobDispatcher dispatcher = new JobDispatcher(this.slots, this.tasks::add, (job) -> {
		}, true);

		int handed = dispatcher.handOff(reservation("a", "b", "c"), () -> true);

		assertThat(handed).isEqualTo(3);
		assertThat(this.tasks).hasSize(3);
		assertThat(this.slots.jobs()).extracting((job) -> job.job().id()).containsExactlyInAnyOrder("a", "b", "c");
		assertThat(this.slots.free()).isEqualTo(3);
	}

	@Test
	void handsOverNothingOnceTheLoopStopped() {
		JobDispatcher dispatcher = new JobDispatcher(this.slots, this.tasks::add, (job) -> {
		}, true);

		int handed = dispatcher.handOff(reservation("a", "b"), () -> false);

		assertThat(handed).isZero();
		assertThat(this.tasks).isEmpty();
		assertThat(this.slots.jobs()).isEmpty();
	}

	@Test
	void stopsWithoutThrowingAtAJobTheExecutorRefusesAndFreesItsSlot() {
		Executor twoThenFull = (task) -> {
			if (this.tasks.size() == 2) {
				throw new RejectedExecutionException("full");
			}
			this.tasks.add(task);
		};
		JobDispatcher dispatcher = new JobDispatcher(this.slots, twoThenFull, (job) -> {
		}, true);

		int handed = dispatcher.handOff(reservation("a", "b", "c", "d"), () -> true);

		assertThat(handed).isEqualTo(2);
		assertThat(this.slots.jobs()).extracting((job) -> job.job().id()).containsExactlyInAnyOrder("a", "b");
		assertThat(this.slots.free()).isEqualTo(4);
	}

	@Test
	void aRefusedDispatchFreesTheSlotAndThrows() {
		JobDispatcher dispatcher = new JobDispatcher(this.slots, (task) -> {
			throw new RejectedExecutionException("full");
		}, (job) -> {
		}, false);

		assertThatExceptionOfType(RejectedExecutionException.class).isThrownBy(() -> dispatcher.dispatch(job("a"), false));
		assertThat(this.slots.jobs()).isEmpty();
		assertThat(this.slots.free()).isEqualTo(6);
	}

	@Test
	void theTasksRunTheJobsInTheOrderTheyWereHandedOver() {
		List<String> ran = new ArrayList<>();
		JobDispatcher dispatcher = new JobDispatcher(this.slots, this.tasks::add, (job) -> ran.add(job.job().id()),
				true);
		dispatcher.handOff(reservation("a", "b", "c"), () -> true);

		// whichever task runs first takes the first job in line
		for (int i = this.tasks.size() - 1; i >= 0; i--) {
			this.tasks.get(i).run();
		}

		assertThat(ran).containsExactly("a", "b", "c");
		assertThat(this.slots.jobs()).isEmpty();
	}

	private static Reservation reservation(String... ids) {
		List<ReservedJob> jobs = new ArrayList<>();
		for (String id : ids) {
			jobs.add(job(id));
		}
		return new Reservation(jobs, null, 0, 0, 0, 0, Instant.now());
	}

	private static ReservedJob job(String id) {
		return new ReservedJob("q", id, new byte[0], Map.of(), 1, 3, 1, Instant.now().plusSeconds(30), Instant.now(), 0);
	}

}
