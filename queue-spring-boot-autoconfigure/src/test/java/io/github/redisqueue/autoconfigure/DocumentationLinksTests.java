package io.github.redisqueue.autoconfigure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The documentation (README.md and the pages under docs/) stays consistent with itself and with
 * the configuration metadata. No Redis is needed.
 * <ul>
 * <li><b>Links.</b> Every Markdown link {@code [text](target)} or image {@code ![alt](target)} of
 * README.md, CHANGELOG.md and docs/*.md, outside fenced code blocks and code spans, whose target has no URL
 * scheme ({@code https:}, {@code mailto:} ...) resolves: the file exists, relative to the page
 * that links to it; an anchor ({@code page.md#anchor}, or {@code #anchor} for the page itself)
 * equals the slug of a heading of the target page under GitHub's rules: the heading's text
 * lower-cased, every character other than a letter, a digit, {@code -}, {@code _} or a space
 * removed (backticks included), each space turned into {@code -}; the second heading with the
 * same slug gets {@code -1}, the third {@code -2}, and so on. README.md links to every page of
 * docs/.</li>
 * <li><b>Properties.</b> Every property whose name starts with {@code queue.}, in the metadata
 * the build generates ({@code target/classes/META-INF/spring-configuration-metadata.json} of
 * this module) and in the hand-written {@code additional-spring-configuration-metadata.json}, is
 * named in docs/configuration.md as a code span of its own. A {@code *} in a metadata name (the
 * key of a map) is written {@code <name>} on the page: {@code queue.queues.*.rate-limit} is
 * documented as {@code `queue.queues.<name>.rate-limit`}. A property of map type whose name has
 * no {@code *} ({@code queue.queues}, {@code queue.schedules}) is documented by its entries: some
 * code span of the page starts with its name followed by {@code .<name>.}. Deprecated properties
 * are no exception: the page lists them with their replacement.</li>
 * </ul>
 * The repository root is found by walking up from the working directory to the first directory
 * that holds {@code .ci/test-all} or {@code mvnw}.
 */
class DocumentationLinksTests {

	private static final Pattern FENCED_BLOCK = Pattern.compile("(?ms)^\\s*```.*?^\\s*```[^\\n]*$");

	private static final Pattern CODE_SPAN = Pattern.compile("`([^`\\n]+)`");

	private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6}[ \\t]+(.+?)[ \\t]*#*[ \\t]*$");

	private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)(?:[ \\t]+\"[^\"]*\")?\\)");

	private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");

	private final Path root = RepositoryRoot.find();

	@Test
	void everyRelativeLinkAndAnchorResolves() throws IOException {
		List<String> broken = new ArrayList<>();
		Map<Path, Set<String>> anchors = new HashMap<>();
		for (Path page : pages()) {
			String text = CODE_SPAN.matcher(withoutFencedBlocks(read(page))).replaceAll("");
			Matcher link = LINK.matcher(text);
			while (link.find()) {
				String target = link.group(1);
				if (SCHEME.matcher(target).find()) {
					continue;
				}
				int hash = target.indexOf('#');
				String file = (hash < 0) ? target : target.substring(0, hash);
				Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
				String where = this.root.relativize(page) + ": (" + target + ")";
				if (!Files.exists(resolved)) {
					broken.add(where + " -> no file " + this.root.relativize(resolved));
					continue;
				}
				if (hash >= 0) {
					String anchor = target.substring(hash + 1);
					Set<String> slugs = anchors.computeIfAbsent(resolved, DocumentationLinksTests::headingSlugs);
					if (!slugs.contains(anchor)) {
						broken.add(where + " -> no heading #" + anchor + " in " + this.root.relativize(resolved));
					}
				}
			}
		}
		String readme = read(this.root.resolve("README.md"));
		for (Path page : docsPages()) {
			if (!readme.contains("](docs/" + page.getFileName() + ")")) {
				broken.add("README.md: no link to docs/" + page.getFileName());
			}
		}
		if (!broken.isEmpty()) {
			fail(broken.size() + " broken link(s) in the documentation:\n" + String.join("\n", broken));
		}
	}

	@Test
	void everyQueuePropertyOfTheMetadataIsOnThePropertiesPage() throws IOException {
		Path module = this.root.resolve("queue-spring-boot-autoconfigure");
		Path generated = module.resolve("target/classes/META-INF/spring-configuration-metadata.json");
		Path additional = module.resolve("src/main/resources/META-INF/additional-spring-configuration-metadata.json");
		assertThat(generated).as("configuration metadata generated by the build").exists();
		Map<String, String> properties = new HashMap<>();
		queueProperties(generated, properties);
		queueProperties(additional, properties);
		assertThat(properties).as("queue.* properties of the metadata").hasSizeGreaterThanOrEqualTo(40);

		Path page = this.root.resolve("docs/configuration.md");
		Set<String> spans = new LinkedHashSet<>();
		Matcher span = CODE_SPAN.matcher(read(page));
		while (span.find()) {
			spans.add(span.group(1));
		}
		Set<String> missing = new TreeSet<>();
		properties.forEach((name, type) -> {
			boolean documented;
			if (!name.contains("*") && type.startsWith("java.util.Map")) {
				String prefix = name + ".<name>.";
				documented = spans.stream().anyMatch((code) -> code.startsWith(prefix));
			}
			else {
				documented = spans.contains(name.replace("*", "<name>"));
			}
			if (!documented) {
				missing.add(name);
			}
		});
		if (!missing.isEmpty()) {
			fail(this.root.relativize(page) + " does not document these queue.* properties of the configuration metadata ("
					+ missing.size() + "):\n" + String.join("\n", missing));
		}
	}

	/** The slugs GitHub gives the headings of a Markdown page, duplicates numbered. */
	static Set<String> headingSlugs(Path page) {
		Set<String> slugs = new LinkedHashSet<>();
		Map<String, Integer> seen = new HashMap<>();
		Matcher heading = HEADING.matcher(withoutFencedBlocks(read(page)));
		while (heading.find()) {
			String slug = slug(heading.group(1));
			int repeats = seen.merge(slug, 1, Integer::sum) - 1;
			slugs.add((repeats == 0) ? slug : slug + "-" + repeats);
		}
		return slugs;
	}

	static String slug(String heading) {
		StringBuilder slug = new StringBuilder();
		heading.toLowerCase(Locale.ROOT).codePoints().forEach((c) -> {
			if (c == ' ') {
				slug.append('-');
			}
			else if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
				slug.appendCodePoint(c);
			}
		});
		return slug.toString();
	}

	@Test
	void slugsFollowGitHubsRules() {
		assertThat(slug("Endpoint `queues`")).isEqualTo("endpoint-queues");
		assertThat(slug("Batches, groups and results")).isEqualTo("batches-groups-and-results");
		assertThat(slug("Eviction: `maxmemory-policy noeviction`")).isEqualTo("eviction-maxmemory-policy-noeviction");
		assertThat(slug("CI: `.ci/run` and browser tests")).isEqualTo("ci-cirun-and-browser-tests");
	}

	private static void queueProperties(Path metadata, Map<String, String> into) {
		JsonNode properties = JsonMapper.builder().build().readTree(read(metadata)).get("properties");
		assertThat(properties).as("properties of " + metadata).isNotNull();
		properties.forEach((property) -> {
			String name = property.get("name").asString();
			if (name.startsWith("queue.")) {
				JsonNode type = property.get("type");
				into.merge(name, (type != null) ? type.asString() : "", (a, b) -> a.isEmpty() ? b : a);
			}
		});
	}

	private List<Path> pages() throws IOException {
		List<Path> pages = new ArrayList<>();
		pages.add(this.root.resolve("README.md"));
		pages.add(this.root.resolve("CHANGELOG.md"));
		pages.addAll(docsPages());
		return pages;
	}

	private List<Path> docsPages() throws IOException {
		try (Stream<Path> files = Files.list(this.root.resolve("docs"))) {
			List<Path> pages = files.filter((file) -> file.getFileName().toString().endsWith(".md")).sorted().toList();
			assertThat(pages).as("pages under docs/").isNotEmpty();
			return pages;
		}
	}

	private static String withoutFencedBlocks(String text) {
		return FENCED_BLOCK.matcher(text).replaceAll("");
	}

	private static String read(Path file) {
		try {
			return Files.readString(file, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException("cannot read " + file, ex);
		}
	}


}
