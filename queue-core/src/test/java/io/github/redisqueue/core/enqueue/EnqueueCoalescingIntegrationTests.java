package io.github.redisqueue.core.enqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;


import static org.assertj.core.api.Assertions.assertThat;

/**
 * Single enqueues from many threads share script calls on a real Redis: fewer calls than jobs,
 * and each caller's id names the job it enqueued.
 */
class EnqueueCoalescingIntegrationTests extends AbstractRedisIntegrationTests {

	@Test
	void eightProducerThreadsShareCallsAndEachGetsTheIdOfItsOwnJob() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		int threads = 8;
		int each = 250;
		long before = scriptCalls();
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		Map<String, String> sent = new ConcurrentHashMap<>();
		try {
			List<Future<?>> producers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int producer = t;
				producers.add(pool.submit(() -> {
					for (int i = 0; i < each; i++) {
						String payload = "p" + producer + "-" + i;
						String id = queues.enqueue("coalesced", payload, JobOptions.defaults()).id();
						assertThat(sent.put(id, payload)).as("id %s given twice", id).isNull();
					}
				}));
			}
			for (Future<?> producer : producers) {
				producer.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		long calls = scriptCalls() - before;

		assertThat(sent).hasSize(threads * each);
		assertThat(calls).as("script calls for %d single enqueues", threads * each).isLessThan(threads * each);
		sent.forEach((id, payload) -> assertThat(
				new String(admin.job("coalesced", id).orElseThrow().payload(), java.nio.charset.StandardCharsets.UTF_8))
			.isEqualTo("\"" + payload + "\""));
	}

}
