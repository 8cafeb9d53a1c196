package io.github.redisqueue.config;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import io.github.redisqueue.listener.AcknowledgementMode;
import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.listener.JobListener;
import io.github.redisqueue.listener.adapter.MessagingJobListenerAdapter;
import org.jspecify.annotations.Nullable;

import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;

/**
 * An endpoint backed by a bean method, as {@code @QueueListener} declares it. Settings left
 * {@code null} keep the value the container factory gives for the queue.
 *
 * @since 0.1.0
 */
public class MethodQueueListenerEndpoint implements QueueListenerEndpoint {

	private final String id;

	private final String queue;

	private final Object bean;

	private final Method method;

	private @Nullable Integer concurrency;

	private @Nullable Duration lease;

	private @Nullable Integer prefetch;

	private @Nullable Integer maxAttempts;

	private @Nullable Duration backOffInitial;

	private @Nullable Double backOffMultiplier;

	private @Nullable Duration backOffMax;

	private List<Class<? extends Throwable>> notRetryable = List.of();

	private @Nullable AcknowledgementMode ackMode;

	private @Nullable Boolean autoStartup;

	public MethodQueueListenerEndpoint(String id, String queue, Object bean, Method method) {
		this.id = id;
		this.queue = queue;
		this.bean = bean;
		this.method = method;
	}

	@Override
	public String getId() {
		return this.id;
	}

	@Override
	public String getQueue() {
		return this.queue;
	}

	public Object getBean() {
		return this.bean;
	}

	public Method getMethod() {
		return this.method;
	}

	public void setConcurrency(@Nullable Integer concurrency) {
		this.concurrency = concurrency;
	}

	public void setPrefetch(@Nullable Integer prefetch) {
		this.prefetch = prefetch;
	}

	public void setLease(@Nullable Duration lease) {
		this.lease = lease;
	}

	public void setMaxAttempts(@Nullable Integer maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	public void setBackOff(@Nullable Duration initial, @Nullable Double multiplier, @Nullable Duration max) {
		this.backOffInitial = initial;
		this.backOffMultiplier = multiplier;
		this.backOffMax = max;
	}

	public void setNotRetryable(List<Class<? extends Throwable>> notRetryable) {
		this.notRetryable = List.copyOf(notRetryable);
	}

	public void setAckMode(@Nullable AcknowledgementMode ackMode) {
		this.ackMode = ackMode;
	}

	public void setAutoStartup(@Nullable Boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	/**
	 * The given options with the settings of this endpoint that are set. A back-off value left
	 * unset keeps the one of the given options.
	 */
	@Override
	public ContainerOptions customize(ContainerOptions options) {
		ContainerOptions.Builder builder = options.toBuilder();
		ifSet(this.concurrency, builder::concurrency);
		ifSet(this.lease, builder::lease);
		ifSet(this.prefetch, builder::prefetch);
		ifSet(this.maxAttempts, builder::maxAttempts);
		ifSet(this.backOffInitial, builder::backOffInitial);
		ifSet(this.backOffMultiplier, builder::backOffMultiplier);
		ifSet(this.backOffMax, builder::backOffMax);
		if (!this.notRetryable.isEmpty()) {
			builder.notRetryable(this.notRetryable);
		}
		ifSet(this.ackMode, builder::acknowledgementMode);
		ifSet(this.autoStartup, builder::autoStartup);
		return builder.build();
	}

	private static <T> void ifSet(@Nullable T value, Consumer<T> setter) {
		if (value != null) {
			setter.accept(value);
		}
	}

	@Override
	public JobListener createListener(MessageHandlerMethodFactory methodFactory) {
		return new MessagingJobListenerAdapter(methodFactory.createInvocableHandlerMethod(this.bean, this.method));
	}

	@Override
	public String toString() {
		return "MethodQueueListenerEndpoint[id=" + this.id + ", queue=" + this.queue + ", method=" + this.method + "]";
	}

}
