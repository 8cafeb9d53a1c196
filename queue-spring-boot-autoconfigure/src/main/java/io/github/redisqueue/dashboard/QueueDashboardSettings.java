package io.github.redisqueue.dashboard;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * How the dashboard is served.
 *
 * @param path the path of its page (starts with {@code /}, does not end with one); its JSON API is
 * under {@code path + "/api"}
 * @param readOnly whether every action is hidden and refused
 * @param role the role a user needs when Spring Security guards the dashboard, or {@code null}
 * for any authenticated user
 * @param refreshInterval time between two refreshes of an open page
 * @param springSecurity whether Spring Security's filter chain runs in the application, so that
 * the dashboard requires an authenticated user and a CSRF token for actions
 * @since 0.1.0
 */
public record QueueDashboardSettings(String path, boolean readOnly, @Nullable String role, Duration refreshInterval,
		boolean springSecurity) {

	/**
	 * Checks the settings.
	 * @throws IllegalArgumentException if the path or the interval is invalid, or a role is set
	 * without Spring Security
	 */
	public QueueDashboardSettings {
		if (!path.startsWith("/") || path.endsWith("/") || path.contains("*") || path.contains("{")
				|| path.contains("//")) {
			throw new IllegalArgumentException("queue.dashboard.path '" + path + "' is invalid: it must start with '/', "
					+ "must not end with '/' and holds no pattern characters, as in '/queues'");
		}
		if (refreshInterval.toMillis() < 500) {
			throw new IllegalArgumentException(
					"queue.dashboard.refresh-interval " + refreshInterval + " is too short: it must be 500ms or more");
		}
		if (role != null && !role.isBlank() && !springSecurity) {
			throw new IllegalArgumentException("queue.dashboard.role '" + role + "' is set, but Spring Security is "
					+ "not active in this application, so no user could be checked for it: add Spring Security "
					+ "or remove the role");
		}
	}

}
