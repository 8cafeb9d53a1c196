package io.github.redisqueue.samples.benchmark;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The start of a measured phase: the commands Redis executed and the client sent, the clock and
 * the JVM's CPU time and heap allocation, read again at its end.
 */
final class Measure {

	private static final Method TOTAL_ALLOCATED = totalAllocated();

	private final RedisUnderTest redis;

	private final CommandStats before;

	private final long startNanos;

	private final long startCpu;

	private final long startAllocated;

	private Measure(RedisUnderTest redis) {
		this.redis = redis;
		this.before = CommandStats.of(redis.info("commandstats"), redis.sent());
		this.startNanos = System.nanoTime();
		this.startCpu = processCpu();
		this.startAllocated = allocatedBytes();
	}

	static Measure start(RedisUnderTest redis) {
		return new Measure(redis);
	}

	/** Record the throughput of {@code jobs} jobs since the start. */
	void stop(Figures figures, long jobs) {
		double seconds = seconds();
		figures.add(jobs / seconds, commands(), jobs, cpu());
		figures.allocated(allocated(), jobs);
	}

	double seconds() {
		return (System.nanoTime() - this.startNanos) / 1e9;
	}

	CommandStats.Delta commands() {
		return CommandStats.of(this.redis.info("commandstats"), this.redis.sent()).since(this.before);
	}

	long cpu() {
		return processCpu() - this.startCpu;
	}

	/** The bytes the JVM allocated on its heap since the start, all threads. */
	long allocated() {
		return allocatedBytes() - this.startAllocated;
	}

	/**
	 * The bytes allocated on the heap since the JVM started: all threads, those that ended included,
	 * where the JVM tells ({@code getTotalThreadAllocatedBytes}, looked up at run time as the API of
	 * Java 17 that the benchmark compiles against does not have it); else the threads alive now.
	 */
	static long allocatedBytes() {
		com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
		if (TOTAL_ALLOCATED != null) {
			try {
				return (Long) TOTAL_ALLOCATED.invoke(threads);
			}
			catch (ReflectiveOperationException | RuntimeException ex) {
				// fall through to the threads alive now
			}
		}
		long total = 0;
		for (long allocated : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
			total += Math.max(0, allocated);
		}
		return total;
	}

	private static Method totalAllocated() {
		try {
			return com.sun.management.ThreadMXBean.class.getMethod("getTotalThreadAllocatedBytes");
		}
		catch (NoSuchMethodException ex) {
			return null;
		}
	}

	static long processCpu() {
		return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime();
	}

	/**
	 * Wait until at least {@code clients} clients of Redis are blocked (consumers waiting for work),
	 * for at most 10 seconds; a Redis shared with other clients may count theirs too.
	 */
	static void awaitBlocked(RedisUnderTest redis, int clients) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (Long.parseLong(redis.info("clients").getProperty("blocked_clients", "0")) < clients
				&& System.nanoTime() < deadline) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
		}
	}

}
