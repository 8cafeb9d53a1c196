package io.github.redisqueue.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.redisqueue.listener.Acknowledgement;
import io.github.redisqueue.support.BatchCompletion;
import io.github.redisqueue.support.JobMetadata;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.util.ClassUtils;

/**
 * Ahead-of-time processing of the beans carrying {@link QueueListener @QueueListener} or
 * {@link RecurringJob @RecurringJob} methods: it registers the reflection a native image needs to
 * call them, and binding hints (see {@link BindingReflectionHintsRegistrar}) for the types the
 * {@link io.github.redisqueue.support.converter.JobSerializer} reads or writes through them: the
 * payload parameter of a listener (the payload type of a {@code Message<T>} parameter), the value
 * a listener returns (the job's result), and the payload a recurring job returns. Parameters the
 * library fills itself ({@link JobMetadata}, {@link BatchCompletion}, {@link Acknowledgement},
 * headers) get none. Registered through {@code META-INF/spring/aot.factories}.
 *
 * <p>The methods are looked for on the bean's type as the bean definition declares it: a
 * {@code @Bean} method should declare the class that carries the annotated methods.
 */
final class QueueAnnotationsAotProcessor implements BeanRegistrationAotProcessor {

	private static final Set<Class<?>> FILLED_BY_THE_LIBRARY = Set.of(JobMetadata.class, BatchCompletion.class,
			MessageHeaders.class);

	@Override
	public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
		Class<?> beanClass = ClassUtils.getUserClass(registeredBean.getBeanClass());
		Map<Method, QueueListener> listeners = annotated(beanClass, QueueListener.class);
		Map<Method, RecurringJob> recurring = annotated(beanClass, RecurringJob.class);
		if (listeners.isEmpty() && recurring.isEmpty()) {
			return null;
		}
		return (generationContext, code) -> {
			ReflectionHints reflection = generationContext.getRuntimeHints().reflection();
			List<Type> bound = new ArrayList<>();
			listeners.keySet().forEach((method) -> {
				reflection.registerMethod(method, ExecutableMode.INVOKE);
				for (int i = 0; i < method.getParameterCount(); i++) {
					Type payload = payloadType(new MethodParameter(method, i));
					if (payload != null) {
						bound.add(payload);
					}
				}
				if (method.getReturnType() != void.class) {
					bound.add(method.getGenericReturnType());
				}
			});
			recurring.keySet().forEach((method) -> {
				reflection.registerMethod(method, ExecutableMode.INVOKE);
				bound.add(method.getGenericReturnType());
			});
			new BindingReflectionHintsRegistrar().registerReflectionHints(reflection, bound.toArray(Type[]::new));
		};
	}

	/**
	 * The type a listener parameter is read as from the payload, or {@code null} for one the
	 * library or spring-messaging fills from the job's headers.
	 */
	static @Nullable Type payloadType(MethodParameter parameter) {
		Class<?> type = parameter.getParameterType();
		if (FILLED_BY_THE_LIBRARY.contains(type) || Acknowledgement.class.isAssignableFrom(type)
				|| parameter.hasParameterAnnotation(Header.class) || parameter.hasParameterAnnotation(Headers.class)) {
			return null;
		}
		if (Message.class.isAssignableFrom(type)) {
			ResolvableType payload = ResolvableType.forMethodParameter(parameter).as(Message.class).getGeneric();
			Class<?> resolved = payload.resolve();
			return (resolved == null || resolved == Object.class || resolved == byte[].class) ? null : payload.getType();
		}
		return (type == byte[].class) ? null : parameter.getGenericParameterType();
	}

	private static <A extends java.lang.annotation.Annotation> Map<Method, A> annotated(Class<?> beanClass,
			Class<A> annotation) {
		return MethodIntrospector.selectMethods(beanClass,
				(MethodIntrospector.MetadataLookup<A>) (method) -> AnnotatedElementUtils.findMergedAnnotation(method,
						annotation));
	}

}
