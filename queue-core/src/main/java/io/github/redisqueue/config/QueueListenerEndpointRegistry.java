package io.github.redisqueue.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redisqueue.listener.QueueListenerContainer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;

/**
 * Owns the listener containers (they are not beans): creates them from endpoints, refuses a
 * second container with an id already taken, starts those that start automatically with the
 * application and stops them all together, in parallel, with one callback.
 *
 * @since 0.1.0
 */
public class QueueListenerEndpointRegistry implements SmartLifecycle, DisposableBean {

	private static final Logger logger = LoggerFactory.getLogger(QueueListenerEndpointRegistry.class);

	private final Map<String, QueueListenerContainer> containers = new LinkedHashMap<>();

	private volatile boolean running;

	/**
	 * Create and register the container of an endpoint.
	 * @param endpoint the endpoint
	 * @param factory its container factory
	 * @param methodFactory builds its handler method
	 * @param startImmediately whether to start it now (for endpoints registered after startup)
	 * @return the container
	 */
	public QueueListenerContainer registerListenerContainer(QueueListenerEndpoint endpoint,
			QueueListenerContainerFactory factory, MessageHandlerMethodFactory methodFactory, boolean startImmediately) {
		synchronized (this.containers) {
			if (this.containers.containsKey(endpoint.getId())) {
				throw new IllegalStateException("Another queue listener container already has id '" + endpoint.getId()
						+ "'; give each @QueueListener a unique id");
			}
			QueueListenerContainer container = factory.createContainer(endpoint, methodFactory);
			this.containers.put(endpoint.getId(), container);
			if (startImmediately && this.running && container.isAutoStartup()) {
				container.start();
			}
			return container;
		}
	}

	/** The container with this id, or {@code null}. */
	public @Nullable QueueListenerContainer getListenerContainer(String id) {
		synchronized (this.containers) {
			return this.containers.get(id);
		}
	}

	/** The ids of every container. */
	public Set<String> getListenerContainerIds() {
		synchronized (this.containers) {
			return Collections.unmodifiableSet(new java.util.LinkedHashSet<>(this.containers.keySet()));
		}
	}

	/** Every container. */
	public Collection<QueueListenerContainer> getListenerContainers() {
		synchronized (this.containers) {
			return List.copyOf(this.containers.values());
		}
	}

	@Override
	public int getPhase() {
		return DEFAULT_PHASE - 100;
	}

	@Override
	public void start() {
		for (QueueListenerContainer container : getListenerContainers()) {
			if (container.isAutoStartup()) {
				container.start();
			}
		}
		this.running = true;
	}

	@Override
	public void stop() {
		stop(() -> {
		});
	}

	@Override
	public void stop(Runnable callback) {
		this.running = false;
		List<QueueListenerContainer> running = new ArrayList<>();
		for (QueueListenerContainer container : getListenerContainers()) {
			if (container.isRunning()) {
				running.add(container);
			}
		}
		if (running.isEmpty()) {
			callback.run();
			return;
		}
		CountDownLatch latch = new CountDownLatch(running.size());
		for (QueueListenerContainer container : running) {
			// one thread per container, named after it (queue-stop-<id>-1)
			new SimpleAsyncTaskExecutor("queue-stop-" + container.getId() + "-")
				.execute(() -> container.stop(latch::countDown));
		}
		try {
			if (!latch.await(5, TimeUnit.MINUTES)) {
				logger.warn("Queue listener containers did not stop within 5 minutes");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		callback.run();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public void destroy() {
		for (QueueListenerContainer container : getListenerContainers()) {
			container.stop();
		}
	}

}
