package io.github.redisqueue.dashboard;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.csrf.CsrfToken;

/**
 * The rules when Spring Security's filter chain runs in the application: the dashboard's pages,
 * data and actions need an authenticated user (anonymous authentication does not count), holding
 * the configured role when one is set; an action also needs the CSRF protection of Spring
 * Security: its filter must have run on the request (so it checked the token) and the request
 * must carry the token. This class is loaded only when Spring Security is on the class path.
 */
final class SpringSecurityDashboardAccess implements DashboardAccess {

	private final @Nullable String authority;

	/**
	 * Rules requiring {@code role} (with or without the {@code ROLE_} prefix), or any
	 * authenticated user when it is {@code null} or blank.
	 */
	SpringSecurityDashboardAccess(@Nullable String role) {
		if (role == null || role.isBlank()) {
			this.authority = null;
		}
		else {
			this.authority = role.startsWith("ROLE_") ? role : "ROLE_" + role;
		}
	}

	@Override
	public @Nullable Refusal check(HttpServletRequest request, boolean action) {
		Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
		if (authentication == null || !authentication.isAuthenticated()
				|| authentication instanceof AnonymousAuthenticationToken) {
			return new Refusal(401, "The queue dashboard needs an authenticated user");
		}
		if (this.authority != null && !hasAuthority(authentication, this.authority)) {
			return new Refusal(403, "The queue dashboard needs the role " + this.authority + ", which user '"
					+ authentication.getName() + "' does not have");
		}
		if (action) {
			CsrfToken token = csrfToken(request);
			if (token == null) {
				return new Refusal(403, "Actions of the queue dashboard need Spring Security's CSRF protection, "
						+ "which is not active for this request");
			}
			String sent = request.getHeader(token.getHeaderName());
			if (sent == null || sent.isEmpty()) {
				return new Refusal(403, "Action refused: the request carries no CSRF token");
			}
		}
		return null;
	}

	private static boolean hasAuthority(Authentication authentication, String authority) {
		for (GrantedAuthority granted : authentication.getAuthorities()) {
			if (authority.equals(granted.getAuthority())) {
				return true;
			}
		}
		return false;
	}

	@Override
	public String user(HttpServletRequest request) {
		Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
		return (authentication != null) ? authentication.getName() : "anonymous";
	}

	@Override
	public DashboardViews.@Nullable Csrf csrf(HttpServletRequest request) {
		CsrfToken token = csrfToken(request);
		return (token != null) ? new DashboardViews.Csrf(token.getHeaderName(), token.getToken()) : null;
	}

	private static @Nullable CsrfToken csrfToken(HttpServletRequest request) {
		return (request.getAttribute(CsrfToken.class.getName()) instanceof CsrfToken token) ? token : null;
	}

	@Override
	public boolean secured() {
		return true;
	}

}
