package io.github.redisqueue.samples.benchmark;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The machine's reference numbers from {@code redis-benchmark} against the same Redis: SET and
 * EVALSHA of a small script, with and without pipelining, so figures from different machines can
 * be read as ratios.
 */
final class ReferenceNumbers {

	private static final Pattern RATE = Pattern.compile("([0-9.]+) requests per second");

	private final String host;

	private final int port;

	ReferenceNumbers(String host, int port) {
		this.host = host;
		this.port = port;
	}

	Map<String, Object> measure() {
		Map<String, Object> numbers = new LinkedHashMap<>();
		try {
			String sha = run("redis-cli", "-h", this.host, "-p", String.valueOf(this.port), "SCRIPT", "LOAD",
					"return redis.call('INCR', KEYS[1])").trim();
			numbers.put("SET", rate("-t", "set"));
			numbers.put("SET -P 16", rate("-t", "set", "-P", "16"));
			numbers.put("EVALSHA", rate("EVALSHA", sha, "1", "bench:counter"));
			numbers.put("EVALSHA -P 16", rate("-P", "16", "EVALSHA", sha, "1", "bench:counter"));
		}
		catch (Exception ex) {
			numbers.put("unavailable", "redis-benchmark/redis-cli not usable here: " + ex.getMessage());
		}
		return numbers;
	}

	private double rate(String... args) throws Exception {
		List<String> command = new ArrayList<>(List.of("redis-benchmark", "-h", this.host, "-p",
				String.valueOf(this.port), "-n", "100000", "-q"));
		command.addAll(List.of(args));
		String output = run(command.toArray(String[]::new));
		Matcher matcher = RATE.matcher(output);
		if (!matcher.find()) {
			throw new IllegalStateException("unexpected redis-benchmark output: " + output);
		}
		return Double.parseDouble(matcher.group(1));
	}

	private static String run(String... command) throws Exception {
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		StringBuilder out = new StringBuilder();
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null) {
				out.append(line.replaceAll(".*\r", "")).append('\n');
			}
		}
		if (!process.waitFor(2, TimeUnit.MINUTES) || process.exitValue() != 0) {
			throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
		}
		return out.toString();
	}

}
