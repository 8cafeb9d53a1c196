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
 * <p>The prelude is a list of modules, in order. In a module, a top-level statement starts at a
 * line beginning with {@code local} or {@code do}; it runs on to the next one, or to the end of
 * its module. What a module holds before its first statement is its contract: comments, never
 * sent (a module that held code there would keep it as a statement that defines nothing). A
 * statement that defines no local (a {@code do} block) is always kept. Names
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
		return neededBy(List.of(prelude), body);
	}

	/**
	 * The statements of the {@code modules} of a prelude that {@code body} needs.
	 * @param modules the modules of the shared prelude, in order
	 * @param body the script's own text
	 * @return those statements, in order, each followed by a line break
	 */
	public static String neededBy(List<String> modules, String body) {
		List<Statement> statements = new ArrayList<>();
		for (String module : modules) {
			statements.addAll(statements(module));
		}
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

	/** The top-level statements of one module, in order, its contract left out. */
	static List<Statement> statements(String module) {
		List<Statement> statements = new ArrayList<>();
		StringBuilder current = new StringBuilder();
		Set<String> defines = new HashSet<>();
		boolean contract = true;
		for (String line : module.split("\n", -1)) {
			if (line.startsWith("local ") || line.equals("do") || line.startsWith("do ")) {
				add(statements, current, defines, contract);
				contract = false;
				current = new StringBuilder();
				defines = defined(line);
			}
			current.append(line).append('\n');
		}
		add(statements, current, defines, contract);
		return statements;
	}

	/** Adds a statement, unless it is empty or a module's contract without code. */
	private static void add(List<Statement> statements, StringBuilder text, Set<String> defines, boolean contract) {
		if (!text.isEmpty() && !(contract && names(text.toString()).isEmpty())) {
			statements.add(new Statement(text.toString(), defines));
		}
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
	static Set<String> names(String text) {
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

	/**
	 * A top-level statement of a module.
	 * @param text its lines, each followed by a line break
	 * @param defines the locals it defines (none for a {@code do} block)
	 */
	record Statement(String text, Set<String> defines) {

		/** Whether it is a {@code local function}. */
		boolean function() {
			return LOCAL_FUNCTION.matcher(this.text).find();
		}

	}

}
