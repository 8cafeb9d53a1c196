package io.github.redisqueue.samples.quickstart;

/**
 * The job payload: an e-mail to send.
 *
 * @param to the recipient
 * @param subject the subject; one containing "fail" makes the sender throw, to show retries
 */
public record Email(String to, String subject) {

}
