package io.github.redisqueue.autoconfigure;

import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.listener.lease.QueueReaper;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.scheduling.config.TaskManagementConfigUtils;

/**
 * Auto-configuration of the reaper. How it is scheduled depends on the application, which keeps full control of its
 * own {@code @Scheduled} methods:
 * <ul>
 * <li>with {@code @EnableScheduling}, the reaper registers its passes (every
 * {@code queue.reaper.interval}) with the application's scheduler; nothing else is added;</li>
 * <li>without it, the reaper gets a single-thread scheduler of its own ({@code queue-reaper-1})
 * and schedules itself; scheduling is never switched on for the whole application.</li>
 * </ul>
 * Either way correctness does not depend on the reaper: reserving reclaims expired leases too.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = QueueAutoConfiguration.class)
@ConditionalOnBean(QueueAdminOperations.class)
@ConditionalOnBooleanProperty(name = "queue.reaper.enabled", matchIfMissing = true)
public final class QueueReaperAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	QueueReaper queueReaper(QueueAdminOperations queueAdmin, QueueProperties properties,
			ObjectProvider<QueueReaperScheduler> scheduler) {
		QueueReaper reaper = new QueueReaper(queueAdmin, properties.getReaper().getInterval());
		QueueReaperScheduler own = scheduler.getIfAvailable();
		if (own != null) {
			reaper.setTaskScheduler(own.scheduler());
		}
		return reaper;
	}

	@Bean
	@ConditionalOnMissingBean(name = TaskManagementConfigUtils.SCHEDULED_ANNOTATION_PROCESSOR_BEAN_NAME)
	QueueReaperScheduler queueReaperScheduler() {
		return new QueueReaperScheduler();
	}

	/**
	 * The reaper's own single-thread scheduler, held by a bean that is no {@code Executor} nor
	 * {@code TaskScheduler}: the application's task execution and scheduling (and so its
	 * {@code @Async} methods) never see it.
	 */
	static final class QueueReaperScheduler implements InitializingBean, DisposableBean {

		private final ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();

		QueueReaperScheduler() {
			this.scheduler.setPoolSize(1);
			this.scheduler.setThreadNamePrefix("queue-reaper-");
			this.scheduler.setDaemon(true);
		}

		TaskScheduler scheduler() {
			return this.scheduler;
		}

		@Override
		public void afterPropertiesSet() {
			this.scheduler.initialize();
		}

		@Override
		public void destroy() {
			this.scheduler.destroy();
		}

	}

}
