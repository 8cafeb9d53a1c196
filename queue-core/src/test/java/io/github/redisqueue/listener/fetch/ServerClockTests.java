package io.github.redisqueue.listener.fetch;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Due times are compared with the server clock (last reply plus elapsed monotonic time), so an
 * offset between the JVM's wall clock and Redis' changes nothing.
 */
class ServerClockTests {

	private static final Duration POLL = Duration.ofSeconds(1);

	private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

	private final ServerClock clock = new ServerClock(this.nanos::get);

	private void elapse(Duration time) {
		this.nanos.addAndGet(time.toNanos());
	}

	@Test
	void serverTimeAdvancesWithTheMonotonicClockFromTheLastReply() {
		// a server clock five seconds behind (or ahead of) the JVM's wall clock: irrelevant here
		Instant server = Instant.now().minusSeconds(5);
		this.clock.update(server);
		elapse(Duration.ofMillis(1500));

		assertThat(this.clock.now()).isEqualTo(server.plusMillis(1500));
	}

	@Test
	void aDueTimeComesWhenTheServerClockReachesIt() {
		Instant server = Instant.parse("2030-01-01T00:00:00Z");
		Instant due = server.plusSeconds(3);
		this.clock.update(server);

		assertThat(this.clock.isDue(due)).isFalse();
		assertThat(this.clock.waitTime(POLL, due)).isEqualTo(POLL);
		elapse(Duration.ofMillis(2500));
		assertThat(this.clock.isDue(due)).isFalse();
		assertThat(this.clock.waitTime(POLL, due)).isEqualTo(Duration.ofMillis(501));
		elapse(Duration.ofMillis(500));
		assertThat(this.clock.isDue(due)).isTrue();
		assertThat(this.clock.waitTime(POLL, due)).isEqualTo(Duration.ofMillis(1));
		elapse(Duration.ofSeconds(10));
		assertThat(this.clock.waitTime(POLL, due)).isEqualTo(Duration.ofMillis(1));
	}

	@Test
	void noDueTimeWaitsThePollInterval() {
		this.clock.update(Instant.parse("2030-01-01T00:00:00Z"));

		assertThat(this.clock.isDue(null)).isFalse();
		assertThat(this.clock.waitTime(POLL, null)).isEqualTo(POLL);
	}

	@Test
	void aNewReplyResetsTheBase() {
		Instant server = Instant.parse("2030-01-01T00:00:00Z");
		this.clock.update(server);
		elapse(Duration.ofSeconds(4));
		this.clock.update(server.plusSeconds(3)); // the server's clock stepped back a second
		assertThat(this.clock.now()).isEqualTo(server.plusSeconds(3));
	}

}
