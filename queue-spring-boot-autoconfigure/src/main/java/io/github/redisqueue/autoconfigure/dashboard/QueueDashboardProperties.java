package io.github.redisqueue.autoconfigure.dashboard;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the operator dashboard, under {@code queue.dashboard.}.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("queue.dashboard")
public class QueueDashboardProperties {

	/**
	 * Whether to serve the dashboard (a Spring MVC application is needed). Off unless set.
	 */
	private boolean enabled = false;

	/**
	 * Path the dashboard is served under: its pages at the path itself, its JSON under
	 * '{path}/api'. Starts with '/', does not end with one.
	 */
	private String path = "/queues";

	/**
	 * Whether the dashboard only shows: every action is hidden, and refused when posted anyway.
	 */
	private boolean readOnly = false;

	/**
	 * Role a user needs to open the dashboard when Spring Security is active (for example
	 * 'QUEUE_ADMIN' or 'ROLE_QUEUE_ADMIN'). Unset: any authenticated user.
	 */
	private @Nullable String role;

	/**
	 * Time between two refreshes of an open page (counts, job lists, the throughput chart).
	 */
	private Duration refreshInterval = Duration.ofSeconds(3);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getPath() {
		return this.path;
	}

	public void setPath(String path) {
		this.path = path;
	}

	public boolean isReadOnly() {
		return this.readOnly;
	}

	public void setReadOnly(boolean readOnly) {
		this.readOnly = readOnly;
	}

	public @Nullable String getRole() {
		return this.role;
	}

	public void setRole(@Nullable String role) {
		this.role = role;
	}

	public Duration getRefreshInterval() {
		return this.refreshInterval;
	}

	public void setRefreshInterval(Duration refreshInterval) {
		this.refreshInterval = refreshInterval;
	}

}
