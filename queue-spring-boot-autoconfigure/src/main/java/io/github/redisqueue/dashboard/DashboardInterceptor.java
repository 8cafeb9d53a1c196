package io.github.redisqueue.dashboard;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Applies the dashboard's access rules before any of its handlers runs: read-only mode refuses
 * every action, {@link DashboardAccess} checks the user (and the CSRF token of an action), and an
 * action must carry {@link DashboardAccess#ACTION_HEADER}. Every response of the dashboard gets
 * headers that keep browsers from running anything but its own script.
 */
final class DashboardInterceptor implements HandlerInterceptor {

	/** No inline script, no script, style or frame from elsewhere. */
	static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
			+ "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

	private final DashboardAccess access;

	private final boolean readOnly;

	DashboardInterceptor(DashboardAccess access, boolean readOnly) {
		this.access = access;
		this.readOnly = readOnly;
	}

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
			throws IOException {
		response.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
		response.setHeader("X-Content-Type-Options", "nosniff");
		response.setHeader("Referrer-Policy", "no-referrer");
		response.setHeader("Cache-Control", "no-store");
		boolean action = !isRead(request.getMethod());
		if (action && this.readOnly) {
			return refuse(response, 403, "The queue dashboard is read-only: actions are refused");
		}
		DashboardAccess.Refusal refusal = this.access.check(request, action);
		if (refusal != null) {
			return refuse(response, refusal.status(), refusal.reason());
		}
		if (action && request.getHeader(DashboardAccess.ACTION_HEADER) == null) {
			return refuse(response, 403, "Action refused: dashboard actions carry the header "
					+ DashboardAccess.ACTION_HEADER + ", which this request lacks");
		}
		return true;
	}

	private static boolean isRead(String method) {
		return "GET".equals(method) || "HEAD".equals(method) || "OPTIONS".equals(method);
	}

	private static boolean refuse(HttpServletResponse response, int status, String reason) throws IOException {
		response.setStatus(status);
		response.setContentType("application/json");
		response.setCharacterEncoding(StandardCharsets.UTF_8.name());
		response.getWriter().write("{\"status\":" + status + ",\"error\":\"" + jsonEscape(reason) + "\"}");
		return false;
	}

	static String jsonEscape(String text) {
		StringBuilder out = new StringBuilder(text.length() + 8);
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			switch (c) {
				case '"' -> out.append("\\\"");
				case '\\' -> out.append("\\\\");
				case '<' -> out.append("\\u003c");
				case '>' -> out.append("\\u003e");
				default -> {
					if (c < 0x20) {
						out.append(String.format("\\u%04x", (int) c));
					}
					else {
						out.append(c);
					}
				}
			}
		}
		return out.toString();
	}

}
