package io.github.redisqueue.actuate.endpoint;

import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.test.RedisEndpoint;
import io.github.redisqueue.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The {@code queues} endpoint's operations on a real Redis: invalid requests are refused as
 * invalid (a 400 over HTTP), pause and resume report whether they changed the queue's state,
 * and the endpoint is read-only unless its access is raised.
 */
class QueuesEndpointTests {

	private final RedisEndpoint redis = TestRedis.shared();

	private LettuceConnectionFactory factory;

	private QueueTemplate queues;

	private QueueAdmin admin;

	private QueuesEndpoint endpoint;

	@BeforeEach
	void start() {
		TestRedis.flushAll(this.redis);
		this.factory = TestRedis.connectionFactory(this.redis);
		this.queues = new QueueTemplate(this.factory);
		this.admin = new QueueAdmin(this.queues);
		this.endpoint = new QueuesEndpoint(this.admin);
	}

	@AfterEach
	void stop() {
		this.factory.destroy();
	}

	@Test
	void isReadOnlyUnlessItsAccessIsRaised() {
		Endpoint endpoint = QueuesEndpoint.class.getAnnotation(Endpoint.class);
		assertThat(endpoint.id()).isEqualTo("queues");
		assertThat(endpoint.defaultAccess()).isEqualTo(Access.READ_ONLY);
	}

	@Test
	void invalidQueueNameIsAnInvalidRequestNamingTheRule() {
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.queue("bad name", null, null))
			.satisfies((ex) -> assertThat(ex.getReason()).contains("'bad name'")
				.contains("letters, digits, '.', '_' or '-'"));
		for (String action : new String[] { "pause", "resume", "retry-dead", "purge-dead" }) {
			assertThatExceptionOfType(InvalidEndpointRequestException.class).as(action)
				.isThrownBy(() -> this.endpoint.act("bad name", action, null))
				.satisfies((ex) -> assertThat(ex.getReason()).contains("'bad name'"));
		}
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.act("bad name", "retry-dead", "1"));
	}

	@Test
	void invalidDeadLetterPageIsAnInvalidRequestNamingTheRange() {
		this.queues.enqueue("emails", "x");
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.queue("emails", -1, null))
			.satisfies((ex) -> assertThat(ex.getReason()).contains("offset -1").contains("0 or more"));
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.queue("emails", null, 0))
			.satisfies((ex) -> assertThat(ex.getReason()).contains("size 0").contains("from 1 to"));
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.queue("emails", 0, 1_000_000));
		assertThat(this.endpoint.queue("emails", 0, 5).counts().ready()).isEqualTo(1);
	}

	@Test
	void pauseAndResumeCountOneOnlyWhenTheStateChanged() {
		assertThat(this.endpoint.act("idle", "pause", null).count()).isEqualTo(1);
		assertThat(this.admin.counts("idle").paused()).isTrue();
		assertThat(this.endpoint.act("idle", "pause", null).count()).isZero();
		assertThat(this.endpoint.act("idle", "resume", null).count()).isEqualTo(1);
		assertThat(this.admin.counts("idle").paused()).isFalse();
		assertThat(this.endpoint.act("idle", "resume", null).count()).isZero();
	}

	@Test
	void unknownActionIsAnInvalidRequest() {
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.act("emails", "explode", null))
			.satisfies((ex) -> assertThat(ex.getReason()).contains("pause, resume, retry-dead or purge-dead"));
	}

}
