package io.github.redisqueue.annotation;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanExpressionResolver;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.StringUtils;

/**
 * What the bean post-processors of the library's method annotations share: finding the methods
 * of a bean carrying the annotation (on the target class behind AOP proxies, classes without any
 * remembered and skipped), and reading the annotation's string attributes with property
 * placeholders and SpEL expressions resolved.
 *
 * @param <A> the annotation
 */
final class AnnotatedMethods<A extends Annotation> {

	private final Class<A> type;

	private final Set<Class<?>> without = ConcurrentHashMap.newKeySet();

	private @Nullable ConfigurableBeanFactory beanFactory;

	private @Nullable BeanExpressionContext expressionContext;

	AnnotatedMethods(Class<A> type) {
		this.type = type;
	}

	void setBeanFactory(BeanFactory beanFactory) {
		if (beanFactory instanceof ConfigurableBeanFactory configurable) {
			this.beanFactory = configurable;
			this.expressionContext = new BeanExpressionContext(configurable, null);
		}
	}

	/** The bean's methods carrying the annotation, with it; empty for a class without any. */
	Map<Method, A> of(Object bean) {
		Class<?> targetClass = AopUtils.getTargetClass(bean);
		if (this.without.contains(targetClass)) {
			return Map.of();
		}
		Map<Method, A> methods = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<A>) (method) -> AnnotatedElementUtils.findMergedAnnotation(method,
						this.type));
		if (methods.isEmpty()) {
			this.without.add(targetClass);
		}
		return methods;
	}

	/** An attribute's value with placeholders and expressions resolved; {@code null} when blank. */
	@Nullable String resolve(String value) {
		if (!StringUtils.hasText(value)) {
			return null;
		}
		String resolved = value;
		if (this.beanFactory != null) {
			resolved = this.beanFactory.resolveEmbeddedValue(value);
			BeanExpressionResolver expressions = this.beanFactory.getBeanExpressionResolver();
			if (resolved != null && expressions != null && this.expressionContext != null) {
				Object evaluated = expressions.evaluate(resolved, this.expressionContext);
				resolved = (evaluated != null) ? evaluated.toString() : null;
			}
		}
		return StringUtils.hasText(resolved) ? resolved.trim() : null;
	}

}
