package io.github.redisqueue.actuate.endpoint;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.github.redisqueue.core.Batch;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.test.RedisEndpoint;
import io.github.redisqueue.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.invoke.convert.ConversionServiceParameterValueMapper;
import org.springframework.boot.actuate.endpoint.web.EndpointMediaTypes;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpointDiscoverer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.list;

/**
 * The {@code queues} endpoint as Actuator maps it to HTTP: one path and method per operation,
 * none clashing, and the batch operations answer requests whose arguments arrive as text.
 */
class QueuesEndpointWebOperationsTests {

	private final RedisEndpoint redis = TestRedis.shared();

	private LettuceConnectionFactory factory;

	private QueueTemplate queues;

	private QueueAdmin admin;

	@BeforeEach
	void start() {
		TestRedis.flushAll(this.redis);
		this.factory = TestRedis.connectionFactory(this.redis);
		this.queues = new QueueTemplate(this.factory);
		this.admin = new QueueAdmin(this.queues);
	}

	@AfterEach
	void stop() {
		this.factory.destroy();
	}

	@Test
	void everyOperationHasAPathAndMethodOfItsOwn() {
		withOperations((operations) -> assertThat(operations.keySet()).containsExactlyInAnyOrder("GET queues",
				"GET queues/{name}", "GET queues/{name}/{part}", "GET queues/{name}/{part}/{id}",
				"POST queues/{name}/{action}"));
	}

	@Test
	void batchOperationsAnswerTextArguments() {
		Batch first = this.queues.batch("resize").id("a").addAll(List.of(1, 2)).submit();
		this.queues.batch("resize").id("b").add(3).open();
		withOperations((operations) -> {
			Object page = operations.get("GET queues/{name}/{part}")
				.invoke(context(Map.of("name", "resize", "part", "batches", "offset", "1", "size", "5")));
			assertThat(page).asInstanceOf(list(BatchDescriptor.class))
				.extracting(BatchDescriptor::id)
				.containsExactly("b");
			Object one = operations.get("GET queues/{name}/{part}/{id}")
				.invoke(context(Map.of("name", "resize", "part", "batches", "id", first.id())));
			assertThat(one).isInstanceOfSatisfying(BatchDescriptor.class,
					(batch) -> assertThat(batch.total()).isEqualTo(2));
			Object cancelled = operations.get("POST queues/{name}/{action}")
				.invoke(context(Map.of("name", "resize", "action", "cancel-batch", "id", "b")));
			assertThat(cancelled).isEqualTo(new QueueActionDescriptor("resize", "cancel-batch", 1));
		});
	}

	private void withOperations(Consumer<Map<String, WebOperation>> check) {
		new ApplicationContextRunner().withBean(QueuesEndpoint.class, () -> new QueuesEndpoint(this.admin))
			.run((context) -> {
				WebEndpointDiscoverer discoverer = new WebEndpointDiscoverer(context,
						new ConversionServiceParameterValueMapper(), EndpointMediaTypes.DEFAULT, List.of(), List.of(),
						List.of(), List.of(), List.of());
				ExposableWebEndpoint endpoint = discoverer.getEndpoints().iterator().next();
				Map<String, WebOperation> operations = new HashMap<>();
				endpoint.getOperations()
					.forEach((operation) -> operations.put(operation.getRequestPredicate().getHttpMethod() + " "
							+ operation.getRequestPredicate().getPath(), operation));
				check.accept(operations);
			});
	}

	private static InvocationContext context(Map<String, Object> arguments) {
		return new InvocationContext(SecurityContext.NONE, arguments);
	}

}
