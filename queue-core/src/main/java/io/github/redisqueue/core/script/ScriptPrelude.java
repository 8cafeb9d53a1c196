package io.github.redisqueue.core.script;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The part of a shared prelude that one script needs. Redis runs a script's whole text on every
 * call, so each local function and table of the prelude costs its creation on every call, used or
 * not: a script keeps only the prelude's top-level definitions its body reaches, directly or
 * through other kept definitions, in their original order.
 *
 * <p>A top-level statement starts at a line beginning with {@code local} or {@code do}; it runs on
 * to the next one. A statement that defines no local (a {@code do} block) is always kept. Names
 * are found as identifiers in code lines (not in whole-line comments), so a name that only appears
 * inside a string or a trailing comment keeps its definition too: the filter may keep too much,
 * never too little.
 */
public final class ScriptPrelude {

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

	private static final Pattern LOCAL_FUNCTION = Pattern.compile("^local function ([A-Za-z_][A-Za-z0-9_]*)");

	private static final Pattern LOCALS = Pattern.compile("^local ([A-Za-z_][A-Za-z0-9_]*(?:\\s*,\\s*[A-Za-z_][A-Za-z0-9_]*)*)\\s*=");

	private ScriptPrelude() {
	}

	/**
	 * The statements of {@code prelude} that {@code body} needs.
	 * @param prelude the shared prelude
	 * @param body the script's own text
	 * @return those statements, in order, each followed by a line break
	 */
	public static String neededBy(String prelude, String body) {
		List<Statement> statements = statements(prelude);
		Set<String> needed = names(body);
		boolean[] kept = new boolean[statements.size()];
		boolean grew = true;
		while (grew) {
			grew = false;
			for (int i = 0; i < statements.size(); i++) {
				Statement statement = statements.get(i);
				if (!kept[i] && (statement.defines().isEmpty() || !Collections.disjoint(statement.defines(), needed))) {
					kept[i] = true;
					needed.addAll(names(statement.text()));
					grew = true;
				}
			}
		}
		StringBuilder out = new StringBuilder();
		for (int i = 0; i < statements.size(); i++) {
			if (kept[i]) {
				out.append(statements.get(i).text());
			}
		}
		return out.toString();
	}

	private static List<Statement> statements(String prelude) {
		List<Statement> statements = new ArrayList<>();
		StringBuilder current = new StringBuilder();
		Set<String> defines = new HashSet<>();
		for (String line : prelude.split("\n", -1)) {
			if (line.startsWith("local ") || line.equals("do") || line.startsWith("do ")) {
				if (!current.isEmpty()) {
					statements.add(new Statement(current.toString(), defines));
				}
				current = new StringBuilder();
				defines = defined(line);
			}
			current.append(line).append('\n');
		}
		if (!current.isEmpty()) {
			statements.add(new Statement(current.toString(), defines));
		}
		return statements;
	}

	private static Set<String> defined(String line) {
		Set<String> names = new HashSet<>();
		Matcher function = LOCAL_FUNCTION.matcher(line);
		if (function.find()) {
			names.add(function.group(1));
			return names;
		}
		Matcher locals = LOCALS.matcher(line);
		if (locals.find()) {
			for (String name : locals.group(1).split(",")) {
				names.add(name.trim());
			}
		}
		return names;
	}

	/** The identifiers of the code lines of {@code text}. */
	private static Set<String> names(String text) {
		Set<String> names = new HashSet<>();
		for (String line : text.split("\n")) {
			if (line.stripLeading().startsWith("--")) {
				continue;
			}
			Matcher matcher = IDENTIFIER.matcher(line);
			while (matcher.find()) {
				names.add(matcher.group());
			}
		}
		return names;
	}

	private record Statement(String text, Set<String> defines) {
	}

}
