package io.github.redisqueue.samples.benchmark;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The runs of one phase: throughput (or latency), round trips, Redis commands, Redis time and JVM
 * CPU per job, as median, min and max.
 */
final class Figures {

	private final String phase;

	private final String unit;

	private final List<Double> values = new ArrayList<>();

	private final List<Double> scriptsPerJob = new ArrayList<>();

	private final List<Double> roundTripsPerJob = new ArrayList<>();

	private final List<Double> executedPerJob = new ArrayList<>();

	private final List<Double> cpuMicrosPerJob = new ArrayList<>();

	private final List<Double> redisMicrosPerJob = new ArrayList<>();

	private final List<Double> allocatedPerJob = new ArrayList<>();

	private final List<Long> samples = new ArrayList<>();

	Figures(String phase, String unit) {
		this.phase = phase;
		this.unit = unit;
	}

	void add(double value, CommandStats.Delta commands, long jobs, long cpuNanos) {
		this.values.add(value);
		this.scriptsPerJob.add((double) commands.scripts() / jobs);
		this.roundTripsPerJob.add((double) commands.roundTrips() / jobs);
		this.executedPerJob.add((double) commands.executed() / jobs);
		this.cpuMicrosPerJob.add(cpuNanos / 1000.0 / jobs);
		this.redisMicrosPerJob.add(commands.redisMicros() / jobs);
	}

	/** Record the bytes the JVM allocated over a run of {@code jobs} jobs (all threads). */
	void allocated(long bytes, long jobs) {
		this.allocatedPerJob.add((double) bytes / jobs);
	}

	/** Record how many samples a run's value was taken from (a latency percentile's). */
	void samples(long count) {
		this.samples.add(count);
	}

	List<Long> sampleCounts() {
		return this.samples;
	}

	/** The median Redis commands executed per job (inside scripts included). */
	double executedPerJob() {
		return median(this.executedPerJob);
	}

	/** The median round trips per job (commands the client sent). */
	double roundTripsPerJob() {
		return median(this.roundTripsPerJob);
	}

	/** The median time Redis spent per job, in microseconds ({@link CommandStats.Delta#redisMicros()}). */
	double redisMicrosPerJob() {
		return median(this.redisMicrosPerJob);
	}

	List<Double> values() {
		return this.values;
	}

	String phase() {
		return this.phase;
	}

	/** The median of the measured values. */
	double median() {
		return median(this.values);
	}

	String row() {
		return String.format("%-40s %12s %12s %12s %-8s %9.3f %9.3f %9.2f %9.1f %9.1f %9s", this.phase,
				fmt(median(this.values)), fmt(min(this.values)), fmt(max(this.values)), this.unit,
				median(this.roundTripsPerJob), median(this.scriptsPerJob), median(this.executedPerJob),
				median(this.redisMicrosPerJob), median(this.cpuMicrosPerJob),
				this.allocatedPerJob.isEmpty() ? "-" : String.format("%,.0f", median(this.allocatedPerJob)));
	}

	static String header() {
		return String.format("%-40s %12s %12s %12s %-8s %9s %9s %9s %9s %9s %9s", "phase", "median", "min", "max",
				"unit", "rt/job", "eval/job", "cmds/job", "redis us", "cpu us/j", "alloc B/j");
	}

	Map<String, Object> toMap() {
		Map<String, Object> map = new LinkedHashMap<>();
		map.put("phase", this.phase);
		map.put("unit", this.unit);
		map.put("median", median(this.values));
		map.put("min", min(this.values));
		map.put("max", max(this.values));
		map.put("runs", this.values);
		map.put("roundTripsPerJob", median(this.roundTripsPerJob));
		map.put("scriptCallsPerJob", median(this.scriptsPerJob));
		map.put("redisCommandsExecutedPerJob", median(this.executedPerJob));
		map.put("redisMicrosPerJob", median(this.redisMicrosPerJob));
		map.put("jvmCpuMicrosPerJob", median(this.cpuMicrosPerJob));
		if (!this.allocatedPerJob.isEmpty()) {
			map.put("jvmAllocatedBytesPerJob", median(this.allocatedPerJob));
		}
		if (!this.samples.isEmpty()) {
			map.put("samples", this.samples);
		}
		return map;
	}

	static double median(List<Double> values) {
		List<Double> sorted = new ArrayList<>(values);
		sorted.sort(null);
		int n = sorted.size();
		return (n % 2 == 1) ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
	}

	private static double min(List<Double> values) {
		return values.stream().mapToDouble(Double::doubleValue).min().orElse(0);
	}

	private static double max(List<Double> values) {
		return values.stream().mapToDouble(Double::doubleValue).max().orElse(0);
	}

	private static String fmt(double value) {
		return (value >= 100) ? String.format("%,.0f", value) : String.format("%.3f", value);
	}

}
