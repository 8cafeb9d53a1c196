package io.github.redisqueue.core;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redisqueue.core.script.ScriptLibrary;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * How {@link ScriptLibrary} splits a prelude between what runs once, when the library loads, and
 * what runs again at every call. {@code ScriptLibraryDifferentialIntegrationTests} shows that
 * the engine's library answers as its scripts do.
 */
class ScriptLibraryTests {

	private static final String MODULE = """
			-- a module's contract
			local LIMIT = 10
			local TABLE = {1, 2, 3}
			local KEY = KEYS[1]
			local DERIVED = KEY .. ':x'
			local cache = {}
			local flag = false
			local function use(v)
			  flag = true
			  cache[v] = DERIVED
			  return TABLE[v] + LIMIT
			end
			do
			  LIMIT = LIMIT
			end
			""";

	@Test
	void constantsAndFunctionsRunOnceAndTheCallsStateAtEveryCall() {
		ScriptLibrary library = ScriptLibrary.build("t", "local function now_ms() return 1 end",
				List.of(MODULE.replace("  LIMIT = LIMIT\n", "  local unused = 1\n")), Map.of("s", "return use(1)"));
		String text = library.text();
		String once = text.substring(0, text.indexOf("local function bind_0()"));
		String perCall = text.substring(text.indexOf("local function bind_0()"), text.indexOf("local function bind()"));
		assertThat(once).contains("local TABLE = {1, 2, 3}", "local function use(v)", "local LIMIT = 10")
			.contains("local KEY\n", "local DERIVED\n", "local cache\n", "local flag\n");
		assertThat(perCall).contains("KEY = KEYS[1]", "DERIVED = KEY .. ':x'", "cache = {}", "flag = false",
				"local unused = 1")
			.doesNotContain("TABLE", "LIMIT", "use(");
	}

	@Test
	void aNameAssignedAnywhereRunsAtEveryCall() {
		String text = ScriptLibrary.build("t", "", List.of(MODULE), Map.of("s", "return use(1)")).text();
		String perCall = text.substring(text.indexOf("local function bind_0()"), text.indexOf("local function bind()"));
		assertThat(perCall).contains("LIMIT = 10");
	}

	@Test
	void eachScriptIsAFunctionNamedAfterTheLibraryWhoseNameFollowsItsText() {
		Map<String, String> bodies = new LinkedHashMap<>();
		bodies.put("first", "return 1");
		bodies.put("second", "return 2");
		ScriptLibrary library = ScriptLibrary.build("t", "", List.of(MODULE), bodies);
		ScriptLibrary changed = ScriptLibrary.build("t", "", List.of(MODULE), Map.of("first", "return 3", "second", "return 2"));
		assertThat(library.name()).matches("t_[0-9a-f]{16}").isNotEqualTo(changed.name());
		assertThat(library.function("first")).isEqualTo(library.name() + "_first");
		assertThat(library.function("second")).isEqualTo(library.name() + "_second");
		assertThat(library.function("third")).isNull();
		Map<String, String> reversed = new LinkedHashMap<>();
		reversed.put("second", "return 2");
		reversed.put("first", "return 1");
		assertThat(ScriptLibrary.build("t", "", List.of(MODULE), reversed).name()).isEqualTo(library.name());
		assertThat(library.text()).startsWith("#!lua name=" + library.name() + "\n")
			.contains("register_function('" + library.name() + "_first', function(keys, args)\nKEYS, ARGV = keys, args\nbind()\nreturn 1\nend)");
	}

	@Test
	void aLocalWithoutAValueIsRefused() {
		assertThatIllegalStateException()
			.isThrownBy(() -> ScriptLibrary.build("t", "", List.of("local A\nlocal B = 1\n"), Map.of("s", "return B")))
			.withMessageContaining("local A");
	}

	@Test
	void theEnginesLibraryHoldsEveryScriptOfAQueue() {
		QueueScripts scripts = new QueueScripts();
		assertThat(scripts.function(scripts.reserve())).isEqualTo(scripts.library().function("reserve"));
		assertThat(scripts.function(scripts.enqueue())).isEqualTo(scripts.library().function("enqueue"));
		assertThat(scripts.function(scripts.heartbeat())).isNull();
		assertThat(scripts.all().stream().filter((s) -> scripts.function(s) != null)).hasSize(13);
	}

}
