package io.github.redisqueue.listener;

import java.util.List;

import io.github.redisqueue.config.MethodQueueListenerEndpoint;
import io.github.redisqueue.config.QueueListenerEndpointRegistry;
import io.github.redisqueue.core.QueueTemplate;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The registry owns the containers and refuses a second one with an id already taken.
 */
class EndpointRegistryTests {

	@Test
	void secondContainerWithTheSameIdIsRefused() throws Exception {
		// the template is never used: no container is started and nothing connects
		QueueTemplate template = new QueueTemplate(new LettuceConnectionFactory());
		DefaultMessageHandlerMethodFactory methods = new DefaultMessageHandlerMethodFactory();
		methods.afterPropertiesSet();
		QueueListenerEndpointRegistry registry = new QueueListenerEndpointRegistry();
		Handler handler = new Handler();
		MethodQueueListenerEndpoint endpoint = new MethodQueueListenerEndpoint("mail", "emails", handler,
				Handler.class.getDeclaredMethod("handle", String.class));

		registry.registerListenerContainer(endpoint,
				(e, m) -> new QueueListenerContainer(e.getId(), e.getQueue(), template, e.createListener(m),
						e.customize(ContainerOptions.defaults()), null, null),
				methods, false);

		assertThatIllegalStateException()
			.isThrownBy(() -> registry.registerListenerContainer(endpoint, (e, m) -> null, methods, false))
			.withMessageContaining("'mail'");
		assertThat(registry.getListenerContainerIds()).containsExactly("mail");
		assertThat(List.copyOf(registry.getListenerContainers())).singleElement()
			.satisfies((container) -> assertThat(container.isRunning()).isFalse());
	}

	static class Handler {

		void handle(String payload) {
		}

	}

}
