package io.github.redisqueue.samples.quickstart;

import java.util.concurrent.atomic.AtomicLong;

import io.github.redisqueue.annotation.QueueListener;
import io.github.redisqueue.support.JobMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * Handles the {@code emails} queue. Returning acknowledges the job; throwing retries it with
 * back-off and dead-letters it after its last attempt.
 */
@Component
public class EmailSender {

	private static final Logger logger = LoggerFactory.getLogger(EmailSender.class);

	private final AtomicLong sent = new AtomicLong();

	@QueueListener(queue = "emails", id = "email-sender")
	void send(Email email, JobMetadata job) {
		if (email.subject().contains("fail")) {
			throw new IllegalStateException("mail server refused '" + email.subject() + "'");
		}
		logger.info("Sent '{}' to {} (job {}, attempt {})", email.subject(), email.to(), job.id(), job.attempt());
		this.sent.incrementAndGet();
	}

	/** E-mails sent since start. */
	public long sent() {
		return this.sent.get();
	}

}
