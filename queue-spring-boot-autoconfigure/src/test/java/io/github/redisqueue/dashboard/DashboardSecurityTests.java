package io.github.redisqueue.dashboard;

import java.net.http.HttpResponse;

import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard in an application with Spring Security: anonymous users are refused (by the
 * application's filter chain, and by the dashboard itself where the chain lets everybody in), a
 * user without the configured role is refused, an action without CSRF token fails, and a user
 * with the role logs in through the browser and acts.
 */
@Tag("browser")
@ExtendWith(OutputCaptureExtension.class)
class DashboardSecurityTests {

	@BeforeEach
	void flush() {
		TestRedis.flushAll(TestRedis.shared());
	}

	@Test
	void onlyAnAuthenticatedUserWithTheRoleSeesTheDashboardAndActionsNeedTheCsrfToken(CapturedOutput output) {
		try (ConfigurableApplicationContext app = DashboardApps.start(SecuredApp.class,
				"queue.dashboard.role=QUEUE_ADMIN")) {
			String base = DashboardApps.base(app);
			QueueAdmin admin = app.getBean(QueueAdmin.class);
			app.getBean(QueueTemplate.class).enqueue("orders", "x");

			HttpResponse<String> anonymous = DashboardApps.get(base + "/api/overview", null, null);
			assertThat(anonymous.statusCode()).isIn(401, 302);
			assertThat(anonymous.body()).doesNotContain("orders");

			HttpResponse<String> viewer = DashboardApps.get(base + "/api/overview", "viewer", "viewer-secret");
			assertThat(viewer.statusCode()).isEqualTo(403);
			assertThat(viewer.body()).contains("ROLE_QUEUE_ADMIN").doesNotContain("\"orders\"");

			HttpResponse<String> ops = DashboardApps.get(base + "/api/overview", "ops", "ops-secret");
			assertThat(ops.statusCode()).isEqualTo(200);
			assertThat(ops.body()).contains("\"orders\"").contains("\"user\":\"ops\"");

			HttpResponse<String> noToken = DashboardApps.post(base + "/api/queues/orders/pause", "ops", "ops-secret",
					"X-Queue-Dashboard", "1");
			// Spring Security's CSRF filter refuses it (403; Spring Boot's error page, forwarded to
			// without the credentials, may turn that into 401): either way nothing is paused
			assertThat(noToken.statusCode()).isIn(401, 403);
			assertThat(admin.counts("orders").paused()).isFalse();

			try (Browser browser = Browser.start()) {
				browser.open(base + "/");
				browser.find("input[name='username']").sendKeys("ops");
				browser.find("input[name='password']").sendKeys("ops-secret");
				browser.find("button[type='submit']").click();
				browser.waitForText("tr[data-queue='orders'] td[data-count='ready']", "1");
				browser.waitForText("#user", "ops");
				browser.clickUntil("tr[data-queue='orders'] a", (d) -> d.getCurrentUrl().contains("#/queue/orders"));
				browser.clickAndConfirm("button[data-action='pause']");
				browser.waitForText("#queue-state", "paused");
				assertThat(browser.driver().findElements(By.cssSelector("#flash.error"))).isEmpty();
			}
			assertThat(admin.counts("orders").paused()).isTrue();
			// the action is logged with the user who ran it
			assertThat(output).containsPattern("Queue dashboard: user 'ops' \\(127\\.0\\.0\\.1\\) ran 'pause' on "
					+ "queue 'orders': paused");
		}
	}

	@Test
	void dashboardRefusesAnonymousUsersEvenWhereTheFilterChainLetsEverybodyIn() {
		try (ConfigurableApplicationContext app = DashboardApps.start(PermitAllApp.class)) {
			String base = DashboardApps.base(app);
			app.getBean(QueueTemplate.class).enqueue("orders", "x");

			HttpResponse<String> page = DashboardApps.get(base + "/", null, null);
			assertThat(page.statusCode()).isEqualTo(401);
			HttpResponse<String> overview = DashboardApps.get(base + "/api/overview", null, null);
			assertThat(overview.statusCode()).isEqualTo(401);
			assertThat(overview.body()).contains("authenticated user").doesNotContain("\"orders\"");
		}
	}

	static InMemoryUserDetailsManager users() {
		return new InMemoryUserDetailsManager(
				User.withUsername("ops").password("{noop}ops-secret").roles("QUEUE_ADMIN").build(),
				User.withUsername("viewer").password("{noop}viewer-secret").roles("USER").build());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class SecuredApp {

		@Bean
		InMemoryUserDetailsManager userDetailsService() {
			return users();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class PermitAllApp {

		@Bean
		SecurityFilterChain permitAll(HttpSecurity http) throws Exception {
			return http.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll()).build();
		}

	}

}
