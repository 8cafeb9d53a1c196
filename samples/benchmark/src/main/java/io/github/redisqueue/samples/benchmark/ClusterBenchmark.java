package io.github.redisqueue.samples.benchmark;

import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.PartitionCounts;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.listener.QueueListenerContainer;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The cluster benchmark ({@code --cluster}): a local Redis Cluster of {@code --cluster-masters}
 * masters (and {@code --cluster-replicas} replicas each), and the drain of {@code --jobs} jobs of
 * one queue through {@code @QueueListener} with concurrency C, several runs, medians with Redis
 * commands per job summed over the masters. The drains run once for each partition count P of
 * {@code --partitions} (default 1): the queue spread over P partitions by the template's settings,
 * the jobs enqueued over them by the template, the container consuming them all. For each P the
 * benchmark prints on which master each partition's slot lives, and each P's median drain as a
 * ratio to that of P = 1. Before the drains, {@code redis-benchmark} measures what the machine
 * allows: pipelined SET against one master alone, and against the whole cluster
 * ({@code --cluster}), whose ratio bounds what any spread of work over the masters can gain on
 * this machine.
 */
final class ClusterBenchmark {

	private static final Pattern RATE = Pattern.compile("([0-9.]+) requests per second");

	private final BenchmarkConfig config;

	private final LocalCluster cluster;

	private final LettuceConnectionFactory connectionFactory;

	private final SentCommands sent = new SentCommands();

	private ClusterBenchmark(BenchmarkConfig config, LocalCluster cluster) {
		this.config = config;
		this.cluster = cluster;
		this.connectionFactory = new LettuceConnectionFactory(new RedisClusterConfiguration(cluster.seeds()));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.connectionFactory.getRequiredNativeClient().addListener(this.sent);
	}

	static void main(BenchmarkConfig config) throws Exception {
		try (LocalCluster cluster = LocalCluster.start(RedisUnderTest.binary(), config.masters(), config.replicas())) {
			ClusterBenchmark benchmark = new ClusterBenchmark(config, cluster);
			try {
				benchmark.run();
			}
			finally {
				benchmark.connectionFactory.destroy();
			}
		}
	}

	private void run() throws Exception {
		Map<String, Object> machine = new LinkedHashMap<>();
		machine.put("date", Instant.now().toString());
		machine.put("cpus", Runtime.getRuntime().availableProcessors());
		machine.put("java", System.getProperty("java.version"));
		machine.put("masters", this.config.masters());
		machine.put("replicasPerMaster", this.config.replicas());
		machine.put("masterPorts", this.cluster.masterPorts());
		machine.put("jobs", this.config.jobs());
		machine.put("concurrency", this.config.concurrency());
		machine.put("runs", this.config.runs());
		machine.put("partitions", this.config.partitions());
		Map<String, Object> bound = this.config.reference() ? bound() : Map.of();
		List<Series> series = new ArrayList<>();
		for (int partitions : this.config.partitions()) {
			Series drains = new Series(partitions, new Figures("cluster P=" + partitions + " @QueueListener C="
					+ this.config.concurrency(), "jobs/s"));
			for (int run = 0; run < this.config.runs(); run++) {
				drain(drains);
			}
			series.add(drains);
		}
		Series one = series.stream().filter((drains) -> drains.partitions == 1).findFirst().orElse(null);
		long duplicates = series.stream().mapToLong((drains) -> drains.duplicates).sum();
		long missing = series.stream().mapToLong((drains) -> drains.missing).sum();
		StringBuilder out = new StringBuilder("redis-queue cluster benchmark ").append(machine).append('\n');
		out.append(Figures.header()).append('\n');
		series.forEach((drains) -> out.append(drains.figures.row()).append('\n'));
		out.append("P = partitions of the queue; cmds/job = commands executed by all masters, inside scripts included; "
				+ "rt/job = round trips.\n");
		if (one != null) {
			out.append("median drain / median drain at P=1: ")
				.append(String.join(", ", series.stream()
					.map((drains) -> String.format("P=%d x %.2f", drains.partitions,
							drains.figures.median() / one.figures.median()))
					.toList()))
				.append('\n');
		}
		else {
			out.append("no ratio to P=1: --partitions does not list 1\n");
		}
		out.append("Redis CPU per job (INFO cpu, user + sys, medians): ")
			.append(String.join(", ", series.stream()
				.map((drains) -> String.format("P=%d busiest master %.1f us, all masters %.1f us", drains.partitions,
						median(drains.busiestMasterCpu), median(drains.allMastersCpu)))
				.toList()))
			.append('\n');
		for (Series drains : series) {
			out.append("P=").append(drains.partitions).append(" slots:");
			drains.placement.forEach((partition) -> out.append(' ').append(partition.name).append(" slot ")
				.append(partition.slot).append(" on master ").append(partition.master).append(" (port ")
				.append(partition.port).append(", ").append(partition.ready).append(" jobs enqueued)"));
			out.append("; delivered twice: ").append(drains.duplicates).append(", never delivered: ")
				.append(drains.missing).append('\n');
		}
		if (!bound.isEmpty()) {
			out.append("bound (redis-benchmark, pipelined SET, requests/s): ").append(bound).append('\n');
		}
		out.append("delivered twice: ").append(duplicates).append(", never delivered: ").append(missing).append('\n');
		System.out.println(out);
		Map<String, Object> json = new LinkedHashMap<>();
		json.put("machine", machine);
		json.put("phases", series.stream().map((drains) -> drains.figures.toMap()).toList());
		json.put("partitions", series.stream().map((drains) -> drains.toMap(one)).toList());
		json.put("bound", bound);
		json.put("deliveredTwice", duplicates);
		json.put("neverDelivered", missing);
		Files.writeString(this.config.out(),
				JsonMapper.builder().build().writerWithDefaultPrettyPrinter().writeValueAsString(json));
		System.out.println("JSON written to " + this.config.out().toAbsolutePath());
		if (duplicates != 0 || missing != 0) {
			System.exit(1);
		}
	}

	/**
	 * One drain of the jobs with the queue spread over the series' partitions: enqueued first, in
	 * chunks the template spreads over the partitions, then timed. Before the timing starts, the
	 * partitions' slots are looked up with the masters that serve them.
	 */
	private void drain(Series series) {
		flushAll();
		QueueSettings settings = QueueSettings.builder().partitions(BenchListener.QUEUE, series.partitions).build();
		QueueTemplate queues = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(), settings);
		int n = this.config.jobs();
		for (List<BenchPayload> chunk : QueueBenchmark.chunks(n, 1000)) {
			queues.enqueueAll(BenchListener.QUEUE, chunk, JobOptions.defaults());
		}
		QueueAdmin admin = new QueueAdmin(queues);
		series.placement = placement(admin.partitionCounts(BenchListener.QUEUE));
		BenchListener listener = new BenchListener();
		try (AnnotationConfigApplicationContext context = QueueBenchmark.listenerContext(queues,
				this.config.concurrency(), listener)) {
			QueueListenerContainer container = QueueBenchmark.container(context);
			CommandStats before = commandStats();
			Map<Integer, Double> redisCpuBefore = redisCpu();
			long cpu = QueueBenchmark.processCpu();
			long start = System.nanoTime();
			container.start();
			QueueBenchmark.await(() -> listener.handled() >= n
					&& admin.counts(BenchListener.QUEUE).total("completed") >= n);
			double seconds = (System.nanoTime() - start) / 1e9;
			series.figures.add(n / seconds, commandStats().since(before), n, QueueBenchmark.processCpu() - cpu);
			Map<Integer, Double> redisCpuAfter = redisCpu();
			double busiest = 0;
			double total = 0;
			for (Map.Entry<Integer, Double> master : redisCpuAfter.entrySet()) {
				double used = master.getValue() - redisCpuBefore.getOrDefault(master.getKey(), 0.0);
				busiest = Math.max(busiest, used);
				total += used;
			}
			series.busiestMasterCpu.add(busiest * 1e6 / n);
			series.allMastersCpu.add(total * 1e6 / n);
			container.stop();
		}
		series.duplicates += listener.duplicates();
		series.missing += n - listener.handled();
	}

	/** CPU seconds (user and system) each master used since it started, by port, from INFO cpu. */
	private Map<Integer, Double> redisCpu() {
		Map<Integer, Double> cpu = new LinkedHashMap<>();
		try (RedisClusterConnection connection = this.connectionFactory.getClusterConnection()) {
			for (RedisClusterNode node : connection.clusterGetNodes()) {
				if (node.isMaster()) {
					Properties info = connection.serverCommands().info(node, "cpu");
					cpu.put(node.getPort(), Double.parseDouble(info.getProperty("used_cpu_user", "0"))
							+ Double.parseDouble(info.getProperty("used_cpu_sys", "0")));
				}
			}
		}
		return cpu;
	}

	/** Where each partition lives: its slot and the master serving that slot. */
	private List<Placement> placement(List<PartitionCounts> partitions) {
		List<Placement> placement = new ArrayList<>(partitions.size());
		try (RedisClusterConnection connection = this.connectionFactory.getClusterConnection()) {
			for (PartitionCounts partition : partitions) {
				RedisClusterNode node = connection.clusterGetNodeForSlot(partition.slot());
				int port = node.getPort();
				placement.add(new Placement(partition.name(), partition.hashTag(), partition.slot(), port,
						this.cluster.masterPorts().indexOf(port) + 1, partition.counts().ready()));
			}
		}
		return placement;
	}

	private void flushAll() {
		try (RedisClusterConnection connection = this.connectionFactory.getClusterConnection()) {
			for (RedisClusterNode node : connection.clusterGetNodes()) {
				if (node.isMaster()) {
					connection.serverCommands().flushAll(node);
				}
			}
		}
	}

	/** The commands every master executed, summed, with those the client sent. */
	private CommandStats commandStats() {
		Map<String, Long> calls = new LinkedHashMap<>();
		try (RedisClusterConnection connection = this.connectionFactory.getClusterConnection()) {
			for (RedisClusterNode node : connection.clusterGetNodes()) {
				if (node.isMaster()) {
					Properties info = connection.serverCommands().info(node, "commandstats");
					CommandStats.of(info, this.sent).calls().forEach((name, count) -> calls.merge(name, count, Long::sum));
				}
			}
		}
		return new CommandStats(calls, this.sent.scripts(), this.sent.others());
	}

	/** Pipelined SET against one master, then against the cluster, with redis-benchmark. */
	private Map<String, Object> bound() {
		Map<String, Object> numbers = new LinkedHashMap<>();
		String port = String.valueOf(this.cluster.masterPorts().get(0));
		int requests = 300_000;
		try {
			// a key of the first master's slots (0 to 16384 / masters)
			String tag = java.util.stream.IntStream.range(0, 100_000)
				.mapToObj((i) -> "t" + i)
				.filter((t) -> io.lettuce.core.cluster.SlotHash.getSlot(t) < 16384 / this.config.masters())
				.findFirst()
				.orElseThrow();
			double one = rate("redis-benchmark", "-h", "127.0.0.1", "-p", port, "-n", String.valueOf(requests), "-P", "16",
					"--threads", "2", "-q", "SET", "{" + tag + "}:k", "v");
			double all = rate("redis-benchmark", "--cluster", "-h", "127.0.0.1", "-p", port, "-n",
					String.valueOf(requests), "-P", "16", "--threads", "2", "-t", "set", "-q");
			numbers.put("SET -P 16, one master", one);
			numbers.put("SET -P 16, --cluster (all masters)", all);
			numbers.put("cluster / one master", all / one);
		}
		catch (Exception ex) {
			numbers.put("unavailable", "redis-benchmark not usable here: " + ex.getMessage());
		}
		return numbers;
	}

	private static double rate(String... command) throws Exception {
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
		process.waitFor();
		Matcher matcher = RATE.matcher(output.replaceAll(".*\r", ""));
		if (process.exitValue() != 0 || !matcher.find()) {
			throw new IllegalStateException(String.join(" ", command) + ": " + output);
		}
		return Double.parseDouble(matcher.group(1));
	}

	private static double median(List<Double> values) {
		if (values.isEmpty()) {
			return 0;
		}
		List<Double> sorted = values.stream().sorted().toList();
		return sorted.get(sorted.size() / 2);
	}

	/** The drains of one partition count: their figures, checks and the partitions' placement. */
	private static final class Series {

		private final int partitions;

		private final Figures figures;

		private List<Placement> placement = List.of();

		private long duplicates;

		private long missing;

		// per drain, Redis CPU microseconds per job: of the busiest master, and of all masters
		private final List<Double> busiestMasterCpu = new ArrayList<>();

		private final List<Double> allMastersCpu = new ArrayList<>();

		Series(int partitions, Figures figures) {
			this.partitions = partitions;
			this.figures = figures;
		}

		Map<String, Object> toMap(Series one) {
			Map<String, Object> map = new LinkedHashMap<>();
			map.put("partitions", this.partitions);
			map.put("phase", this.figures.phase());
			map.put("medianToOnePartition", (one != null) ? this.figures.median() / one.figures.median() : null);
			map.put("placement", this.placement.stream().map(Placement::toMap).toList());
			map.put("busiestMasterCpuMicrosPerJob", median(this.busiestMasterCpu));
			map.put("allMastersCpuMicrosPerJob", median(this.allMastersCpu));
			map.put("deliveredTwice", this.duplicates);
			map.put("neverDelivered", this.missing);
			return map;
		}

	}

	/**
	 * Where one partition of the queue lives.
	 *
	 * @param name the partition's name
	 * @param hashTag the hash tag of its keys
	 * @param slot the slot of that hash tag
	 * @param port the port of the master serving the slot
	 * @param master that master's number, from 1 in the order the cluster was started (0 when the
	 * port is not one of the cluster's masters)
	 * @param ready the jobs ready in the partition once enqueued
	 */
	private record Placement(String name, String hashTag, int slot, int port, int master, long ready) {

		Map<String, Object> toMap() {
			Map<String, Object> map = new LinkedHashMap<>();
			map.put("name", this.name);
			map.put("hashTag", this.hashTag);
			map.put("slot", this.slot);
			map.put("masterPort", this.port);
			map.put("master", this.master);
			map.put("readyAfterEnqueue", this.ready);
			return map;
		}

	}

}
