package io.github.redisqueue.samples.quickstart;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Grafana dashboard and the Prometheus alert rules under {@code docs/}, and the queries they
 * hold: every panel target and template variable query of the dashboard, every rule expression.
 */
final class MonitoringFiles {

	static final String DASHBOARD = "docs/grafana/redis-queue-dashboard.json";

	static final String ALERTS = "docs/prometheus/redis-queue-alerts.yml";

	static final String ALERT_TESTS = "docs/prometheus/redis-queue-alerts.test.yml";

	private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*,\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*\\)");

	private MonitoringFiles() {
	}

	/** The repository's root: the first directory up from the working directory that has the files. */
	static Path root() {
		Path dir = Path.of("").toAbsolutePath();
		while (dir != null) {
			if (Files.isRegularFile(dir.resolve(DASHBOARD))) {
				return dir;
			}
			dir = dir.getParent();
		}
		throw new IllegalStateException("No " + DASHBOARD + " above " + Path.of("").toAbsolutePath());
	}

	static JsonNode dashboard() throws IOException {
		return JsonMapper.builder().build().readTree(Files.readString(root().resolve(DASHBOARD)));
	}

	/** A query with where it comes from and the legend that names its series ("" when none). */
	record Query(String source, String expr, String legend) {
	}

	/**
	 * Every query of the dashboard: the targets' expressions, and the queue variable's
	 * {@code label_values(metric, label)} written as the selector {@code metric{label!=""}}.
	 */
	static List<Query> dashboardQueries() throws IOException {
		JsonNode dashboard = dashboard();
		List<Query> queries = new ArrayList<>();
		for (JsonNode panel : dashboard.path("panels")) {
			for (JsonNode target : panel.path("targets")) {
				queries.add(new Query("panel '" + panel.path("title").asString() + "' " + target.path("refId").asString(),
						target.path("expr").asString(), target.path("legendFormat").asString()));
			}
		}
		for (JsonNode variable : dashboard.path("templating").path("list")) {
			if ("query".equals(variable.path("type").asString())) {
				String query = variable.path("query").isObject() ? variable.path("query").path("query").asString()
						: variable.path("query").asString();
				Matcher values = LABEL_VALUES.matcher(query);
				if (!values.matches()) {
					throw new IllegalStateException("Variable '" + variable.path("name").asString()
							+ "' is not a label_values(metric, label) query: " + query);
				}
				queries.add(new Query("variable '" + variable.path("name").asString() + "'",
						values.group(1) + "{" + values.group(2) + "!=\"\"}", ""));
			}
		}
		return queries;
	}

	/** The expression of every alert rule. */
	@SuppressWarnings("unchecked")
	static List<Query> ruleQueries() throws IOException {
		List<Query> queries = new ArrayList<>();
		try (Reader reader = Files.newBufferedReader(root().resolve(ALERTS))) {
			Map<String, Object> file = new Yaml().load(reader);
			for (Map<String, Object> group : (List<Map<String, Object>>) file.get("groups")) {
				for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
					queries.add(new Query("alert " + rule.get("alert"), (String) rule.get("expr"), ""));
				}
			}
		}
		return queries;
	}

}
