package io.github.redisqueue.testing;

import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.testing.OrdersApplication.Order;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that end with dead letters, expected or not, for {@link DeadLetterCheckIntegrationTests}
 * to run through the JUnit launcher and read their outcomes. Some fail by design: the name keeps
 * the class out of the build's own test run (which takes {@code *Tests} classes).
 */
@QueueTest(classes = OrdersApplication.class, properties = "queue.listener.poll-interval=100ms")
class DeadLetterScenarios {

	@Autowired
	private QueueTestHelper helper;

	@Autowired
	private QueueTemplate queues;

	private void deadLetterOne() {
		this.queues.enqueue("orders", new Order("refuse-it", 1));
		this.helper.awaitDrained("orders");
		assertThat(this.helper.deadLetters("orders")).hasSize(1);
	}

	@Test
	void leavesADeadLetter() {
		deadLetterOne();
	}

	@Test
	@ExpectDeadLetters("orders")
	void expectsThemByAnnotation() {
		deadLetterOne();
	}

	@Test
	@ExpectDeadLetters
	void expectsAnyByAnnotation() {
		deadLetterOne();
	}

	@Test
	void expectsThemByCall() {
		this.helper.expectDeadLetters("orders");
		deadLetterOne();
	}

	@Test
	@ExpectDeadLetters("invoices")
	void expectsThemInAnotherQueue() {
		deadLetterOne();
	}

	@Test
	void failsOnItsOwn() {
		deadLetterOne();
		throw new AssertionError("its own failure");
	}

}
