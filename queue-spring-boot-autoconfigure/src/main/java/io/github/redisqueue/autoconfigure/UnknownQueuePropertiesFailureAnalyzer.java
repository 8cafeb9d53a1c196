package io.github.redisqueue.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns an {@link UnknownQueuePropertiesException} into Spring Boot's failure report: each
 * unknown key with its source and the nearest valid key, and what to do about them.
 */
class UnknownQueuePropertiesFailureAnalyzer extends AbstractFailureAnalyzer<UnknownQueuePropertiesException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnknownQueuePropertiesException cause) {
		return new FailureAnalysis(cause.getMessage(), "Correct or remove these properties, or set "
				+ UnknownQueuePropertiesCheck.FAIL_PROPERTY + "=false to only log a warning for each.", cause);
	}

}
