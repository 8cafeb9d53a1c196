package io.github.redisqueue.samples.humantasks;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Work for people: reviewers take a task from a web page under a lease, then mark it done or
 * give it back. A task abandoned in a browser returns to the queue when its lease runs out.
 */
@SpringBootApplication
public class HumanTasksApplication {

	public static void main(String[] args) {
		SpringApplication.run(HumanTasksApplication.class, args);
	}

}
