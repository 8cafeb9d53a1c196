package io.github.redisqueue.samples.quickstart;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Grafana dashboard is a dashboard Grafana imports (a Prometheus data source variable, a
 * queue variable, panels that each have a title, the data source and a query), and the alert
 * rules pass {@code promtool check rules} and their unit tests ({@code promtool test rules}).
 */
class MonitoringFilesTests {

	@Test
	void everyPanelHasATitleTheDataSourceVariableAndAQuery() throws IOException {
		JsonNode dashboard = MonitoringFiles.dashboard();
		assertThat(dashboard.path("title").asString()).isNotBlank();
		assertThat(dashboard.path("uid").asString()).isNotBlank();
		assertThat(dashboard.path("schemaVersion").asInt()).isGreaterThanOrEqualTo(36);
		List<String> variables = new ArrayList<>();
		for (JsonNode variable : dashboard.path("templating").path("list")) {
			variables.add(variable.path("name").asString() + ":" + variable.path("type").asString());
			if ("datasource".equals(variable.path("type").asString())) {
				assertThat(variable.path("query").asString()).isEqualTo("prometheus");
			}
			else {
				assertThat(variable.path("datasource").path("uid").asString()).isEqualTo("${datasource}");
			}
		}
		assertThat(variables).containsExactly("datasource:datasource", "queue:query");

		JsonNode panels = dashboard.path("panels");
		assertThat(panels.size()).isGreaterThanOrEqualTo(10);
		List<Integer> ids = new ArrayList<>();
		for (JsonNode panel : panels) {
			String title = panel.path("title").asString();
			assertThat(title).as("a panel's title").isNotBlank();
			ids.add(panel.path("id").asInt());
			assertThat(panel.path("type").asString()).as(title).isNotBlank();
			assertThat(panel.path("datasource").path("uid").asString()).as(title + ": data source")
				.isEqualTo("${datasource}");
			assertThat(panel.path("gridPos").path("w").asInt()).as(title + ": width").isPositive();
			assertThat(panel.path("targets").size()).as(title + ": targets").isPositive();
			for (JsonNode target : panel.path("targets")) {
				assertThat(target.path("expr").asString()).as(title + ": expression").isNotBlank();
				assertThat(target.path("refId").asString()).as(title + ": refId").isNotBlank();
				assertThat(target.path("datasource").path("uid").asString()).as(title + ": target data source")
					.isEqualTo("${datasource}");
			}
		}
		assertThat(ids).as("panel ids").doesNotHaveDuplicates();
	}

	@Test
	void promtoolChecksTheRules() throws Exception {
		assertThat(promtool("check", "rules", MonitoringFiles.ALERTS)).contains("SUCCESS");
	}

	@Test
	void promtoolRunsTheRulesUnitTests() throws Exception {
		assertThat(promtool("test", "rules", MonitoringFiles.ALERT_TESTS)).contains("SUCCESS");
	}

	/** Runs promtool in the repository's root; fails (never skips) when promtool is missing. */
	private static String promtool(String... arguments) throws Exception {
		Path root = MonitoringFiles.root();
		List<String> command = new ArrayList<>(List.of("promtool"));
		command.addAll(List.of(arguments));
		Process process;
		try {
			process = new ProcessBuilder(command).directory(root.toFile()).redirectErrorStream(true).start();
		}
		catch (IOException ex) {
			throw new AssertionError("promtool is not on the PATH (" + ex.getMessage() + "): install Debian's "
					+ "prometheus package (apt-get install prometheus), which brings promtool, or a Prometheus "
					+ "release's promtool; .ci/run installs it", ex);
		}
		process.getOutputStream().close();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("promtool ended").isTrue();
		assertThat(process.exitValue()).as(String.join(" ", command) + " exit status; its output:\n" + output)
			.isZero();
		return output;
	}

}
