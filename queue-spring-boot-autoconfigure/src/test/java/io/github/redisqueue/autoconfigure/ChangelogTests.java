package io.github.redisqueue.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.context.properties.source.ConfigurationPropertyName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * CHANGELOG.md exists at the repository root and lists every deprecated property of the
 * configuration metadata with its replacement; every deprecation names a replacement that binds,
 * in the metadata and in the Javadoc of each {@code @Deprecated} element of the main sources.
 */
class ChangelogTests {

	private final Path root = RepositoryRoot.find();

	@Test
	void changelogHasAnUnreleasedSectionAndAMovedRenamedTable() throws IOException {
		String changelog = changelog();
		assertThat(changelog).startsWith("# Changelog")
			.contains("\n## [Unreleased]\n")
			.contains("\n### Moved/renamed\n")
			.contains("`io.github.redisqueue.core.metrics.QueueMetricsBinder`")
			.contains("`io.github.redisqueue.core.metrics.MicrometerJobEvents`")
			.contains("`QueueAdmin`");
	}

	@Test
	void changelogListsEveryDeprecatedPropertyWithItsReplacement() throws IOException {
		Map<String, String> deprecated = deprecatedProperties();
		assertThat(deprecated).containsKey("queue.max-attempts");
		List<String> rows = changelog().lines().filter((line) -> line.startsWith("|")).toList();
		deprecated.forEach((name, replacement) -> {
			String row = "| `" + name.replace("*", "<name>") + "` | `" + replacement.replace("*", "<name>") + "` |";
			assertThat(rows).as("CHANGELOG.md row for the deprecated %s", name).contains(row);
		});
	}

	@Test
	void everyDeprecatedPropertyNamesAReplacementThatBinds() throws IOException {
		KnownQueueProperties known = KnownQueueProperties.load(getClass().getClassLoader());
		Map<String, String> deprecated = deprecatedProperties();
		deprecated.forEach((name, replacement) -> {
			assertThat(replacement).as("replacement of %s", name).isNotBlank().isNotEqualTo(name);
			assertThat(known.isKnown(ConfigurationPropertyName.of(replacement.replace("*", "orders"))))
				.as("%s, the replacement of %s, binds", replacement, name)
				.isTrue();
			assertThat(deprecated).as("replacement of %s", name).doesNotContainKey(replacement);
		});
	}

	@Test
	void everyDeprecatedElementOfTheMainSourcesNamesItsReplacement() throws IOException {
		List<String> missing = new ArrayList<>();
		int found = 0;
		for (Path source : mainSources()) {
			List<String> lines = Files.readAllLines(source, StandardCharsets.UTF_8);
			for (int i = 0; i < lines.size(); i++) {
				if (!lines.get(i).trim().startsWith("@Deprecated")) {
					continue;
				}
				found++;
				String javadoc = javadocAbove(lines, i);
				if (!javadoc.matches("(?s).*@deprecated.*(in favour of|use) \\{@(link|code) [^}]+\\}.*")) {
					missing.add(this.root.relativize(source) + ":" + (i + 1));
				}
			}
		}
		assertThat(found).as("@Deprecated elements found").isGreaterThanOrEqualTo(5);
		assertThat(missing).as("@Deprecated elements whose @deprecated Javadoc names no replacement").isEmpty();
	}

	private static String javadocAbove(List<String> lines, int annotation) {
		int end = annotation - 1;
		while (end >= 0 && lines.get(end).trim().startsWith("@")) {
			end--;
		}
		if (end < 0 || !lines.get(end).trim().endsWith("*/")) {
			return "";
		}
		int start = end;
		while (start >= 0 && !lines.get(start).trim().startsWith("/**")) {
			start--;
		}
		return (start < 0) ? "" : String.join("\n", lines.subList(start, end + 1));
	}

	private List<Path> mainSources() throws IOException {
		List<Path> sources = new ArrayList<>();
		try (Stream<Path> files = Files.walk(this.root)) {
			files.filter((file) -> file.toString().endsWith(".java"))
				.filter((file) -> this.root.relativize(file).toString().replace('\\', '/').contains("src/main/java/"))
				.filter((file) -> !file.toString().contains("/target/"))
				.sorted()
				.forEach(sources::add);
		}
		return sources;
	}

	/** The deprecated properties of the metadata the build generated, to their replacement. */
	private static Map<String, String> deprecatedProperties() throws IOException {
		JsonNode metadata;
		try (InputStream in = ChangelogTests.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(in).as("generated metadata on the class path").isNotNull();
			metadata = JsonMapper.builder().build().readTree(in);
		}
		Map<String, String> deprecated = new LinkedHashMap<>();
		metadata.get("properties").forEach((property) -> {
			if (property.has("deprecation") || (property.has("deprecated") && property.get("deprecated").asBoolean())) {
				JsonNode replacement = property.path("deprecation").path("replacement");
				deprecated.put(property.get("name").asString(), replacement.isMissingNode() ? "" : replacement.asString());
			}
		});
		return deprecated;
	}

	private String changelog() throws IOException {
		Path changelog = this.root.resolve("CHANGELOG.md");
		assertThat(changelog).as("CHANGELOG.md at the repository root").isRegularFile();
		return Files.readString(changelog, StandardCharsets.UTF_8);
	}


}
