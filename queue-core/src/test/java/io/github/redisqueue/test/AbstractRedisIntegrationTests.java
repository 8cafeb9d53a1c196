package io.github.redisqueue.test;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Base of {@code *IntegrationTests} that need Redis: the JVM's shared test server
 * ({@link TestRedis#shared()}), a connection factory and a {@link StringRedisTemplate} per test
 * class, and an empty server ({@code FLUSHALL}) before each test.
 * <p>
 * The class uses {@link TestInstance.Lifecycle#PER_CLASS}: one instance serves all tests of a
 * class, so the factory and template are plain instance fields set up in {@code @BeforeAll} and
 * destroyed in {@code @AfterAll}. The endpoint is static because the server is shared by the JVM.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractRedisIntegrationTests {

	private static RedisEndpoint endpoint;

	/** The connection factory of this test class, started before its first test. */
	protected LettuceConnectionFactory connectionFactory;

	/** A template on {@link #connectionFactory}. */
	protected StringRedisTemplate redis;

	/**
	 * The shared test server.
	 * @return its endpoint
	 */
	protected RedisEndpoint endpoint() {
		return AbstractRedisIntegrationTests.endpoint;
	}

	@BeforeAll
	void connectToSharedRedis() {
		AbstractRedisIntegrationTests.endpoint = TestRedis.shared();
		this.connectionFactory = TestRedis.connectionFactory(AbstractRedisIntegrationTests.endpoint);
		this.redis = new StringRedisTemplate(this.connectionFactory);
	}

	@BeforeEach
	void flushSharedRedis() {
		TestRedis.flushAll(AbstractRedisIntegrationTests.endpoint);
	}

	@AfterAll
	void disconnectFromSharedRedis() {
		if (this.connectionFactory != null) {
			this.connectionFactory.destroy();
		}
	}

}
