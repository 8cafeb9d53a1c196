package io.github.redisqueue.core.enqueue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redisqueue.core.EnqueueResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The group commit of single enqueues, without Redis: what callers arriving during a call share,
 * who sends, and who gets which result or failure.
 */
class EnqueueCoalescerTests {

	private final ExecutorService threads = Executors.newFixedThreadPool(8);

	@AfterEach
	void stop() {
		this.threads.shutdownNow();
	}

	@Test
	void callersArrivingDuringACallShareTheNextOneAndEachGetsItsOwnResult() throws Exception {
		EnqueueCoalescer coalescer = new EnqueueCoalescer(100);
		EnqueueCoalescer.Key key = EnqueueCoalescer.Key.of("q", this, new byte[] { 1 });
		List<List<String>> calls = new CopyOnWriteArrayList<>();
		CountDownLatch firstCallSent = new CountDownLatch(1);
		CountDownLatch releaseFirstCall = new CountDownLatch(1);
		Future<EnqueueResult> first = this.threads.submit(() -> coalescer.enqueue(key, bytes("j0"), (jobs) -> {
			calls.add(strings(jobs));
			firstCallSent.countDown();
			awaitLatch(releaseFirstCall);
			return results(jobs);
		}));
		assertThat(firstCallSent.await(10, TimeUnit.SECONDS)).isTrue();
		List<Future<EnqueueResult>> others = new ArrayList<>();
		for (int i = 1; i <= 7; i++) {
			String job = "j" + i;
			others.add(this.threads.submit(() -> coalescer.enqueue(key, bytes(job), (jobs) -> {
				calls.add(strings(jobs));
				return results(jobs);
			})));
		}
		// all seven wait behind the first call
		await().atMost(java.time.Duration.ofSeconds(10)).until(() -> waiting(coalescer) == 7);
		releaseFirstCall.countDown();

		assertThat(first.get(10, TimeUnit.SECONDS).id()).isEqualTo("id-j0");
		for (int i = 1; i <= 7; i++) {
			assertThat(others.get(i - 1).get(10, TimeUnit.SECONDS).id()).isEqualTo("id-j" + i);
		}
		assertThat(calls).hasSize(2);
		assertThat(calls.get(0)).containsExactly("j0");
		assertThat(calls.get(1)).containsExactlyInAnyOrder("j1", "j2", "j3", "j4", "j5", "j6", "j7");
	}

	@Test
	void aFailedSharedCallFailsEachOfItsCallersAndTheNextCallersStillSend() throws Exception {
		EnqueueCoalescer coalescer = new EnqueueCoalescer(100);
		EnqueueCoalescer.Key key = EnqueueCoalescer.Key.of("q", this, new byte[0]);
		CountDownLatch firstCallSent = new CountDownLatch(1);
		CountDownLatch releaseFirstCall = new CountDownLatch(1);
		Future<EnqueueResult> first = this.threads.submit(() -> coalescer.enqueue(key, bytes("j0"), (jobs) -> {
			firstCallSent.countDown();
			awaitLatch(releaseFirstCall);
			return results(jobs);
		}));
		assertThat(firstCallSent.await(10, TimeUnit.SECONDS)).isTrue();
		List<Future<EnqueueResult>> failing = new ArrayList<>();
		for (int i = 1; i <= 3; i++) {
			String job = "j" + i;
			failing.add(this.threads.submit(() -> coalescer.enqueue(key, bytes(job), (jobs) -> {
				throw new IllegalStateException("refused " + strings(jobs).size());
			})));
		}
		await().atMost(java.time.Duration.ofSeconds(10)).until(() -> waiting(coalescer) == 3);
		releaseFirstCall.countDown();

		assertThat(first.get(10, TimeUnit.SECONDS).id()).isEqualTo("id-j0");
		for (Future<EnqueueResult> each : failing) {
			assertThatThrownBy(() -> each.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class)
				.hasMessageContaining("refused 3");
		}
		// the lane is free again: a caller alone sends at once
		assertThat(CompletableFuture
			.supplyAsync(() -> coalescer.enqueue(key, bytes("j9"), EnqueueCoalescerTests::results), this.threads)
			.get(10, TimeUnit.SECONDS)
			.id()).isEqualTo("id-j9");
	}

	@Test
	void anInterruptedCallerWhoseTurnItIsSendsTheSharedCallWholeAndKeepsItsInterrupt() throws Exception {
		EnqueueCoalescer coalescer = new EnqueueCoalescer(100);
		EnqueueCoalescer.Key key = EnqueueCoalescer.Key.of("q", this, new byte[0]);
		CountDownLatch firstCallSent = new CountDownLatch(1);
		CountDownLatch releaseFirstCall = new CountDownLatch(1);
		// like the script executor: a call made on an interrupted thread fails
		java.util.function.Function<List<byte[]>, List<EnqueueResult>> send = (jobs) -> {
			if (Thread.currentThread().isInterrupted()) {
				throw new IllegalStateException("Interrupted while waiting for Redis");
			}
			return results(jobs);
		};
		Future<EnqueueResult> first = this.threads.submit(() -> coalescer.enqueue(key, bytes("a"), (jobs) -> {
			firstCallSent.countDown();
			awaitLatch(releaseFirstCall);
			return results(jobs);
		}));
		assertThat(firstCallSent.await(10, TimeUnit.SECONDS)).isTrue();
		java.util.concurrent.atomic.AtomicReference<Thread> bThread = new java.util.concurrent.atomic.AtomicReference<>();
		java.util.concurrent.atomic.AtomicBoolean bKeptInterrupt = new java.util.concurrent.atomic.AtomicBoolean();
		Future<EnqueueResult> b = this.threads.submit(() -> {
			bThread.set(Thread.currentThread());
			EnqueueResult result = coalescer.enqueue(key, bytes("b"), send);
			bKeptInterrupt.set(Thread.interrupted());
			return result;
		});
		await().atMost(java.time.Duration.ofSeconds(10)).until(() -> waiting(coalescer) == 1);
		Future<EnqueueResult> c = this.threads.submit(() -> coalescer.enqueue(key, bytes("c"), send));
		await().atMost(java.time.Duration.ofSeconds(10)).until(() -> waiting(coalescer) == 2);
		bThread.get().interrupt();
		releaseFirstCall.countDown();

		assertThat(first.get(10, TimeUnit.SECONDS).id()).isEqualTo("id-a");
		assertThat(b.get(10, TimeUnit.SECONDS).id()).isEqualTo("id-b");
		assertThat(c.get(10, TimeUnit.SECONDS).id()).isEqualTo("id-c");
		assertThat(bKeptInterrupt).isTrue();
	}

	@Test
	void callsWithOtherOptionsOrHeadersDoNotShare() {
		Object options = new Object();
		assertThat(EnqueueCoalescer.Key.of("q", options, new byte[] { 1 }))
			.isEqualTo(EnqueueCoalescer.Key.of("q", options, new byte[] { 1 }))
			.isNotEqualTo(EnqueueCoalescer.Key.of("q", new Object(), new byte[] { 1 }))
			.isNotEqualTo(EnqueueCoalescer.Key.of("q", options, new byte[] { 2 }))
			.isNotEqualTo(EnqueueCoalescer.Key.of("r", options, new byte[] { 1 }));
	}

	private static int waiting(EnqueueCoalescer coalescer) {
		return coalescer.waitingCount();
	}

	private static void awaitLatch(CountDownLatch latch) {
		try {
			latch.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static List<String> strings(List<byte[]> jobs) {
		return jobs.stream().map((b) -> new String(b, StandardCharsets.UTF_8)).toList();
	}

	private static List<EnqueueResult> results(List<byte[]> jobs) {
		return strings(jobs).stream().map((job) -> new EnqueueResult("id-" + job, false)).toList();
	}

}
