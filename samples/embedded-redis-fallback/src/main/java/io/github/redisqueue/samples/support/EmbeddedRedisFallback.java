package io.github.redisqueue.samples.support;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.embedded.RedisServer;

import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.boot.context.event.SpringApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Samples only: when nothing answers at {@code spring.data.redis.host}/{@code port} and the
 * host is this machine, start the Redis 7.0.15 binary shipped in {@code org.signal:embedded-redis}
 * on that port, so the sample runs on a machine with only a JDK. Switch it off with
 * {@code sample.embedded-redis=false}. Registered through {@code META-INF/spring.factories}, so
 * every sample that depends on this module gets it.
 */
public class EmbeddedRedisFallback implements ApplicationListener<SpringApplicationEvent> {

	private static final Logger logger = LoggerFactory.getLogger(EmbeddedRedisFallback.class);

	private static RedisServer server;

	@Override
	public void onApplicationEvent(SpringApplicationEvent event) {
		if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
			environmentPrepared(prepared);
		}
		else if (event instanceof ApplicationPreparedEvent prepared) {
			// stopped when the context is closed, after the queue containers and the heartbeat
			// stopped (a JVM shutdown hook would race them and leave them without Redis)
			if (prepared.getApplicationContext().getBeanFactory() instanceof DefaultSingletonBeanRegistry registry) {
				registry.registerDisposableBean("sampleEmbeddedRedis", EmbeddedRedisFallback::stop);
			}
		}
		else if (event instanceof ApplicationFailedEvent) {
			stop();
		}
	}

	private void environmentPrepared(ApplicationEnvironmentPreparedEvent event) {
		ConfigurableEnvironment environment = event.getEnvironment();
		if (!environment.getProperty("sample.embedded-redis", Boolean.class, true)) {
			return;
		}
		String host = environment.getProperty("spring.data.redis.host", "localhost");
		int port = environment.getProperty("spring.data.redis.port", Integer.class, 6379);
		if (reachable(host, port)) {
			logger.info("Using the Redis at {}:{}", host, port);
			return;
		}
		if (!host.equals("localhost") && !host.startsWith("127.")) {
			logger.warn("No Redis answers at {}:{}; not starting an embedded one for a remote host", host, port);
			return;
		}
		start(port);
	}

	private static synchronized void start(int port) {
		if (server != null) {
			return;
		}
		server = RedisServer.builder().port(port).setting("bind 127.0.0.1").setting("save \"\"").build();
		server.start();
		logger.warn("No Redis answered at localhost:{}; started an embedded Redis 7.0.15 on that port "
				+ "(sample only: its data is gone when the application stops)", port);
	}

	private static synchronized void stop() {
		if (server != null) {
			try {
				server.stop();
			}
			catch (RuntimeException ex) {
				logger.warn("Could not stop the embedded Redis", ex);
			}
			server = null;
		}
	}

	private static boolean reachable(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
