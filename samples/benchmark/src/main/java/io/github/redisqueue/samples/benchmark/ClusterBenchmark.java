package io.github.redisqueue.samples.benchmark;

import java.nio.file.Files;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.listener.QueueListenerContainer;
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
 * commands per job summed over the masters. Before the drains, {@code redis-benchmark} measures
 * what the machine allows: pipelined SET against one master alone, and against the whole cluster
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
		machine.put("jobs", this.config.jobs());
		machine.put("concurrency", this.config.concurrency());
		machine.put("runs", this.config.runs());
		Map<String, Object> bound = this.config.reference() ? bound() : Map.of();
		long duplicates = 0;
		long missing = 0;
		Figures drain = new Figures("cluster drain @QueueListener C=" + this.config.concurrency(), "jobs/s");
		for (int run = 0; run < this.config.runs(); run++) {
			long[] outcome = drain(drain);
			duplicates += outcome[0];
			missing += outcome[1];
		}
		List<Figures> figures = List.of(drain);
		StringBuilder out = new StringBuilder("redis-queue cluster benchmark ").append(machine).append('\n');
		out.append(Figures.header()).append('\n');
		figures.forEach((figure) -> out.append(figure.row()).append('\n'));
		out.append("cmds/job = commands executed by all masters, inside scripts included; rt/job = round trips.\n");
		if (!bound.isEmpty()) {
			out.append("bound (redis-benchmark, pipelined SET, requests/s): ").append(bound).append('\n');
		}
		out.append("delivered twice: ").append(duplicates).append(", never delivered: ").append(missing).append('\n');
		System.out.println(out);
		Map<String, Object> json = new LinkedHashMap<>();
		json.put("machine", machine);
		json.put("phases", figures.stream().map(Figures::toMap).toList());
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

	/** One drain of the jobs: enqueued first, then timed. */
	private long[] drain(Figures figures) {
		flushAll();
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		int n = this.config.jobs();
		for (List<BenchPayload> chunk : QueueBenchmark.chunks(n, 1000)) {
			queues.enqueueAll(BenchListener.QUEUE, chunk, JobOptions.defaults());
		}
		QueueAdmin admin = new QueueAdmin(queues);
		BenchListener listener = new BenchListener();
		try (AnnotationConfigApplicationContext context = QueueBenchmark.listenerContext(queues,
				this.config.concurrency(), listener)) {
			QueueListenerContainer container = QueueBenchmark.container(context);
			CommandStats before = commandStats();
			long cpu = QueueBenchmark.processCpu();
			long start = System.nanoTime();
			container.start();
			QueueBenchmark.await(() -> listener.handled() >= n
					&& admin.counts(BenchListener.QUEUE).total("completed") >= n);
			double seconds = (System.nanoTime() - start) / 1e9;
			figures.add(n / seconds, commandStats().since(before), n, QueueBenchmark.processCpu() - cpu);
			container.stop();
		}
		return new long[] { listener.duplicates(), n - listener.handled() };
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

}
