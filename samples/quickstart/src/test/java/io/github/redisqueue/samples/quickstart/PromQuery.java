package io.github.redisqueue.samples.quickstart;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a PromQL expression (with Grafana's variables) reads, parsed just enough for a check
 * against a scrape: the metric names (identifiers not called as functions, not keywords), the
 * label matchers of each selector, and the labels of {@code by}, {@code without}, {@code on},
 * {@code ignoring} and {@code group_left/right} clauses.
 *
 * @param metrics the metric names
 * @param matchers per selector (by its metric name), the labels it matches with the value of each
 * {@code =} matcher ({@code null} for the other operators)
 * @param groupingLabels the labels of the grouping and matching clauses
 */
record PromQuery(Set<String> metrics, List<Matchers> matchers, Set<String> groupingLabels) {

	private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without", "on",
			"ignoring", "group_left", "group_right", "inf", "nan", "start", "end", "atan2");

	private static final String IDENTIFIER = "[a-zA-Z_:][a-zA-Z0-9_:]*";

	private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'");

	private static final Pattern SELECTOR = Pattern.compile("(" + IDENTIFIER + ")?\\s*\\{([^}]*)}");

	private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*(\"(?:[^\"\\\\]|\\\\.)*\")");

	private static final Pattern GROUPING = Pattern
		.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\(([^)]*)\\)");

	private static final Pattern NAME = Pattern.compile("(?<![\\w.$])(" + IDENTIFIER + ")(\\s*\\()?");

	/** The label matchers of one selector. */
	record Matchers(String metric, Map<String, String> labels) {
	}

	static PromQuery parse(String expr) {
		String text = expr.replace("$__rate_interval", "5m")
			.replace("$__interval", "1m")
			.replace("$__range", "1h")
			.replaceAll("\\[[^\\]]*]", "");
		Set<String> metrics = new LinkedHashSet<>();
		List<Matchers> matchers = new java.util.ArrayList<>();
		// selectors first, while their quoted values are intact
		Matcher selector = SELECTOR.matcher(text);
		StringBuilder rest = new StringBuilder();
		while (selector.find()) {
			Map<String, String> labels = new LinkedHashMap<>();
			Matcher matcher = MATCHER.matcher(selector.group(2));
			while (matcher.find()) {
				String quoted = matcher.group(3);
				labels.put(matcher.group(1), "=".equals(matcher.group(2)) ? quoted.substring(1, quoted.length() - 1) : null);
			}
			String metric = (selector.group(1) != null) ? selector.group(1) : labels.containsKey("__name__")
					? String.valueOf(labels.get("__name__")) : "";
			labels.remove("__name__");
			matchers.add(new Matchers(metric, labels));
			selector.appendReplacement(rest, Matcher.quoteReplacement(metric + " "));
		}
		selector.appendTail(rest);
		text = STRING.matcher(rest).replaceAll("\"\"");
		Set<String> grouping = new LinkedHashSet<>();
		Matcher clause = GROUPING.matcher(text);
		StringBuilder remaining = new StringBuilder();
		while (clause.find()) {
			for (String label : clause.group(2).split(",")) {
				if (!label.isBlank()) {
					grouping.add(label.strip());
				}
			}
			clause.appendReplacement(remaining, " ");
		}
		clause.appendTail(remaining);
		Matcher name = NAME.matcher(remaining);
		while (name.find()) {
			boolean called = name.group(2) != null;
			if (!called && !KEYWORDS.contains(name.group(1).toLowerCase(java.util.Locale.ROOT))) {
				metrics.add(name.group(1));
			}
		}
		return new PromQuery(metrics, matchers, grouping);
	}

	/** The labels a legend such as {@code {{queue}} {{state}}} names. */
	static Set<String> legendLabels(String legend) {
		Set<String> labels = new LinkedHashSet<>();
		Matcher matcher = Pattern.compile("\\{\\{\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*}}").matcher(legend);
		while (matcher.find()) {
			labels.add(matcher.group(1));
		}
		return labels;
	}

}
