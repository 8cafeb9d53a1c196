package io.github.redisqueue.core;

import java.util.List;

import io.github.redisqueue.core.script.ScriptPrelude;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a script keeps of the shared prelude: the definitions its body reaches, directly or
 * through other kept definitions, in their order, and every statement that defines nothing.
 */
class ScriptPreludeTests {

	private static final String PRELUDE = """
			-- header
			local A, B = KEYS[1], KEYS[2]
			local STEP = 1
			do
			  STEP = tonumber(ARGV[2]) or STEP
			end
			-- helper of used
			local function helper(x)
			  return x + STEP
			end
			-- mentions unused_fn in a comment only
			local function used(x)
			  -- unused_fn
			  return helper(x) .. A
			end
			local function unused_fn()
			  return B
			end
			local TABLE = {
			  used = 1
			}
			""";

	@Test
	void keepsWhatTheBodyReachesInOrder() {
		String kept = ScriptPrelude.neededBy(PRELUDE, "return used(1)");

		assertThat(kept).contains("local function used(x)", "local function helper(x)", "local A, B = KEYS[1], KEYS[2]",
				"local STEP = 1", "do\n  STEP = tonumber(ARGV[2]) or STEP\nend");
		assertThat(kept.indexOf("local function helper")).isLessThan(kept.indexOf("local function used"));
		// named in a whole-line comment only, and a table with a key of the same name as a function
		assertThat(kept).doesNotContain("local function unused_fn", "local TABLE");
	}

	@Test
	void keepsOnlyStatementsThatDefineNothingForABodyThatUsesNothing() {
		String kept = ScriptPrelude.neededBy(PRELUDE, "return 1");

		// the do block needs STEP
		assertThat(kept).contains("do\n", "local STEP = 1").doesNotContain("local A, B", "local function");
	}

	@Test
	void aNameInTheBodysCodeKeepsItsDefinitionEvenInsideAString() {
		assertThat(ScriptPrelude.neededBy(PRELUDE, "return 'unused_fn'")).contains("local function unused_fn");
	}

	@Test
	void sendsNoModulesContractAndEndsAStatementWithItsModule() {
		List<String> modules = List.of("""
				-- contract of first
				local A = 1
				-- trails A
				""", """
				-- contract of second
				local function b()
				  return A
				end
				local function c()
				end
				""");

		String kept = ScriptPrelude.neededBy(modules, "return b()");

		assertThat(kept).isEqualTo("local A = 1\n-- trails A\n\nlocal function b()\n  return A\nend\n");
	}

	@Test
	void keepsCodeBeforeAModulesFirstDefinition() {
		assertThat(ScriptPrelude.neededBy(List.of("redis.setresp(2)\nlocal A = 1\n"), "return 1"))
			.isEqualTo("redis.setresp(2)\n");
	}

}
