package io.github.redisqueue.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every name the scripts use is defined where Lua looks for it (see {@link LuaNames}): by the
 * module itself above the use or by a module before it in {@link QueueScripts#COMMON}, by the
 * script's own file, by the part of the prelude the script is sent, or by Redis's Lua. A name
 * defined nowhere would read as nil when the call reaches it.
 */
class ScriptNamesTests {

	private static final Path SCRIPTS = Path.of("src", "main", "resources", "io", "github", "redisqueue", "scripts");

	/** The files that are parts of scripts rather than scripts. */
	private static final Set<String> PRELUDES = Set.of("clock", "keycheck", "registry");

	@Test
	void eachModuleUsesOnlyWhatItOrAModuleBeforeItDefines() throws IOException {
		List<LuaNames.Unit> units = new ArrayList<>();
		units.add(new LuaNames.Unit("clock.lua", read("clock")));
		for (String module : QueueScripts.COMMON) {
			units.add(new LuaNames.Unit(module + ".lua", read(module)));
		}

		LuaNames.Report report = LuaNames.check(units);

		assertThat(report.undefined()).isEmpty();
		assertThat(report.mostLocals()).isGreaterThan(100).isLessThan(200);
	}

	@Test
	void eachScriptAsSentUsesOnlyDefinedNames() throws IOException {
		QueueScripts scripts = new QueueScripts();
		List<RedisScript<?>> sent = new ArrayList<>(scripts.all());
		sent.add(scripts.migrate());
		Set<String> files = new TreeSet<>();
		try (Stream<Path> list = Files.list(SCRIPTS)) {
			list.map((file) -> file.getFileName().toString().replace(".lua", ""))
				.filter((name) -> !PRELUDES.contains(name) && !QueueScripts.COMMON.contains(name))
				.forEach(files::add);
		}
		Set<String> checked = new TreeSet<>();
		List<String> undefined = new ArrayList<>();
		for (String file : files) {
			String body = read(file);
			for (RedisScript<?> script : sent) {
				String text = script.getScriptAsString();
				if (text.endsWith("\n" + body)) {
					LuaNames.Report report = LuaNames.check(file + ".lua as sent", text);
					undefined.addAll(report.undefined());
					assertThat(report.mostLocals()).as(file).isLessThan(200);
					checked.add(file);
				}
			}
		}

		assertThat(undefined).isEmpty();
		assertThat(checked).as("every script file is sent and checked").isEqualTo(files).hasSizeGreaterThan(10);
	}

	@Test
	void reportsANameDefinedNowhereOrOnlyAfterTheFunctionThatUsesIt() {
		LuaNames.Report report = LuaNames.check(List.of(new LuaNames.Unit("first", """
				local function early()
				  return late()
				end
				"""), new LuaNames.Unit("second", """
				local function late()
				  return 1
				end
				local t = {late = 1, [early] = 2}
				return jgett(t.early, string.len('x'))
				""")));

		assertThat(report.undefined()).containsExactly("first:2: late", "second:5: jgett");
	}

	@Test
	void readsParametersLoopsBlocksFieldsKeysStringsAndCommentsAsLuaDoes() {
		LuaNames.Report report = LuaNames.check("script", """
				-- a comment names missing_one
				--[[ and a long one
				missing_two ]]
				local a, b = KEYS[1], 'missing_three'
				local function f(x, ...)
				  local t = {x = x, y = [[missing_four]], z = function(w) return w end}
				  for i, v in ipairs(t) do
				    a = a .. i .. v .. t.missing_five .. t:missing_six()
				  end
				  for n = 1, 3 do
				    b = b + n
				  end
				  repeat
				    local r = 1
				  until r > 0
				  return select('#', ...) + 0x1F + 1.5e3
				end
				do
				  local inner = f(1)
				end
				return inner
				""");

		assertThat(report.undefined()).containsExactly("script:21: inner");
		assertThat(report.mostLocals()).isEqualTo(4);
	}

	private static String read(String name) throws IOException {
		return Files.readString(SCRIPTS.resolve(name + ".lua"), StandardCharsets.UTF_8);
	}

}
