package io.github.redisqueue.support.micrometer;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.listener.QueueListenerContainer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationHandler.FirstMatchingCompositeObservationHandler;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A trace started where a job is enqueued continues in the listener that runs it: the enqueue
 * is a producer span whose context is written into the job's headers, and the handler's span is
 * its child in the same trace.
 */
class TraceContinuityIntegrationTests extends AbstractRedisIntegrationTests {

	private SimpleTracer tracer = new SimpleTracer();

	private SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private ObservationRegistry observations = ObservationRegistry.create();

	@BeforeEach
	void newTracer() {
		this.tracer = new SimpleTracer();
		this.meters = new SimpleMeterRegistry();
		this.observations = ObservationRegistry.create();
		Propagator propagator = new TraceparentPropagator(this.tracer);
		this.observations.observationConfig()
			.observationHandler(new DefaultMeterObservationHandler(this.meters))
			.observationHandler(new FirstMatchingCompositeObservationHandler(
					new PropagatingSenderTracingObservationHandler<>(this.tracer, propagator),
					new PropagatingReceiverTracingObservationHandler<>(this.tracer, propagator),
					new DefaultTracingObservationHandler(this.tracer)));
	}

	@Test
	void traceStartedAtEnqueueContinuesInTheHandler() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.setObservationRegistry(this.observations);
		CompletableFuture<String> traceInHandler = new CompletableFuture<>();
		QueueListenerContainer container = new QueueListenerContainer("traced", "trace", queues, (job, ack) -> {
			Span current = this.tracer.currentSpan();
			traceInHandler.complete((current != null) ? current.context().traceId() : "no span");
		}, ContainerOptions.builder().pollInterval(Duration.ofMillis(100)).build(), null, null);
		container.setObservationRegistry(this.observations);
		container.start();
		try {
			Observation request = Observation.start("http.request", this.observations);
			try (Observation.Scope scope = request.openScope()) {
				queues.enqueue("trace", "payload", JobOptions.builder().header("tenant", "acme").build());
			}
			finally {
				request.stop();
			}

			SimpleSpan root = span("http.request", null);
			String traceId = root.getTraceId();
			assertThat(traceId).isNotEmpty();
			assertThat(traceInHandler.get(10, TimeUnit.SECONDS)).isEqualTo(traceId);
			SimpleSpan producer = span("trace send", traceId);
			// the consumer span is named and ended when the observation stops, after the handler
			SimpleSpan consumer = await().atMost(Duration.ofSeconds(10))
				.until(() -> findSpan("trace process", traceId), Objects::nonNull);
			assertThat(producer.getTraceId()).isEqualTo(traceId);
			assertThat(producer.getParentId()).isEqualTo(root.getSpanId());
			assertThat(consumer.getTraceId()).isEqualTo(traceId);
			assertThat(consumer.getParentId()).isEqualTo(producer.getSpanId());
			assertThat(consumer.getKind()).isEqualTo(Span.Kind.CONSUMER);
			assertThat(producer.getKind()).isEqualTo(Span.Kind.PRODUCER);
			assertThat(this.meters.get("queue.enqueue").tag("queue", "trace").timer().count()).isEqualTo(1);
		}
		finally {
			container.stop();
		}
	}

	@Test
	void traceContextIsStoredInTheHeadersNextToTheCallersOwn() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.setObservationRegistry(this.observations);
		Observation request = Observation.start("batch", this.observations);
		try (Observation.Scope scope = request.openScope()) {
			queues.enqueueAll("trace", List.of(1, 2), JobOptions.builder().header("tenant", "acme").build());
		}
		finally {
			request.stop();
		}
		String traceId = span("batch", null).getTraceId();

		List<ReservedJob> jobs = queues.reserve("trace", 2, Duration.ofMinutes(1));
		assertThat(jobs).hasSize(2).allSatisfy((job) -> {
			assertThat(job.headers()).containsEntry("tenant", "acme");
			assertThat(job.headers().get("traceparent")).startsWith("00-" + traceId + "-");
		});
	}

	@Test
	void withoutAnObservationRegistryTheHeadersAreTheCallersOnly() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueue("trace", 1, JobOptions.builder().header("tenant", "acme").build());

		assertThat(queues.reserve("trace", 1, Duration.ofMinutes(1)).get(0).headers())
			.isEqualTo(Map.of("tenant", "acme"));
	}

	private SimpleSpan span(String name, @Nullable String traceId) {
		SimpleSpan span = findSpan(name, traceId);
		if (span == null) {
			throw new AssertionError("No span '" + name + "' in " + this.tracer.getSpans());
		}
		return span;
	}

	/** The newest finished span of that name (in that trace). */
	private @Nullable SimpleSpan findSpan(String name, @Nullable String traceId) {
		SimpleSpan found = null;
		for (SimpleSpan span : this.tracer.getSpans()) {
			if (name.equals(span.getName()) && (traceId == null || traceId.equals(span.getTraceId()))
					&& span.getEndTimestamp().toEpochMilli() > 0) {
				found = span;
			}
		}
		return found;
	}

	/**
	 * Writes and reads a W3C-style {@code traceparent} header; enough for the simple tracer,
	 * which has no propagator of its own.
	 */
	static final class TraceparentPropagator implements Propagator {

		private final SimpleTracer tracer;

		TraceparentPropagator(SimpleTracer tracer) {
			this.tracer = tracer;
		}

		@Override
		public List<String> fields() {
			return List.of("traceparent");
		}

		@Override
		public <C> void inject(TraceContext context, C carrier, Setter<C> setter) {
			setter.set(carrier, "traceparent", "00-" + context.traceId() + "-" + context.spanId() + "-01");
		}

		@Override
		public <C> Span.Builder extract(C carrier, Getter<C> getter) {
			String value = getter.get(carrier, "traceparent");
			if (value == null) {
				return this.tracer.spanBuilder();
			}
			String[] parts = value.split("-");
			TraceContext parent = this.tracer.traceContextBuilder()
				.traceId(parts[1])
				.spanId(parts[2])
				.sampled(true)
				.build();
			return this.tracer.spanBuilder().setParent(parent);
		}

	}

}
