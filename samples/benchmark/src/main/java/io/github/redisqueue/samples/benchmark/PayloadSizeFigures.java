package io.github.redisqueue.samples.benchmark;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The figures of every phase at one payload size, redis-queue's and the thin loop's, with the
 * ratios and the per-job costs derived from them.
 */
final class PayloadSizeFigures {

	final int payloadBytes;

	final Figures single = new Figures("enqueue, 1 job/call, 1 thread", "jobs/s");

	final Figures parallel;

	final Figures bulk = new Figures("enqueue, bulk (1000/call)", "jobs/s");

	final Figures drainCold;

	final Figures drainWarm;

	final Figures batch;

	final Figures pull;

	final Figures[] latency;

	final Figures thinSingle = new Figures("thin: LPUSH, 1 job/call, 1 thread", "jobs/s");

	final Figures thinParallel;

	final Figures thinBulk = new Figures("thin: LPUSH, 1000 jobs/call", "jobs/s");

	final Figures thinDrain;

	final Figures[] thinLatency;

	PayloadSizeFigures(int payloadBytes, BenchmarkConfig config, int producers) {
		this.payloadBytes = payloadBytes;
		int c = config.concurrency();
		String prefetch = (config.prefetch() >= 0) ? " prefetch " + config.prefetch() : "";
		this.parallel = new Figures("enqueue, 1 job/call, " + producers + " threads", "jobs/s");
		this.drainCold = new Figures("drain cold @QueueListener C=" + c + prefetch, "jobs/s");
		this.drainWarm = new Figures("drain warm @QueueListener C=" + c + prefetch, "jobs/s");
		this.batch = new Figures("batch cap " + config.batchCap() + ", @QueueListener C=" + c, "jobs/s");
		this.pull = new Figures("drain pull API C=" + c, "jobs/s");
		this.latency = LatencyPhase.figures("", config.rate());
		this.thinParallel = new Figures("thin: LPUSH, 1 job/call, " + producers + " threads", "jobs/s");
		this.thinDrain = new Figures("thin: LMOVE+LREM C=" + c, "jobs/s");
		this.thinLatency = LatencyPhase.figures("thin: ", config.rate());
	}

	List<Figures> ours() {
		List<Figures> all = new ArrayList<>(List.of(this.single, this.parallel, this.bulk, this.drainCold,
				this.drainWarm, this.batch, this.pull));
		all.addAll(List.of(this.latency));
		return all;
	}

	List<Figures> thin() {
		List<Figures> all = new ArrayList<>(List.of(this.thinSingle, this.thinParallel, this.thinBulk, this.thinDrain));
		all.addAll(List.of(this.thinLatency));
		return all;
	}

	List<Ratio> ratios() {
		List<Ratio> ratios = new ArrayList<>(List.of(new Ratio(this.single, this.thinSingle),
				new Ratio(this.parallel, this.thinParallel), new Ratio(this.bulk, this.thinBulk),
				new Ratio(this.drainCold, this.thinDrain), new Ratio(this.drainWarm, this.thinDrain),
				new Ratio(this.pull, this.thinDrain)));
		for (int i = 0; i < this.latency.length; i++) {
			ratios.add(new Ratio(this.latency[i], this.thinLatency[i]));
		}
		return ratios;
	}

	/** The median batch drain over the median cold drain. */
	double batchToDrain() {
		return this.batch.median() / this.drainCold.median();
	}

	/**
	 * Redis time per job to enqueue (one job per call, one thread) and drain (cold) it, ours and
	 * the thin loop's, from {@code usec} of {@code INFO commandstats}.
	 */
	double[] redisMicrosPerJob() {
		return new double[] { this.single.redisMicrosPerJob() + this.drainCold.redisMicrosPerJob(),
				this.thinSingle.redisMicrosPerJob() + this.thinDrain.redisMicrosPerJob() };
	}

	/** The per-job costs this size's phases give, for the table and the JSON. */
	Map<String, Object> costs() {
		Map<String, Object> costs = new LinkedHashMap<>();
		costs.put("commandsPerJobAtRate", this.latency[0].executedPerJob());
		costs.put("thinCommandsPerJobAtRate", this.thinLatency[0].executedPerJob());
		costs.put("roundTripsPerJobAtRate", this.latency[0].roundTripsPerJob());
		costs.put("thinRoundTripsPerJobAtRate", this.thinLatency[0].roundTripsPerJob());
		costs.put("commandsPerDrainedJobCold", this.drainCold.executedPerJob());
		costs.put("commandsPerDrainedJobWarm", this.drainWarm.executedPerJob());
		costs.put("thinCommandsPerDrainedJob", this.thinDrain.executedPerJob());
		double[] micros = redisMicrosPerJob();
		costs.put("redisMicrosPerJobEnqueueAndDrain", micros[0]);
		costs.put("thinRedisMicrosPerJobEnqueueAndDrain", micros[1]);
		costs.put("redisMicrosRatioToThin", micros[0] / micros[1]);
		costs.put("batchToColdDrain", batchToDrain());
		return costs;
	}

	String table() {
		StringBuilder out = new StringBuilder();
		out.append("--- payload about ").append(this.payloadBytes).append(" bytes ---\n");
		out.append(Figures.header()).append('\n');
		ours().forEach((figure) -> out.append(figure.row()).append('\n'));
		thin().forEach((figure) -> out.append(figure.row()).append('\n'));
		out.append("ratios to the thin loop (of the medians, then of the runs paired in order: median, min-max;\n"
				+ "for latency, lower is better):\n");
		ratios().forEach((ratio) -> out.append("  ").append(ratio.row()).append('\n'));
		Map<String, Object> c = costs();
		out.append(String.format("Redis commands per job at %s: %.2f (thin %.2f); round trips per job %.2f (thin %.2f)%n",
				this.latency[0].phase().replaceFirst(".*@", ""), c.get("commandsPerJobAtRate"),
				c.get("thinCommandsPerJobAtRate"), c.get("roundTripsPerJobAtRate"), c.get("thinRoundTripsPerJobAtRate")));
		out.append(String.format("Redis commands per drained job: cold %.2f, warm %.2f (thin %.2f)%n",
				c.get("commandsPerDrainedJobCold"), c.get("commandsPerDrainedJobWarm"), c.get("thinCommandsPerDrainedJob")));
		out.append(String.format("Redis time per job, enqueue + cold drain: %.1f us (thin %.1f us, x %.2f)%n",
				c.get("redisMicrosPerJobEnqueueAndDrain"), c.get("thinRedisMicrosPerJobEnqueueAndDrain"),
				c.get("redisMicrosRatioToThin")));
		out.append(String.format("batch drain / cold @QueueListener drain (medians): %.1f%%%n", batchToDrain() * 100));
		return out.toString();
	}

	Map<String, Object> toMap() {
		Map<String, Object> map = new LinkedHashMap<>();
		map.put("payloadBytes", this.payloadBytes);
		map.put("phases", ours().stream().map(Figures::toMap).toList());
		map.put("thinLoop", thin().stream().map(Figures::toMap).toList());
		map.put("ratiosToThinLoop", ratios().stream().map(Ratio::toMap).toList());
		map.put("costs", costs());
		return map;
	}

	/**
	 * A figure of redis-queue against the thin loop's figure of the same kind: the ratio of their
	 * medians, and the ratios of the runs paired by their order (run k of each phase ran a minute or
	 * two apart, so a machine whose speed drifts between runs moves both sides of a pair).
	 * @param figure redis-queue's
	 * @param thin the thin loop's
	 */
	record Ratio(Figures figure, Figures thin) {

		double value() {
			return this.figure.median() / this.thin.median();
		}

		/** The ratio of each run to the thin loop's run of the same order (both ran every run). */
		List<Double> paired() {
			List<Double> ours = this.figure.values();
			List<Double> theirs = this.thin.values();
			if (ours.size() != theirs.size()) {
				throw new IllegalStateException(this.figure.phase() + " has " + ours.size() + " runs, "
						+ this.thin.phase() + " " + theirs.size());
			}
			List<Double> paired = new ArrayList<>();
			for (int i = 0; i < ours.size(); i++) {
				paired.add(ours.get(i) / theirs.get(i));
			}
			return paired;
		}

		String row() {
			List<Double> paired = paired();
			return String.format("%-40s / %-40s x %.2f (paired runs %.2f, %.2f-%.2f)", this.figure.phase(),
					this.thin.phase(), value(), Figures.median(paired), Collections.min(paired),
					Collections.max(paired));
		}

		Map<String, Object> toMap() {
			Map<String, Object> map = new LinkedHashMap<>();
			map.put("phase", this.figure.phase());
			map.put("thinLoopPhase", this.thin.phase());
			map.put("ratio", value());
			List<Double> paired = paired();
			map.put("pairedRunRatios", paired);
			map.put("pairedRunRatioMedian", Figures.median(paired));
			return map;
		}

	}

}
