package io.github.redisqueue.actuate.endpoint;

import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code queues} endpoint is read-only unless its access is raised.
 */
class QueuesEndpointTests {

	@Test
	void isReadOnlyUnlessItsAccessIsRaised() {
		Endpoint endpoint = QueuesEndpoint.class.getAnnotation(Endpoint.class);
		assertThat(endpoint.id()).isEqualTo("queues");
		assertThat(endpoint.defaultAccess()).isEqualTo(Access.READ_ONLY);
	}

}
