package io.github.redisqueue.autoconfigure;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;
import org.springframework.util.StreamUtils;

/**
 * The keys under {@code queue.} that bind to something, as patterns: every property name of the
 * configuration metadata (the generated {@code META-INF/spring-configuration-metadata.json} and
 * the hand-written additional metadata, on the class path), and the structure of the property
 * classes the metadata names as groups, walked the way the binder walks them. A map's key, which
 * the user chooses (a queue name, a schedule name), is a wildcard that matches one element of a
 * name, so {@code queue.queues.[mail.out].concurrency} matches {@code queue.queues.*.concurrency};
 * a map of plain values accepts any key below it.
 */
final class KnownQueueProperties {

	static final String PREFIX = "queue";

	/** Any one element: a map key chosen by the user, or a list index. */
	private static final String ANY = "*";

	/** One element or more: the key of a map of plain values, which may itself contain dots. */
	private static final String ANY_REST = "**";

	private static final String[] METADATA = { "META-INF/spring-configuration-metadata.json",
			"META-INF/additional-spring-configuration-metadata.json" };

	private static final int MAX_DEPTH = 8;

	/** Each pattern's elements in dashed form (or a wildcard), to whether it is deprecated. */
	private final Map<List<String>, Boolean> patterns = new LinkedHashMap<>();

	private KnownQueueProperties() {
	}

	/** The known keys read from the metadata that the class loader sees. */
	static KnownQueueProperties load(@Nullable ClassLoader classLoader) {
		KnownQueueProperties known = new KnownQueueProperties();
		ClassLoader loader = (classLoader != null) ? classLoader : ClassUtils.getDefaultClassLoader();
		for (String location : METADATA) {
			try {
				Enumeration<URL> urls = (loader != null) ? loader.getResources(location)
						: ClassLoader.getSystemResources(location);
				for (URL url : Collections.list(urls)) {
					known.readMetadata(url, loader);
				}
			}
			catch (IOException ex) {
				throw new IllegalStateException("Cannot read the configuration metadata " + location, ex);
			}
		}
		return known;
	}

	/** Whether a key binds to something, or is the parent of keys that do. */
	boolean isKnown(ConfigurationPropertyName name) {
		for (List<String> pattern : this.patterns.keySet()) {
			if (matches(pattern, name)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The valid key nearest to an unknown one by edit distance, with the map keys of the unknown
	 * key kept in place ({@code queue.queues.orders.concurency} gives
	 * {@code queue.queues.orders.concurrency}); deprecated keys are not proposed.
	 */
	@Nullable String nearest(ConfigurationPropertyName name) {
		String written = display(name);
		@Nullable String best = null;
		int bestDistance = Integer.MAX_VALUE;
		for (Map.Entry<List<String>, Boolean> pattern : this.patterns.entrySet()) {
			if (pattern.getValue()) {
				continue;
			}
			int extra = Math.max(0, name.getNumberOfElements() - pattern.getKey().size());
			for (int absorbed = 0; absorbed <= extra; absorbed += Math.max(1, extra)) {
				String candidate = render(pattern.getKey(), name, absorbed);
				int distance = distance(written, candidate);
				if (distance < bestDistance) {
					best = candidate;
					bestDistance = distance;
				}
			}
		}
		return best;
	}

	@SuppressWarnings("unchecked")
	private void readMetadata(URL url, @Nullable ClassLoader loader) throws IOException {
		String json;
		try (InputStream in = url.openStream()) {
			json = StreamUtils.copyToString(in, StandardCharsets.UTF_8);
		}
		if (!json.contains("\"" + PREFIX)) {
			return;
		}
		Map<String, Object> metadata = JsonParserFactory.getJsonParser().parseMap(json);
		if (metadata.get("properties") instanceof List<?> properties) {
			for (Object entry : properties) {
				Map<String, Object> property = (Map<String, Object>) entry;
				if (property.get("name") instanceof String name && name.startsWith(PREFIX + ".")) {
					add(List.of(name.split("\\.")),
							property.containsKey("deprecation") || Boolean.TRUE.equals(property.get("deprecated")));
				}
			}
		}
		if (metadata.get("groups") instanceof List<?> groups) {
			for (Object entry : groups) {
				Map<String, Object> group = (Map<String, Object>) entry;
				if (group.get("name") instanceof String name && group.get("type") instanceof String type
						&& (name.equals(PREFIX) || name.startsWith(PREFIX + ".")) && !name.contains("*")
						&& ClassUtils.isPresent(type, loader)) {
					walk(ClassUtils.resolveClassName(type, loader), List.of(name.split("\\.")), false, 0);
				}
			}
		}
	}

	/** The properties of a bound class, as the binder finds them: JavaBean accessors or record components. */
	private void walk(Class<?> type, List<String> path, boolean deprecated, int depth) {
		if (depth > MAX_DEPTH) {
			return;
		}
		if (type.isRecord()) {
			for (RecordComponent component : type.getRecordComponents()) {
				property(ResolvableType.forMethodReturnType(component.getAccessor(), type),
						append(path, dashed(component.getName())), true, deprecated, depth);
			}
			return;
		}
		for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
			Method read = descriptor.getReadMethod();
			Method write = descriptor.getWriteMethod();
			if (descriptor.getName().equals("class") || (read == null && write == null)) {
				continue;
			}
			ResolvableType propertyType = (write != null) ? ResolvableType.forMethodParameter(write, 0, type)
					: ResolvableType.forMethodReturnType(read, type);
			boolean deprecatedProperty = deprecated || (write != null && write.isAnnotationPresent(Deprecated.class))
					|| (read != null && read.isAnnotationPresent(Deprecated.class));
			property(propertyType, append(path, dashed(descriptor.getName())), write != null, deprecatedProperty,
					depth);
		}
	}

	private void property(ResolvableType type, List<String> path, boolean settable, boolean deprecated, int depth) {
		Class<?> resolved = type.resolve(Object.class);
		if (Map.class.isAssignableFrom(resolved)) {
			add(path, deprecated);
			values(type.asMap().getGeneric(1), path, ANY_REST, deprecated, depth);
		}
		else if (resolved.isArray() || Collection.class.isAssignableFrom(resolved)) {
			add(path, deprecated);
			ResolvableType element = resolved.isArray() ? type.getComponentType() : type.asCollection().getGeneric(0);
			values(element, path, ANY, deprecated, depth);
		}
		else if (isBean(resolved, settable)) {
			if (settable) {
				add(path, deprecated);
			}
			walk(resolved, path, deprecated, depth + 1);
		}
		else if (settable) {
			add(path, deprecated);
		}
	}

	/** The entries of a map or collection: a bean's properties below a wildcard, or plain values. */
	private void values(ResolvableType valueType, List<String> path, String plainKey, boolean deprecated, int depth) {
		Class<?> value = valueType.resolve(Object.class);
		if (isBean(value, true)) {
			walk(value, append(path, ANY), deprecated, depth + 1);
		}
		else {
			add(append(path, plainKey), deprecated);
		}
	}

	/** Whether the binder binds a value of this type property by property. */
	private static boolean isBean(Class<?> type, boolean settable) {
		if (type.isPrimitive() || type.isEnum() || type.isArray() || type.isInterface()
				|| type.getName().startsWith("java.") || type == Object.class) {
			return false;
		}
		if (type.isRecord() || !settable) {
			return true;
		}
		return ClassUtils.hasConstructor(type) && BeanUtils.getPropertyDescriptors(type).length > 1;
	}

	private void add(List<String> pattern, boolean deprecated) {
		this.patterns.merge(List.copyOf(pattern), deprecated, Boolean::logicalAnd);
	}

	/** A key matches a pattern, or is a parent of the keys that match one (an empty YAML mapping). */
	private static boolean matches(List<String> pattern, ConfigurationPropertyName name) {
		int elements = name.getNumberOfElements();
		for (int i = 0; i < pattern.size(); i++) {
			String expected = pattern.get(i);
			if (i >= elements) {
				return true;
			}
			if (expected.equals(ANY_REST)) {
				return true;
			}
			if (!expected.equals(ANY) && !uniform(expected).equals(name.getElement(i, Form.UNIFORM))) {
				return false;
			}
		}
		return pattern.size() == elements;
	}

	/**
	 * A pattern written out with the unknown key's own elements in place of its wildcards; the
	 * first single-element wildcard may take {@code absorbed} more elements of the key, written
	 * in brackets, for a map key with dots written without them ({@code queue.queues.mail.out.x}
	 * gives {@code queue.queues.[mail.out].x}).
	 */
	private static String render(List<String> pattern, ConfigurationPropertyName name, int absorbed) {
		boolean[] indexed = indexed(name);
		StringBuilder text = new StringBuilder();
		int offset = 0;
		for (int i = 0; i < pattern.size(); i++) {
			String element = pattern.get(i);
			int at = i + offset;
			boolean wildcard = element.equals(ANY) || element.equals(ANY_REST);
			if (wildcard && at < name.getNumberOfElements()) {
				if (element.equals(ANY_REST)) {
					for (int j = at; j < name.getNumberOfElements(); j++) {
						appendElement(text, name.getElement(j, Form.ORIGINAL), indexed[j]);
					}
					return text.toString();
				}
				int last = Math.min(at + absorbed, name.getNumberOfElements() - 1);
				if (last > at) {
					StringBuilder key = new StringBuilder(name.getElement(at, Form.ORIGINAL));
					for (int j = at + 1; j <= last; j++) {
						key.append('.').append(name.getElement(j, Form.ORIGINAL));
					}
					appendElement(text, key.toString(), true);
					offset += last - at;
					absorbed = 0;
				}
				else {
					appendElement(text, name.getElement(at, Form.ORIGINAL), indexed[at]);
				}
			}
			else {
				appendElement(text, wildcard ? "<name>" : element, false);
			}
		}
		return text.toString();
	}

	/**
	 * A key as the docs write it: a map key with dots in brackets after a dot
	 * ({@code queue.queues.[mail.out].concurrency}).
	 */
	static String display(ConfigurationPropertyName name) {
		boolean[] indexed = indexed(name);
		StringBuilder text = new StringBuilder();
		for (int i = 0; i < name.getNumberOfElements(); i++) {
			appendElement(text, name.getElement(i, Form.ORIGINAL), indexed[i]);
		}
		return text.toString();
	}

	/** Which elements of a name are indexed ({@code [mail.out]}), read from its canonical text. */
	private static boolean[] indexed(ConfigurationPropertyName name) {
		String text = name.toString();
		boolean[] indexed = new boolean[name.getNumberOfElements()];
		int element = 0;
		int i = 0;
		while (i < text.length() && element < indexed.length) {
			char c = text.charAt(i);
			if (c == '[') {
				int close = text.indexOf(']', i);
				indexed[element++] = true;
				i = (close < 0) ? text.length() : close + 1;
			}
			else if (c == '.') {
				i++;
			}
			else {
				element++;
				while (i < text.length() && text.charAt(i) != '.' && text.charAt(i) != '[') {
					i++;
				}
			}
		}
		return indexed;
	}

	private static void appendElement(StringBuilder text, String element, boolean indexed) {
		text.append((text.length() > 0) ? "." : "");
		if (indexed) {
			text.append('[').append(element).append(']');
		}
		else {
			text.append(element);
		}
	}

	private static String uniform(String element) {
		StringBuilder uniform = new StringBuilder(element.length());
		for (char c : element.toCharArray()) {
			if (Character.isLetterOrDigit(c)) {
				uniform.append(Character.toLowerCase(c));
			}
		}
		return uniform.toString();
	}

	private static String dashed(String camelCase) {
		StringBuilder dashed = new StringBuilder(camelCase.length() + 4);
		for (char c : camelCase.toCharArray()) {
			if (Character.isUpperCase(c) && dashed.length() > 0) {
				dashed.append('-');
			}
			dashed.append(Character.toLowerCase(c));
		}
		return dashed.toString().toLowerCase(Locale.ROOT);
	}

	private static List<String> append(List<String> path, String element) {
		List<String> longer = new ArrayList<>(path.size() + 1);
		longer.addAll(path);
		longer.add(element);
		return longer;
	}

	/** Levenshtein distance: the fewest insertions, deletions and substitutions from one text to the other. */
	static int distance(String from, String to) {
		int[] previous = new int[to.length() + 1];
		int[] current = new int[to.length() + 1];
		for (int j = 0; j <= to.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= from.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= to.length(); j++) {
				int substitution = previous[j - 1] + ((from.charAt(i - 1) == to.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[to.length()];
	}

}
