package io.github.redisqueue.samples.quickstart;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A scrape in Prometheus's text format, as metric name, label name, the values seen; and the
 * check that queries read only what it holds.
 */
final class Scrape {

	/** Labels Prometheus adds to every series of a target when it scrapes, absent from the text. */
	static final Set<String> TARGET_LABELS = Set.of("instance", "job");

	private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s+\\S+.*");

	private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

	private final Map<String, Map<String, Set<String>>> metrics = new TreeMap<>();

	Scrape(String text) {
		for (String line : text.split("\n")) {
			if (line.isBlank() || line.startsWith("#")) {
				continue;
			}
			Matcher sample = SAMPLE.matcher(line.strip());
			if (!sample.matches()) {
				throw new IllegalArgumentException("Not a sample line: " + line);
			}
			Map<String, Set<String>> labels = this.metrics.computeIfAbsent(sample.group(1), (name) -> new TreeMap<>());
			if (sample.group(2) != null) {
				Matcher label = LABEL.matcher(sample.group(2));
				while (label.find()) {
					labels.computeIfAbsent(label.group(1), (name) -> new HashSet<>()).add(label.group(2));
				}
			}
		}
	}

	Set<String> metrics() {
		return this.metrics.keySet();
	}

	/**
	 * What the queries read that the scrape lacks: metric names, the labels of their selectors,
	 * the values of their {@code =} matchers, their grouping labels and the labels of their
	 * legends (both must be a label of a metric the query reads). Empty when nothing is missing.
	 */
	List<String> missing(List<MonitoringFiles.Query> queries) {
		List<String> problems = new ArrayList<>();
		for (MonitoringFiles.Query query : queries) {
			PromQuery parsed = PromQuery.parse(query.expr());
			if (parsed.metrics().isEmpty()) {
				problems.add(query.source() + ": no metric found in " + query.expr());
			}
			Set<String> labelsRead = new HashSet<>(TARGET_LABELS);
			for (String metric : parsed.metrics()) {
				Map<String, Set<String>> labels = this.metrics.get(metric);
				if (labels == null) {
					problems.add(query.source() + ": metric " + metric + " is not in the scrape");
				}
				else {
					labelsRead.addAll(labels.keySet());
				}
			}
			for (PromQuery.Matchers selector : parsed.matchers()) {
				Map<String, Set<String>> labels = this.metrics.getOrDefault(selector.metric(), Map.of());
				selector.labels().forEach((label, value) -> {
					if (TARGET_LABELS.contains(label)) {
						return;
					}
					if (!labels.containsKey(label)) {
						problems.add(query.source() + ": metric " + selector.metric() + " has no label " + label);
					}
					else if (value != null && !labels.get(label).contains(value)) {
						problems.add(query.source() + ": metric " + selector.metric() + " has no series with " + label
								+ "=\"" + value + "\"");
					}
				});
			}
			Set<String> named = new java.util.LinkedHashSet<>(parsed.groupingLabels());
			named.addAll(PromQuery.legendLabels(query.legend()));
			for (String label : named) {
				if (!labelsRead.contains(label)) {
					problems.add(query.source() + ": label " + label + " is on none of " + parsed.metrics());
				}
			}
		}
		return problems;
	}

}
