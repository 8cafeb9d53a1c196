package io.github.redisqueue.dashboard;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * Who may see the dashboard and act through it. Two rules hold whatever the implementation: an
 * action is a POST that carries the header {@value #ACTION_HEADER} (which a page of another site
 * cannot add to a request without the application's consent), and read-only mode refuses every
 * action.
 */
interface DashboardAccess {

	/** Header every action request of the dashboard's page carries. */
	String ACTION_HEADER = "X-Queue-Dashboard";

	/**
	 * Why the request may not go on, or {@code null} when it may.
	 * @param request the request
	 * @param action whether it acts on the queues
	 * @return the refusal, or {@code null}
	 */
	@Nullable Refusal check(HttpServletRequest request, boolean action);

	/** The name of the user, for the page and the audit log. */
	String user(HttpServletRequest request);

	/** The CSRF header and token the page must send with actions, when there is one. */
	DashboardViews.@Nullable Csrf csrf(HttpServletRequest request);

	/** Whether Spring Security guards the dashboard. */
	boolean secured();

	/** An HTTP status and the reason shown to the user. */
	record Refusal(int status, String reason) {
	}

	/**
	 * The rules without Spring Security: everybody who reaches the application may look and (unless
	 * read-only) act; the user is the container's remote user, if any.
	 */
	final class Open implements DashboardAccess {

		@Override
		public @Nullable Refusal check(HttpServletRequest request, boolean action) {
			return null;
		}

		@Override
		public String user(HttpServletRequest request) {
			String user = request.getRemoteUser();
			return (user != null) ? user : "anonymous";
		}

		@Override
		public DashboardViews.@Nullable Csrf csrf(HttpServletRequest request) {
			return null;
		}

		@Override
		public boolean secured() {
			return false;
		}

	}

}
