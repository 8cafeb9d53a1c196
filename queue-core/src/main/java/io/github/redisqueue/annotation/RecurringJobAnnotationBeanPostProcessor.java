package io.github.redisqueue.annotation;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

import io.github.redisqueue.core.MissedTicks;
import io.github.redisqueue.schedule.RecurringJobDefinition;
import io.github.redisqueue.schedule.RecurringJobScheduler;
import io.github.redisqueue.support.converter.JobSerializer;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds {@link RecurringJob @RecurringJob} methods on beans (on the target class behind AOP
 * proxies), checks their attributes while the bean is created, and once all singletons exist
 * registers one recurring job per method with the context's {@link RecurringJobScheduler}.
 *
 * @since 0.1.0
 */
public class RecurringJobAnnotationBeanPostProcessor
		implements BeanPostProcessor, Ordered, BeanFactoryAware, SmartInitializingSingleton {

	private final AnnotatedMethods<RecurringJob> annotated = new AnnotatedMethods<>(RecurringJob.class);

	private final List<Found> found = new ArrayList<>();

	private @Nullable BeanFactory beanFactory;

	@Override
	public int getOrder() {
		return LOWEST_PRECEDENCE;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
		this.annotated.setBeanFactory(beanFactory);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		this.annotated.of(bean).forEach((method, annotation) -> process(annotation, method, bean, beanName));
		return bean;
	}

	private void process(RecurringJob annotation, Method method, Object bean, String beanName) {
		String where = method.getDeclaringClass().getSimpleName() + "." + method.getName();
		Class<?>[] parameters = method.getParameterTypes();
		if (parameters.length > 1 || (parameters.length == 1 && parameters[0] != Instant.class)
				|| method.getReturnType() == void.class) {
			throw new BeanInitializationException("@RecurringJob on " + where
					+ " must return the payload and take no argument or the tick (java.time.Instant)");
		}
		Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
		ReflectionUtils.makeAccessible(invocable);
		try {
			String name = resolve(annotation.name());
			String queue = resolve(annotation.queue());
			String cron = resolve(annotation.cron());
			if (queue == null || cron == null) {
				throw new IllegalArgumentException("cron and queue are required");
			}
			String schedule = (name != null) ? name : where;
			String zone = resolve(annotation.zone());
			String missed = resolve(annotation.missed());
			String grace = resolve(annotation.grace());
			this.found.add(new Found(schedule, queue, RecurringJobDefinition.parseCron(schedule, cron),
					(zone != null) ? ZoneId.of(zone) : ZoneId.systemDefault(),
					(missed != null) ? MissedTicks.of(missed) : MissedTicks.FIRE_ONCE,
					(grace != null) ? DurationFormatterUtils.detectAndParse(grace) : RecurringJobDefinition.DEFAULT_GRACE,
					bean, invocable));
		}
		catch (RuntimeException ex) {
			throw new BeanInitializationException(
					"@RecurringJob on " + where + " (bean '" + beanName + "') has an invalid attribute: " + ex.getMessage(),
					ex);
		}
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (this.found.isEmpty() || this.beanFactory == null) {
			return;
		}
		RecurringJobScheduler scheduler = this.beanFactory.getBean(RecurringJobScheduler.class);
		JobSerializer serializer = scheduler.getSerializer();
		for (Found job : this.found) {
			try {
				scheduler.register(new RecurringJobDefinition(job.name, job.queue, job.cron, job.zone, job.missed,
						job.grace, (tick) -> {
							Object payload = job.invoke(tick);
							return (payload != null) ? serializer.serialize(payload) : null;
						}));
			}
			catch (IllegalArgumentException ex) {
				throw new BeanInitializationException("@RecurringJob '" + job.name + "': " + ex.getMessage(), ex);
			}
		}
	}

	private @Nullable String resolve(String value) {
		return this.annotated.resolve(value);
	}

	private record Found(String name, String queue, org.springframework.scheduling.support.CronExpression cron,
			ZoneId zone, MissedTicks missed, Duration grace, Object bean, Method method) {

		@Nullable Object invoke(Instant tick) {
			try {
				return (this.method.getParameterCount() == 1) ? this.method.invoke(this.bean, tick)
						: this.method.invoke(this.bean);
			}
			catch (InvocationTargetException ex) {
				Throwable cause = ex.getTargetException();
				throw (cause instanceof RuntimeException runtime) ? runtime
						: new IllegalStateException("@RecurringJob method " + this.method + " failed", cause);
			}
			catch (IllegalAccessException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

}
