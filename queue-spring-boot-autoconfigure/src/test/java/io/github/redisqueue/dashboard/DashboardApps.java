package io.github.redisqueue.dashboard;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.TestRedis;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Starts web applications with the dashboard on a free port of 127.0.0.1, on the shared test
 * Redis, and sends them plain HTTP requests.
 */
final class DashboardApps {

	/** The auto-configurations of Spring Security, left out of applications meant to run without it. */
	static final String NO_SECURITY = "spring.autoconfigure.exclude="
			+ "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration,"
			+ "org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration,"
			+ "org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration,"
			+ "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration,"
			+ "org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration";

	private static final HttpClient http = HttpClient.newBuilder()
		.followRedirects(HttpClient.Redirect.NEVER)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	private DashboardApps() {
	}

	/** Starts an application of the given configuration with the dashboard enabled and more properties. */
	static ConfigurableApplicationContext start(Class<?> configuration, String... properties) {
		RedisEndpoint redis = TestRedis.shared();
		List<String> all = new ArrayList<>(List.of(TestRedis.springProperties(redis)));
		all.addAll(List.of("server.address=127.0.0.1", "server.port=0", "queue.dashboard.enabled=true",
				"queue.dashboard.refresh-interval=500ms", "queue.listener.poll-interval=200ms",
				"queue.retention.completed=1h", "queue.workers.heartbeat-interval=1s", "spring.main.banner-mode=off"));
		all.addAll(List.of(properties));
		return new SpringApplicationBuilder(configuration).properties(all.toArray(String[]::new)).run();
	}

	/** The dashboard's address in a running application: {@code http://127.0.0.1:port/queues}. */
	static String base(ConfigurableApplicationContext context) {
		return "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port") + "/queues";
	}

	static HttpResponse<String> get(String url, @Nullable String user, @Nullable String password) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).header("Accept", "application/json");
		return send(authorized(request, user, password).GET().build());
	}

	static HttpResponse<String> post(String url, @Nullable String user, @Nullable String password,
			String... headers) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).header("Accept", "application/json");
		if (headers.length > 0) {
			request.headers(headers);
		}
		return send(authorized(request, user, password).POST(HttpRequest.BodyPublishers.noBody()).build());
	}

	private static HttpRequest.Builder authorized(HttpRequest.Builder request, @Nullable String user,
			@Nullable String password) {
		if (user != null) {
			String credentials = user + ":" + password;
			request.header("Authorization",
					"Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
		}
		return request;
	}

	private static HttpResponse<String> send(HttpRequest request) {
		try {
			return http.send(request, HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new IllegalStateException("Request " + request.uri() + " failed", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
