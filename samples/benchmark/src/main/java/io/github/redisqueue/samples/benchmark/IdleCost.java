package io.github.redisqueue.samples.benchmark;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.listener.QueueListenerContainer;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * What consumers cost Redis with no jobs: one started {@code @QueueListener} container (C
 * threads), or the thin loop's C consumers blocked on {@code BLMOVE}, left idle for a while; the
 * commands Redis executed (inside scripts included) and the commands the client sent, per second.
 * The figures' per-job columns read per second here.
 */
final class IdleCost {

	private final RedisUnderTest redis;

	private final Duration duration;

	IdleCost(RedisUnderTest redis, Duration duration) {
		this.redis = redis;
		this.duration = duration;
	}

	/** Commands executed per second and round trips per second. */
	static Figures[] figures(String who) {
		return new Figures[] { new Figures(who + "idle, commands executed", "cmds/s"),
				new Figures(who + "idle, commands sent", "rt/s") };
	}

	void ours(QueueTemplate queues, int concurrency, Figures[] figures) {
		this.redis.flushAll();
		try (AnnotationConfigApplicationContext context = QueueBenchmark.listenerContext(queues, concurrency,
				new BenchListener())) {
			QueueListenerContainer container = QueueBenchmark.container(context);
			container.start();
			Measure.awaitBlocked(this.redis, 1);
			measure(figures);
			container.stop();
		}
	}

	void thin(ThinLoop thin, int concurrency, Figures[] figures) throws Exception {
		this.redis.flushAll();
		try (ThinLoop.Blocked consumers = thin.blocked((payload, now) -> {
		})) {
			Measure.awaitBlocked(this.redis, concurrency);
			measure(figures);
		}
	}

	private void measure(Figures[] figures) {
		Measure measure = Measure.start(this.redis);
		long end = System.nanoTime() + this.duration.toNanos();
		for (long left = this.duration.toNanos(); left > 0; left = end - System.nanoTime()) {
			LockSupport.parkNanos(left);
		}
		double seconds = measure.seconds();
		CommandStats.Delta commands = measure.commands();
		long cpu = measure.cpu();
		long perSecond = Math.max(1, Math.round(seconds));
		figures[0].add(commands.executed() / seconds, commands, perSecond, cpu);
		figures[1].add(commands.roundTrips() / seconds, commands, perSecond, cpu);
	}

}
