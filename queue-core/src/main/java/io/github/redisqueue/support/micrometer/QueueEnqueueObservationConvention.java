package io.github.redisqueue.support.micrometer;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags of the enqueue observation: {@code queue.enqueue} with the low-cardinality key
 * {@code queue} (and {@code error}, added by the metrics handler) and the number of jobs of the
 * call as a high-cardinality key. Implement it and set it on the template to change them.
 *
 * @since 0.1.0
 */
public interface QueueEnqueueObservationConvention extends ObservationConvention<QueueEnqueueContext> {

	/** The default convention. */
	QueueEnqueueObservationConvention DEFAULT = new QueueEnqueueObservationConvention() {
	};

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof QueueEnqueueContext;
	}

	@Override
	default String getName() {
		return "queue.enqueue";
	}

	@Override
	default String getContextualName(QueueEnqueueContext context) {
		return context.getQueue() + " send";
	}

	@Override
	default KeyValues getLowCardinalityKeyValues(QueueEnqueueContext context) {
		return KeyValues.of(QueueObservation.EnqueueLowCardinalityKeys.QUEUE.withValue(context.getQueue()));
	}

	@Override
	default KeyValues getHighCardinalityKeyValues(QueueEnqueueContext context) {
		return KeyValues.of(QueueObservation.EnqueueHighCardinalityKeys.JOB_COUNT
			.withValue(Integer.toString(context.getJobCount())));
	}

}
