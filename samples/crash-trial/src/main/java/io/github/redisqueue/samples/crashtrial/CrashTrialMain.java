package io.github.redisqueue.samples.crashtrial;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.jar.JarFile;

import io.github.redisqueue.test.crash.CrashTrial;
import io.github.redisqueue.test.crash.CrashWorkerMain;
import io.github.redisqueue.test.crash.TrialReport;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;

/**
 * The long crash trial, the version of {@code CrashTrialIntegrationTests} that runs for minutes:
 * by default 100,000 jobs over 5 minutes, 4 worker JVMs with a {@code @QueueListener}
 * (concurrency 4, prefetch 4, lease 30 s), a worker stopped every 5 s (SIGKILL, every fourth a SIGTERM) and
 * started again with the same worker id, Redis ({@code appendfsync always}) SIGKILLed twice and
 * restarted on its data, {@code SCRIPT FLUSH} every 10 s and {@code CLIENT KILL TYPE normal}
 * every 15 s. It prints a one-line summary (with the duplicates per worker kill and per Redis
 * kill), the figures behind it, and exits 0 when nothing was lost, stuck or dead and every
 * duplicate was cut short by a worker's SIGKILL (none around a Redis kill).
 *
 * <pre>
 * ./mvnw -B -q -DskipTests -pl samples/crash-trial -am clean package
 * java -jar samples/crash-trial/target/crash-trial.jar [--jobs=100000] [--workers=4] [--seconds=300]
 *     [--concurrency=4] [--prefetch=4] [--lease=30] [--stop-every=5] [--sigterm-every=4] [--redis-kills=2]
 *     [--script-flush-every=10] [--client-kill-every=15] [--max-attempts=5] [--seed=N]
 *     [--dir=path] [--redis-server=path]
 * </pre>
 *
 * Its own {@code redis-server} comes from {@code --redis-server}, else {@code PATH}, else the
 * binary shipped in {@code org.signal:embedded-redis}; it binds 127.0.0.1 on a free port.
 */
public final class CrashTrialMain {

	private static final String LAUNCHER = "org.springframework.boot.loader.launch.PropertiesLauncher";

	private CrashTrialMain() {
	}

	public static void main(String[] args) throws IOException {
		Map<String, String> options = parse(args);
		CrashTrial.Settings defaults = CrashTrial.Settings.full();
		CrashTrial.Settings settings = new CrashTrial.Settings(defaults.queue(),
				intOption(options, "jobs", defaults.jobs()), intOption(options, "workers", defaults.workers()),
				intOption(options, "concurrency", defaults.concurrency()),
				intOption(options, "prefetch", defaults.prefetch()), seconds(options, "lease", defaults.lease()),
				seconds(options, "seconds", defaults.production()), defaults.minWorkMillis(), defaults.maxWorkMillis(),
				defaults.bulkShare(), defaults.maxBulk(), intOption(options, "max-attempts", defaults.maxAttempts()),
				seconds(options, "stop-every", defaults.workerStopEvery()),
				intOption(options, "sigterm-every", defaults.sigtermEvery()),
				intOption(options, "redis-kills", defaults.redisKills()),
				seconds(options, "script-flush-every", defaults.scriptFlushEvery()),
				seconds(options, "client-kill-every", defaults.clientKillEvery()), defaults.fsync(),
				Long.parseLong(options.getOrDefault("seed", String.valueOf(defaults.seed()))));
		Path dir = options.containsKey("dir") ? Files.createDirectories(Path.of(options.get("dir")))
				: Files.createTempDirectory("crash-trial-");
		boolean clean;
		try (RedisServerProcess redis = new RedisServerProcess(redisBinary(options.get("redis-server")), "--appendonly",
				"yes", "--appendfsync", "always").start();
				CrashTrial trial = new CrashTrial(settings, redis, workerCommand(), dir, System.out::println)) {
			trial.start();
			// generous: the producer is paced to the production time, but a slow machine may lag
			trial.awaitProduction(settings.production().multipliedBy(2).plusMinutes(2));
			long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
			long lastReport = 0;
			while (!trial.drained()) {
				if (System.nanoTime() > deadline) {
					System.out.println("crash trial: the queue did not drain within 10 minutes: " + trial.progress());
					break;
				}
				if (System.nanoTime() - lastReport > TimeUnit.SECONDS.toNanos(10)) {
					System.out.println("crash trial: draining, " + trial.pending() + " jobs pending");
					lastReport = System.nanoTime();
				}
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250));
			}
			TrialReport report = trial.finish();
			System.out.println(report.details());
			System.out.println(report.summary());
			clean = report.lost() == 0 && report.stuck() == 0 && report.dead() == 0 && report.unhandled().isEmpty()
					&& report.unexplained().isEmpty() && report.aroundRedisKills() == 0;
		}
		System.out.println("journals and worker logs in " + dir);
		System.exit(clean ? 0 : 1);
	}

	/**
	 * Worker JVMs run {@link CrashWorkerMain} from this program's own class path: through Spring
	 * Boot's launcher when this runs as the repackaged jar, directly otherwise.
	 */
	private static CrashTrial.WorkerCommand workerCommand() throws IOException {
		String classpath = System.getProperty("java.class.path");
		if (!classpath.contains(File.pathSeparator) && classpath.endsWith(".jar") && isBootJar(Path.of(classpath))) {
			return (properties) -> {
				List<String> command = new ArrayList<>(CrashTrial.javaCommand());
				command.addAll(properties);
				command.add("-Dloader.main=" + CrashWorkerMain.class.getName());
				command.addAll(List.of("-cp", classpath, LAUNCHER));
				return command;
			};
		}
		return CrashTrial.classpath(classpath);
	}

	private static boolean isBootJar(Path jar) throws IOException {
		try (JarFile file = new JarFile(jar.toFile())) {
			return file.getEntry("BOOT-INF/") != null;
		}
	}

	private static Path redisBinary(String configured) {
		if (configured != null) {
			return Path.of(configured);
		}
		String path = System.getenv("PATH");
		if (path != null) {
			for (String dir : path.split(File.pathSeparator)) {
				Path candidate = Path.of(dir, "redis-server");
				if (Files.isExecutable(candidate)) {
					return candidate;
				}
			}
		}
		return TestRedis.embeddedBinary();
	}

	private static Map<String, String> parse(String[] args) {
		Map<String, String> options = new HashMap<>();
		for (String arg : args) {
			if (!arg.startsWith("--") || !arg.contains("=")) {
				throw new IllegalArgumentException("Unknown argument '" + arg + "': options look like --jobs=100000");
			}
			options.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
		}
		return options;
	}

	private static int intOption(Map<String, String> options, String name, int fallback) {
		return options.containsKey(name) ? Integer.parseInt(options.get(name)) : fallback;
	}

	private static Duration seconds(Map<String, String> options, String name, Duration fallback) {
		return options.containsKey(name) ? Duration.ofSeconds(Long.parseLong(options.get(name))) : fallback;
	}

}
