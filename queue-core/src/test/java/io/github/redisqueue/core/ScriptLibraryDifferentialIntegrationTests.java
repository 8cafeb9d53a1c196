package io.github.redisqueue.core;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;

import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.core.script.ScriptLibrary;
import io.github.redisqueue.core.script.ScriptPrelude;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import io.lettuce.core.CopyArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Functions library answers and writes as the scripts of the same text: random sequences of
 * enqueues, reserves, starts, completions, failures, lease extensions and releases (plain, keyed, grouped, delayed, expiring, prioritized
 * and batch jobs; stale, repeated, unknown and odd pairs; lapsed leases; damaged elements, a lost
 * id counter), on two queues in turn (one of them a partition, whose job ids take another form),
 * run once as scripts in database 0 and once as the library's functions in database 1, both with
 * the same fixed clock. After every call the replies and the whole contents of the two databases
 * must be the same: a statement the library ran once where it had to run per call would carry one
 * call's state (a queue's keys, an id form, a cache) into the next and show here. On a server of
 * its own (two databases).
 */
@Tag("single-node")
class ScriptLibraryDifferentialIntegrationTests {

	private static final List<String> SCRIPTS = List.of("enqueue", "reserve", "complete", "fail", "extend", "release");

	/** Every key of the database with its type and contents, in one call. */
	private static final String STATE = """
			local out = {}
			for _, key in ipairs(KEYS) do
			  local t = redis.call('TYPE', key).ok
			  out[#out + 1] = key .. ' ' .. t
			  if t == 'hash' then
			    local h = redis.call('HGETALL', key)
			    local fields = {}
			    for i = 1, #h, 2 do fields[#fields + 1] = h[i] .. ' = ' .. h[i + 1] end
			    table.sort(fields)
			    for _, f in ipairs(fields) do out[#out + 1] = f end
			  elseif t == 'zset' then
			    local z = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
			    for i = 1, #z, 2 do out[#out + 1] = z[i] .. ' @ ' .. z[i + 1] end
			  elseif t == 'list' then
			    for _, v in ipairs(redis.call('LRANGE', key, 0, -1)) do out[#out + 1] = v end
			  elseif t == 'string' then
			    out[#out + 1] = redis.call('GET', key)
			  elseif t == 'set' then
			    local m = redis.call('SMEMBERS', key)
			    table.sort(m)
			    for _, v in ipairs(m) do out[#out + 1] = v end
			  end
			end
			return table.concat(out, '\\n')
			""";

	private String loaded;

	@Test
	void theLibrarysFunctionsAnswerAndWriteAsTheScripts() {
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			StringCodec codec = new StringCodec(StandardCharsets.ISO_8859_1);
			List<RedisClient> clients = new ArrayList<>();
			List<RedisCommands<String, String>> dbs = new ArrayList<>();
			for (int d = 0; d < 2; d++) {
				RedisClient client = RedisClient
					.create(RedisURI.builder().withHost(server.host()).withPort(server.port()).withDatabase(d).build());
				clients.add(client);
				dbs.add(client.connect(codec).sync());
			}
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.endpoint());
			try {
				run(dbs, new QueueTemplate(factory));
			}
			finally {
				factory.destroy();
				clients.forEach(RedisClient::shutdown);
			}
		}
	}

	private void run(List<RedisCommands<String, String>> dbs, QueueTemplate queues) {
		List<Queue> both = List.of(new Queue(queues.keys("diff-a"), ""), new Queue(queues.keys("diff-b"), "4:1"));
		int calls = 0;
		int handedOut = 0;
		for (int s = 0; s < 48; s++) {
			Random random = new Random(7919L * s + 1);
			dbs.get(0).flushall();
			setUp(queues, random);
			for (String key : dbs.get(0).keys("*")) {
				dbs.get(0).copy(key, key, CopyArgs.Builder.destinationDb(1));
			}
			long now = Long.parseLong(dbs.get(0).time().get(0)) * 1000 + 5;
			List<List<String[]>> refs = List.of(new ArrayList<>(), new ArrayList<>());
			for (int step = 0; step < 40; step++) {
				int q = random.nextInt(3) == 0 ? 1 : 0;
				Queue queue = both.get(q);
				int op = random.nextInt(15);
				String name;
				List<String> args = new ArrayList<>(List.of(queue.channel(), queue.idForm()));
				if (op < 3) {
					name = "enqueue";
					enqueueArgs(random, args);
				}
				else if (op < 7) {
					name = "reserve";
					int n = 1 + random.nextInt(random.nextInt(8) == 0 ? 30 : 6);
					args.addAll(List.of("" + n, random.nextBoolean() ? "1000" : "60000", "w" + random.nextInt(3), "10",
							"100", random.nextInt(4) == 0 ? "5000" : "0", random.nextInt(5) == 0 ? "2" : "0",
							"" + random.nextInt(n + 1), ""));
					pairs(random, refs.get(q), args, true);
				}
				else if (op < 10) {
					name = "complete";
					args.add(random.nextInt(4) == 0 ? "5000" : "0");
					List<String> starts = new ArrayList<>();
					pairs(random, refs.get(q), starts, false);
					args.add("" + starts.size() / 2);
					args.addAll(starts);
					pairs(random, refs.get(q), args, true);
				}
				else if (op == 10) {
					name = "fail";
					String[] ref = onePair(random, refs.get(q));
					args.addAll(List.of(ref[0], ref[1], "boom " + random.nextInt(3), random.nextInt(4) == 0 ? "dead" : "retry",
							"" + random.nextInt(2) * 1000));
				}
				else if (op == 11) {
					name = "extend";
					args.add(random.nextBoolean() ? "1000" : "60000");
					pairs(random, refs.get(q), args, false);
				}
				else if (op == 12) {
					name = "release";
					args.add(random.nextBoolean() ? "unstarted" : "started");
					pairs(random, refs.get(q), args, false);
				}
				else if (op == 13 && random.nextInt(3) == 0) {
					damage(dbs, queue.keys(), random.nextInt(3));
					continue;
				}
				else {
					now += random.nextInt(3) == 0 ? 61_000 : random.nextInt(2000);
					continue;
				}
				String script = script(name, now);
				String function = function(dbs.get(1), now).function(name);
				String[] keys = queue.keys().toArray(String[]::new);
				String[] argv = args.toArray(String[]::new);
				String asScript = reply(() -> dbs.get(0).eval(script, ScriptOutputType.MULTI, keys, argv));
				String asFunction = reply(() -> dbs.get(1).fcall(function, ScriptOutputType.MULTI, keys, argv));
				calls++;
				String where = "sequence " + s + ", step " + step + ", " + name + " on " + keys[0] + " " + args;
				assertThat(asFunction).as(where).isEqualTo(asScript);
				assertThat(state(dbs.get(1))).as(where).isEqualTo(state(dbs.get(0)));
				if (name.equals("reserve") && asScript.startsWith("[")) {
					handedOut += rememberFrom(asScript, refs.get(q));
				}
			}
		}
		assertThat(calls).isGreaterThan(1200);
		assertThat(handedOut).isGreaterThan(400);
	}

	private record Queue(List<String> keys, String channel, String idForm) {

		Queue(QueueKeys k, String idForm) {
			this(k.scriptKeys().stream().map((b) -> new String(b, StandardCharsets.ISO_8859_1)).toList(),
					new String(k.channel(), StandardCharsets.ISO_8859_1), idForm);
		}

	}

	private final Map<String, String> preludes = new java.util.HashMap<>();

	private String script(String name, long now) {
		String prelude = this.preludes.computeIfAbsent(name, (n) -> ScriptPrelude.neededBy(
				QueueScripts.COMMON.stream().map(ScriptLibraryDifferentialIntegrationTests::read).toList(), read(n)));
		return clock(now) + prelude + "\n" + read(name);
	}

	private long libraryNow = -1;

	private ScriptLibrary library;

	private ScriptLibrary function(RedisCommands<String, String> db, long now) {
		if (now != this.libraryNow) {
			List<String> modules = QueueScripts.COMMON.stream().map(ScriptLibraryDifferentialIntegrationTests::read).toList();
			Map<String, String> bodies = new LinkedHashMap<>();
			SCRIPTS.forEach((name) -> bodies.put(name, read(name)));
			ScriptLibrary library = ScriptLibrary.build("rqdiff", clock(now), modules, bodies);
			if (this.loaded != null) {
				db.dispatch(CommandType.FUNCTION, new StatusOutput<>(StringCodec.UTF8),
						new CommandArgs<>(StringCodec.UTF8).add("DELETE").add(this.loaded));
			}
			db.functionLoad(library.text());
			this.loaded = library.name();
			this.library = library;
			this.libraryNow = now;
		}
		return this.library;
	}

	private static String clock(long now) {
		return "local function now_ms() return " + now + " end\n";
	}

	private static String reply(java.util.function.Supplier<Object> call) {
		try {
			return String.valueOf(call.get());
		}
		catch (RuntimeException ex) {
			return "ERROR " + String.valueOf(ex.getMessage())
				.replaceAll("script: \\S+", "script")
				.replaceAll("@?user_(script|function):\\d+", "line");
		}
	}

	/** Remembers the id and token of each job a reserve's reply (as text) handed out. */
	private static int rememberFrom(String reply, List<String[]> refs) {
		String[] parts = reply.substring(1, reply.length() - 1).split(", ", -1);
		int handed = 0;
		for (int i = 10; i + 9 < parts.length; i += 10) {
			refs.add(new String[] { parts[i], parts[i + 5] });
			handed++;
		}
		return handed;
	}

	private static void enqueueArgs(Random random, List<String> args) {
		int n = 1 + random.nextInt(4);
		int kind = random.nextInt(6);
		args.add("" + n);
		args.add("");
		args.add((kind == 1) ? "" + random.nextInt(3) : "0");
		args.add((kind == 2) ? "" + (1 + random.nextInt(70_000)) : "0");
		args.add("0");
		args.add((kind == 3) ? "k" + random.nextInt(2) : "");
		args.add((kind == 3) ? "" + random.nextInt(2) * 30_000 : "0");
		args.add((kind == 4) ? "30000" : "0");
		args.add("" + (1 + random.nextInt(3)));
		args.add("");
		args.add("0");
		args.add((kind == 5) ? "grp" + random.nextInt(2) : "");
		args.add("" + (1 + random.nextInt(2)));
		for (int i = 0; i < n; i++) {
			args.add("payload-" + random.nextInt(1000));
		}
	}

	private static void damage(List<RedisCommands<String, String>> dbs, List<String> keys, int how) {
		for (RedisCommands<String, String> db : dbs) {
			if (how != 1) {
				db.rpush(keys.get(13), "garbage");
			}
			if (how != 0) {
				db.del(keys.get(7));
				db.hdel(keys.get(9), "~seq");
			}
		}
	}

	private static String[] onePair(Random random, List<String[]> refs) {
		List<String> pair = new ArrayList<>();
		while (pair.size() < 2) {
			pair.clear();
			pairs(random, refs, pair, false);
		}
		return new String[] { pair.get(0), pair.get(1) };
	}

	private static void pairs(Random random, List<String[]> refs, List<String> args, boolean allowOdd) {
		int count = random.nextInt(refs.isEmpty() ? 2 : 7);
		for (int i = 0; i < count; i++) {
			String id;
			String token;
			if (refs.isEmpty() || random.nextInt(12) == 0) {
				id = "" + random.nextInt(40);
				token = "" + random.nextInt(3);
			}
			else {
				String[] ref = refs.get(refs.size() - 1 - random.nextInt(Math.min(refs.size(), 12)));
				id = ref[0];
				token = switch (random.nextInt(14)) {
					case 0 -> "" + (Long.parseLong(ref[1]) + 1);
					case 1 -> "x";
					default -> ref[1];
				};
			}
			args.add(id);
			args.add(token);
			if (random.nextInt(6) == 0) {
				args.add(id);
				args.add(token);
			}
		}
		if (allowOdd && random.nextInt(15) == 0) {
			args.add(refs.isEmpty() ? "1" : refs.get(0)[0]);
		}
	}

	private static void setUp(QueueTemplate queues, Random random) {
		String queue = "diff-a";
		List<String> plain = new ArrayList<>();
		for (int i = 0; i < 3 + random.nextInt(8); i++) {
			plain.add("p" + i);
		}
		queues.enqueueAll(queue, plain, JobOptions.defaults());
		for (int i = 0; i < random.nextInt(4); i++) {
			queues.enqueue(queue, "u" + i, JobOptions.builder()
				.uniqueKey("k" + random.nextInt(2))
				.uniqueFor(Duration.ofSeconds(random.nextInt(2) * 30L))
				.build());
		}
		for (int i = 0; i < random.nextInt(3); i++) {
			queues.enqueue(queue, "g" + i, JobOptions.builder().group("grp" + random.nextInt(2)).build());
		}
		for (int i = 0; i < random.nextInt(3); i++) {
			queues.enqueue(queue, "d" + i, JobOptions.builder().delay(Duration.ofSeconds(1 + random.nextInt(70))).build());
		}
		if (random.nextBoolean()) {
			queues.batch(queue).maxConcurrency(1 + random.nextInt(2)).addAll(List.of("b1", "b2", "b3")).submit();
		}
	}

	private static String state(RedisCommands<String, String> db) {
		String[] keys = new TreeSet<>(db.keys("*")).toArray(String[]::new);
		return db.eval(STATE, ScriptOutputType.VALUE, keys);
	}

	private static String read(String name) {
		ClassPathResource resource = new ClassPathResource(QueueScripts.LOCATION + name + ".lua");
		try (InputStream in = resource.getInputStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
