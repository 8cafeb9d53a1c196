package io.github.redisqueue.listener.fetch;

import java.time.Instant;
import java.util.Map;

import io.github.redisqueue.core.ReservedJob;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No interrupt reaches a handler thread once its job is settled (the lease keeper may have seen
 * it extendable just before): the thread may be sending acknowledgements of other jobs by then.
 */
class RunningJobTests {

	private final RunningJob job = new RunningJob(new ReservedJob("q", "1", new byte[0], Map.of(), 1, 3, 1,
			Instant.now().plusSeconds(30), Instant.now(), 0));

	@AfterEach
	void clearInterrupt() {
		Thread.interrupted();
	}

	@Test
	void lostLeaseInterruptsARunningHandler() {
		assertThat(this.job.started(Thread.currentThread())).isTrue();

		this.job.loseLease();

		assertThat(Thread.interrupted()).isTrue();
		assertThat(this.job.isLost()).isTrue();
		assertThat(this.job.isExtendable()).isFalse();
	}

	@Test
	void lostLeaseAfterTheJobWasSettledInterruptsNothing() {
		assertThat(this.job.started(Thread.currentThread())).isTrue();
		this.job.stopExtending(); // the handler settled it and goes on to send acknowledgements

		this.job.loseLease(); // the lease keeper saw it extendable a moment before

		assertThat(Thread.interrupted()).as("handler thread interrupted").isFalse();
		assertThat(this.job.isLost()).isFalse();
	}

	@Test
	void lostLeaseAfterTheJobFinishedInterruptsNothing() {
		assertThat(this.job.started(Thread.currentThread())).isTrue();
		this.job.finished();

		this.job.loseLease();

		assertThat(Thread.interrupted()).isFalse();
	}

	@Test
	void jobWhoseLeaseWasLostBeforeItStartedDoesNotRun() {
		this.job.loseLease();

		assertThat(this.job.started(Thread.currentThread())).isFalse();
		assertThat(Thread.interrupted()).isFalse();
	}

}
