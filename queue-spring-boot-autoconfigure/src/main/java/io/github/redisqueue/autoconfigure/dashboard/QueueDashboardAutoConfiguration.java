package io.github.redisqueue.autoconfigure.dashboard;

import io.github.redisqueue.autoconfigure.QueueAutoConfiguration;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.dashboard.DashboardPagesController;
import io.github.redisqueue.dashboard.QueueDashboardController;
import io.github.redisqueue.dashboard.QueueDashboardRuntimeHints;
import io.github.redisqueue.dashboard.QueueDashboardSettings;
import io.github.redisqueue.schedule.RecurringJobScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.util.ClassUtils;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Auto-configuration of the operator dashboard in a Spring MVC application, when
 * {@code queue.dashboard.enabled=true}. With Spring Security's filter chain in the application,
 * the dashboard asks for an authenticated user (with {@code queue.dashboard.role} when set) and a
 * CSRF token for actions; without it, a warning says that anyone reaching the application may act
 * on the queues unless {@code queue.dashboard.read-only=true}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = QueueAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBooleanProperty("queue.dashboard.enabled")
@ConditionalOnBean(QueueAdminOperations.class)
@EnableConfigurationProperties(QueueDashboardProperties.class)
@ImportRuntimeHints(QueueDashboardRuntimeHints.class)
public final class QueueDashboardAutoConfiguration {

	private static final Logger logger = LoggerFactory.getLogger(QueueDashboardAutoConfiguration.class);

	/** Name of the bean Spring Security's servlet filter chain registers under. */
	static final String SECURITY_FILTER_CHAIN = "springSecurityFilterChain";

	@Bean
	@ConditionalOnMissingBean
	QueueDashboardController queueDashboardController(QueueAdminOperations queueAdmin,
			QueueDashboardProperties properties, ListableBeanFactory beanFactory) {
		boolean security = ClassUtils.isPresent("org.springframework.security.web.csrf.CsrfToken",
				QueueDashboardAutoConfiguration.class.getClassLoader()) && beanFactory.containsBean(SECURITY_FILTER_CHAIN);
		QueueDashboardSettings settings = new QueueDashboardSettings(properties.getPath(), properties.isReadOnly(),
				properties.getRole(), properties.getRefreshInterval(), security);
		if (!security && !settings.readOnly()) {
			logger.warn("The queue dashboard at {} runs without Spring Security: anyone who can reach this application "
					+ "can see the jobs and act on the queues. Add Spring Security, or set queue.dashboard.read-only=true",
					settings.path());
		}
		else {
			logger.info("Queue dashboard at {} ({}{})", settings.path(), security ? "Spring Security" : "no security",
					settings.readOnly() ? ", read-only" : "");
		}
		return new QueueDashboardController(queueAdmin, settings);
	}

	@Bean
	@ConditionalOnMissingBean
	DashboardPagesController queueDashboardPagesController(QueueAdminOperations queueAdmin,
			QueueDashboardController dashboard, ObjectProvider<RecurringJobScheduler> schedulers) {
		return new DashboardPagesController(queueAdmin, dashboard.getSettings(), schedulers);
	}

	@Bean
	WebMvcConfigurer queueDashboardWebMvcConfigurer(QueueDashboardController dashboard) {
		String path = dashboard.getSettings().path();
		return new WebMvcConfigurer() {

			@Override
			public void addInterceptors(InterceptorRegistry registry) {
				registry.addInterceptor(dashboard.accessInterceptor()).addPathPatterns(path, path + "/**");
			}

		};
	}

}
