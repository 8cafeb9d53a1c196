package io.github.redisqueue.autoconfigure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.env.PropertiesPropertySourceLoader;
import org.springframework.boot.env.PropertySourceLoader;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.FileSystemResource;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A {@code queue.*} key that binds to nothing is reported at startup with its property source and
 * the nearest valid key, as a warning or, with {@code queue.fail-on-unknown-properties=true}, as
 * the failure of the start; every key the samples and the docs use is valid, and so are queue
 * names with dots in bracket syntax and the deprecated keys. No Redis is contacted: the
 * auto-configuration runs without a connection factory.
 */
@ExtendWith(OutputCaptureExtension.class)
class UnknownQueuePropertiesTests {

	private static final String UNKNOWN = "binds to no queue setting";

	private static final Pattern CODE_SPAN = Pattern.compile("`([^`\\n]+)`");

	private static final Pattern FENCED_YAML = Pattern.compile("(?ms)^```ya?ml\\n(.*?)^```");

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(QueueAutoConfiguration.class));

	private final Path root = RepositoryRoot.find();

	@Test
	void misspeltListenerKeyIsReportedWithTheNearestKey(CapturedOutput output) {
		this.contextRunner.withPropertyValues("queue.listner.concurrency=4").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(warnings(output)).singleElement()
				.asString()
				.contains("WARN")
				.contains("Property 'queue.listner.concurrency' from [test] " + UNKNOWN)
				.contains("did you mean 'queue.listener.concurrency'?")
				.contains(UnknownQueuePropertiesCheck.FAIL_PROPERTY + "=true");
		});
	}

	@Test
	void misspeltSettingOfAQueueIsReportedWithTheQueueNameKept(CapturedOutput output) {
		this.contextRunner.withPropertyValues("queue.queues.orders.concurency=2").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(warnings(output)).singleElement()
				.asString()
				.contains("Property 'queue.queues.orders.concurency' from [test] " + UNKNOWN)
				.contains("did you mean 'queue.queues.orders.concurrency'?");
		});
	}

	@Test
	void keysFromEnvironmentVariablesNameTheirSource(CapturedOutput output) {
		this.contextRunner
			.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.addFirst(new SystemEnvironmentPropertySource(
						"test-" + StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
						Map.of("QUEUE_LISTNER_CONCURRENCY", "4", "QUEUE_QUEUES_ORDERS_CONCURRENCY", "2"))))
			.run((context) -> assertThat(warnings(output)).singleElement()
				.asString()
				.contains("Property 'queue.listner.concurrency' from [test-systemEnvironment] " + UNKNOWN)
				.contains("did you mean 'queue.listener.concurrency'?"));
	}

	@Test
	void keysFromAConfigurationFileNameTheFileAndLine(CapturedOutput output) throws IOException {
		String yaml = "queue:\n  listener:\n    concurrency: 2\n  reaper:\n    intervall: 1s\n";
		List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("application.yml",
				new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8), "application.yml"));
		this.contextRunner.withInitializer((context) -> sources.forEach(context.getEnvironment().getPropertySources()::addLast))
			.run((context) -> assertThat(warnings(output)).singleElement()
				.asString()
				.contains("Property 'queue.reaper.intervall' from [application.yml] (")
				.contains("[application.yml] - 5:")
				.contains("did you mean 'queue.reaper.interval'?"));
	}

	@Test
	void queueNamesWithDotsInBracketsAreNotReported(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("queue.queues.[mail.out].concurrency=4", "queue.queues.[mail.out].backoff.initial=2s",
					"queue.queues.[eu.orders.v2].rate-limit=100/1s", "queue.queues.[eu.orders.v2].ack-mode=manual",
					"queue.schedules.[daily.digest].cron=0 0 8 * * *", "queue.schedules.[daily.digest].queue=mail.out")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(warnings(output)).isEmpty();
			});
	}

	@Test
	void misspeltSettingOfAQueueNameWithDotsKeepsTheBrackets(CapturedOutput output) {
		this.contextRunner.withPropertyValues("queue.queues.[mail.out].backoff.inital=2s")
			.run((context) -> assertThat(warnings(output)).singleElement()
				.asString()
				.contains("Property 'queue.queues.[mail.out].backoff.inital' from [test] " + UNKNOWN)
				.contains("did you mean 'queue.queues.[mail.out].backoff.initial'?"));
	}

	@Test
	void queueNameWithDotsWithoutBracketsIsReportedWithTheBracketedKey(CapturedOutput output) {
		this.contextRunner.withPropertyValues("queue.queues.mail.out.concurrency=4")
			.run((context) -> assertThat(warnings(output)).singleElement()
				.asString()
				.contains("Property 'queue.queues.mail.out.concurrency' from [test] " + UNKNOWN)
				.contains("did you mean 'queue.queues.[mail.out].concurrency'?"));
	}

	@Test
	void deprecatedKeysStillBindAndAreNotReported(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("queue.max-attempts=4", "queue.queues.orders.backoff-initial=2s",
					"queue.queues.orders.backoff-multiplier=3", "queue.queues.orders.backoff-max=1m")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(warnings(output)).isEmpty();
				assertThat(output).contains("Property 'queue.max-attempts' is deprecated");
			});
	}

	@Test
	void everyKeyOfTheSamplesIsValid(CapturedOutput output) throws IOException {
		List<Path> files;
		try (Stream<Path> walk = Files.walk(this.root.resolve("samples"))) {
			files = walk.filter((file) -> file.toString().contains("src" + java.io.File.separator + "main")
					&& file.getFileName().toString().matches("application.*\\.(ya?ml|properties)"))
				.toList();
		}
		assertThat(files).hasSizeGreaterThanOrEqualTo(3);
		List<PropertySource<?>> sources = new ArrayList<>();
		for (Path file : files) {
			PropertySourceLoader loader = file.toString().endsWith(".properties") ? new PropertiesPropertySourceLoader()
					: new YamlPropertySourceLoader();
			sources.addAll(loader.load(file.toString(), new FileSystemResource(file)));
		}
		assertThat(sources.stream().flatMap((source) -> Stream.of(((MapPropertySource) source).getPropertyNames())))
			.contains("queue.listener.concurrency", "queue.queues.emails.max-attempts", "queue.schedules.digest.cron",
					"queue.dashboard.enabled", "queue.reaper.interval");
		this.contextRunner.withInitializer((context) -> sources.forEach(context.getEnvironment().getPropertySources()::addLast))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(warnings(output)).isEmpty();
			});
	}

	/**
	 * Every key of docs/configuration.md's tables (with {@code <name>} as a queue name, with dots
	 * or without), every {@code queue.key=value} example of the docs and README, and the YAML
	 * examples of the docs.
	 */
	@Test
	void everyKeyOfTheDocsIsValid() throws IOException {
		Map<String, Object> keys = new LinkedHashMap<>();
		List<String> tableRows = read(this.root.resolve("docs/configuration.md")).lines()
			.filter((line) -> line.startsWith("|"))
			.toList();
		for (String span : spans(String.join("\n", tableRows))) {
			if (span.matches("queue\\.[a-z0-9.<>\\[\\]-]+") && !span.endsWith(".")) {
				keys.put(span.replace("<name>", "orders"), "1");
				keys.put(span.replace("<name>", "[mail.out]"), "1");
			}
		}
		List<Path> pages = new ArrayList<>(List.of(this.root.resolve("README.md")));
		try (Stream<Path> docs = Files.list(this.root.resolve("docs"))) {
			docs.filter((page) -> page.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		List<PropertySource<?>> yaml = new ArrayList<>();
		for (Path page : pages) {
			String text = read(page);
			for (String span : spans(text)) {
				if (span.matches("queue\\.[^=\\s]+=.*")) {
					keys.put(span.substring(0, span.indexOf('=')), span.substring(span.indexOf('=') + 1));
				}
			}
			Matcher block = FENCED_YAML.matcher(text);
			while (block.find()) {
				yaml.addAll(new YamlPropertySourceLoader().load(page.toString(),
						new ByteArrayResource(block.group(1).getBytes(StandardCharsets.UTF_8))));
			}
		}
		assertThat(keys).containsKeys("queue.listener.backoff.initial", "queue.queues.orders.concurrency",
				"queue.queues.[mail.out].backoff.multiplier", "queue.queues.orders.backoff-initial",
				"queue.max-attempts", "queue.fail-on-unknown-properties", "queue.queues.[mail.out].concurrency",
				"queue.schedules.orders.cron", "queue.health.max-head-age", "queue.dashboard.read-only");
		assertThat(yaml).isNotEmpty();
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().addFirst(new MapPropertySource("docs", keys));
		yaml.forEach(environment.getPropertySources()::addLast);
		assertThat(new UnknownQueuePropertiesCheck(environment, getClass().getClassLoader()).unknownProperties())
			.isEmpty();
	}

	@Test
	void failingModeFailsTheStartListingEveryUnknownKey() {
		this.contextRunner
			.withPropertyValues("queue.fail-on-unknown-properties=true", "queue.listner.concurrency=4",
					"queue.queues.orders.concurency=2", "queue.queues.orders.concurrency=2")
			.run((context) -> {
				assertThat(context).hasFailed();
				Throwable cause = NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure());
				assertThat(cause).isInstanceOf(UnknownQueuePropertiesException.class)
					.hasMessageContaining("2 queue properties bind to nothing (queue.fail-on-unknown-properties is true)")
					.hasMessageContaining("Property 'queue.listner.concurrency' from [test] " + UNKNOWN
							+ "; did you mean 'queue.listener.concurrency'?")
					.hasMessageContaining("Property 'queue.queues.orders.concurency' from [test] " + UNKNOWN
							+ "; did you mean 'queue.queues.orders.concurrency'?");
				assertThat(((UnknownQueuePropertiesException) cause).getProperties()).hasSize(2);
			});
	}

	@Test
	void failingModeStartsWhenEveryKeyIsKnown() {
		this.contextRunner.withPropertyValues("queue.fail-on-unknown-properties=true", "queue.queues.orders.concurrency=2")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void applicationFailsToStartWithTheFailureAnalysis(CapturedOutput output) {
		SpringApplication application = new SpringApplication(QueueApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(() -> application.run("--queue.fail-on-unknown-properties=true",
				"--queue.reaper.intervall=1s"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Property 'queue.reaper.intervall' from [commandLineArgs] " + UNKNOWN
					+ "; did you mean 'queue.reaper.interval'?")
			.contains("Correct or remove these properties, or set queue.fail-on-unknown-properties=false");
	}

	private static List<String> warnings(CapturedOutput output) {
		return output.getAll().lines().filter((line) -> line.contains(UNKNOWN)).toList();
	}

	private static List<String> spans(String markdown) {
		List<String> spans = new ArrayList<>();
		Matcher span = CODE_SPAN.matcher(markdown);
		while (span.find()) {
			spans.add(span.group(1));
		}
		return spans;
	}

	private static String read(Path file) throws IOException {
		return Files.readString(file, StandardCharsets.UTF_8);
	}


	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(QueueAutoConfiguration.class)
	static class QueueApplication {

	}

}
