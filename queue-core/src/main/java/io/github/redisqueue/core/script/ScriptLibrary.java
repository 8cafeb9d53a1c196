package io.github.redisqueue.core.script;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redisqueue.core.script.ScriptPrelude.Statement;

/**
 * The queue scripts as one Redis Functions library ({@code FUNCTION LOAD}, Redis 7): the shared
 * prelude is run once, when the library loads, instead of on every call as a script's text is, so
 * a call no longer pays for creating the prelude's functions (most of what a short call costs).
 *
 * <p>The library is built from the same files as the scripts. Its top level holds the prelude's
 * statements in their order: each {@code local function}, and each other statement that holds a
 * value fixed for every call (a limit, a table of constants), runs once. A statement runs again at
 * the start of every call, before the script's own text, when it holds state of one call: it
 * mentions {@code KEYS} or {@code ARGV}, or a name that such a statement defines, or it defines a
 * name that is assigned (or whose table is written) anywhere else, or it is a {@code do} block.
 * Such a statement's local is declared where the statement stood, so the functions after it see it,
 * and is assigned at each call. {@code KEYS} and {@code ARGV} are locals of the library, set to the
 * call's keys and arguments before anything else runs, and each script's own text is the body of a
 * registered function: it reads as it does in a script, and a call's replies and writes are those
 * of the script of the same text.
 *
 * <p>The library's name and its functions' names carry a hash of its text: two versions of the
 * application (a rolling upgrade) each call their own functions.
 */
public final class ScriptLibrary {

	/** Lua's limit is 60 upvalues per function; the functions that set the per-call state stay under it. */
	private static final int UPVALUES_PER_BINDER = 50;

	private static final Pattern FUNCTION_NAME = Pattern.compile("[A-Za-z0-9_]+");

	/** An assignable: a name, a field, an indexed name (not a key of a table constructor, {@code [k]}). */
	private static final String LVALUE = "[A-Za-z_][\\w.]*(?:\\[[^\\]=]*\\])?";

	/** One or more assignables then a single {@code =}. */
	private static final Pattern ASSIGNMENT = Pattern
		.compile("(?<![.\\w\\[=~<>])(" + LVALUE + "(?:\\s*,\\s*" + LVALUE + ")*)\\s*=(?!=)");

	private static final Pattern TABLE_WRITE = Pattern.compile("table\\.(?:insert|remove|sort)\\(\\s*(\\w+)");

	/** The start of a line that defines locals: {@code local a, b =}. */
	private static final Pattern LOCAL_DEFINITION = Pattern.compile("^local\\s+[\\w,\\s]+=(?!=)");

	private final String name;

	private final String text;

	private final Map<String, String> functions;

	private ScriptLibrary(String name, String text, Map<String, String> functions) {
		this.name = name;
		this.text = text;
		this.functions = functions;
	}

	/**
	 * Builds the library.
	 * @param prefix the start of the library's name and of its functions' names (letters, digits,
	 * underscores)
	 * @param head text run once before the prelude (the clock); its statements never depend on a call
	 * @param modules the prelude's modules, in order (see {@link ScriptPrelude})
	 * @param bodies each script's name (letters, digits, underscores) and its own text
	 * @return the library
	 */
	public static ScriptLibrary build(String prefix, String head, List<String> modules, Map<String, String> bodies) {
		List<Statement> statements = new ArrayList<>();
		for (String module : modules) {
			statements.addAll(ScriptPrelude.statements(module));
		}
		Set<String> declared = new HashSet<>(Set.of("KEYS", "ARGV"));
		for (Statement statement : statements) {
			declared.addAll(statement.defines());
		}
		StringBuilder everything = new StringBuilder();
		statements.forEach((statement) -> everything.append(statement.text()));
		bodies.values().forEach((body) -> everything.append(body).append('\n'));
		List<String> lines = codeLines(everything.toString());
		boolean[] perCall = perCall(statements, lines);

		StringBuilder prelude = new StringBuilder();
		List<String> binds = new ArrayList<>();
		for (int i = 0; i < statements.size(); i++) {
			Statement statement = statements.get(i);
			if (!perCall[i]) {
				prelude.append(statement.text());
			}
			else if (statement.defines().isEmpty()) {
				binds.add(statement.text());
			}
			else {
				String text = statement.text();
				String names = text.substring("local ".length(), text.indexOf('='));
				prelude.append("local ").append(names.strip()).append('\n');
				binds.add(text.substring("local ".length()));
			}
		}
		String binders = binders(binds, declared);
		StringBuilder registrations = new StringBuilder();
		Map<String, String> functions = new LinkedHashMap<>();
		// the same files give the same name in every process, whatever the order of bodies
		StringBuilder hashed = new StringBuilder(head).append('\n').append(prelude).append(binders);
		new TreeMap<>(bodies).forEach((name, body) -> hashed.append(name).append('\n').append(body).append('\n'));
		String hash = hash(hashed.toString());
		String library = prefix + "_" + hash;
		for (Map.Entry<String, String> body : bodies.entrySet()) {
			if (!FUNCTION_NAME.matcher(body.getKey()).matches()) {
				throw new IllegalArgumentException("Not a function name: " + body.getKey());
			}
			String function = library + "_" + body.getKey();
			functions.put(body.getKey(), function);
			registrations.append("register_function('")
				.append(function)
				.append("', function(keys, args)\nKEYS, ARGV = keys, args\nbind()\n")
				.append(body.getValue())
				.append("\nend)\n");
		}
		// the global 'redis' of the load, before a module may define a local of that name
		String text = "#!lua name=" + library + "\nlocal register_function = redis.register_function\nlocal KEYS, ARGV\n"
				+ head + "\n"
				+ prelude + binders + registrations;
		return new ScriptLibrary(library, text, Map.copyOf(functions));
	}

	/** The library's name ({@code FUNCTION DELETE} takes it). */
	public String name() {
		return this.name;
	}

	/** The text that {@code FUNCTION LOAD} takes. */
	public String text() {
		return this.text;
	}

	/** The name of the function registered for a script, {@code null} if the library has none. */
	public String function(String script) {
		return this.functions.get(script);
	}

	/**
	 * Which statements run at every call. A statement that defines no name ({@code do}) does; a
	 * {@code local function} never does; another does when it mentions {@code KEYS}, {@code ARGV} or
	 * a name defined by a statement that does, or when a name it defines is assigned, or its
	 * table written, on a line of its own.
	 */
	private static boolean[] perCall(List<Statement> statements, List<String> lines) {
		boolean[] perCall = new boolean[statements.size()];
		Set<String> assigned = assignedNames(lines);
		Set<String> callNames = new HashSet<>(Set.of("KEYS", "ARGV"));
		for (int i = 0; i < statements.size(); i++) {
			Statement statement = statements.get(i);
			if (statement.function()) {
				continue;
			}
			if (statement.defines().isEmpty()) {
				if (statement.text().startsWith("local ")) {
					throw new IllegalStateException("A top-level local without a value: " + firstLine(statement));
				}
				perCall[i] = true;
				continue;
			}
			if (!java.util.Collections.disjoint(statement.defines(), assigned)) {
				perCall[i] = true;
			}
		}
		boolean grew = true;
		while (grew) {
			grew = false;
			for (int i = 0; i < statements.size(); i++) {
				Statement statement = statements.get(i);
				if (statement.function() || statement.defines().isEmpty()) {
					continue;
				}
				if (!perCall[i] && !java.util.Collections.disjoint(ScriptPrelude.names(statement.text()), callNames)) {
					perCall[i] = true;
				}
				if (perCall[i] && callNames.addAll(statement.defines())) {
					grew = true;
				}
			}
		}
		return perCall;
	}

	/**
	 * The names that a code line assigns or whose table it writes ({@code name = }, {@code a, name = },
	 * {@code name[k] = }, {@code name.k = }, {@code table.insert(name...}), a local's own definition
	 * left out (a local of the same name in a function is counted: it may only make a statement run
	 * at every call that need not).
	 */
	private static Set<String> assignedNames(List<String> lines) {
		Set<String> names = new HashSet<>();
		for (String line : lines) {
			String code = LOCAL_DEFINITION.matcher(line.strip()).replaceFirst("");
			Matcher assignment = ASSIGNMENT.matcher(code);
			while (assignment.find()) {
				for (String target : assignment.group(1).split(",")) {
					names.add(target.strip().split("[.\\[]", 2)[0]);
				}
			}
			Matcher written = TABLE_WRITE.matcher(code);
			while (written.find()) {
				names.add(written.group(1));
			}
		}
		return names;
	}

	/**
	 * The statements that run at every call, in their order, as functions of at most
	 * {@link #UPVALUES_PER_BINDER} of the library's names each, and {@code bind()} that calls them.
	 */
	private static String binders(List<String> binds, Set<String> declared) {
		List<List<String>> groups = new ArrayList<>();
		List<String> current = new ArrayList<>();
		Set<String> names = new HashSet<>();
		for (String bind : binds) {
			Set<String> used = ScriptPrelude.names(bind);
			used.retainAll(declared);
			Set<String> union = new HashSet<>(names);
			union.addAll(used);
			if (!current.isEmpty() && union.size() > UPVALUES_PER_BINDER) {
				groups.add(current);
				current = new ArrayList<>();
				union = used;
			}
			current.add(bind);
			names = union;
		}
		if (!current.isEmpty()) {
			groups.add(current);
		}
		StringBuilder out = new StringBuilder();
		for (int i = 0; i < groups.size(); i++) {
			out.append("local function bind_").append(i).append("()\n");
			groups.get(i).forEach(out::append);
			out.append("end\n");
		}
		out.append("local function bind()\n");
		for (int i = 0; i < groups.size(); i++) {
			out.append("bind_").append(i).append("()\n");
		}
		out.append("end\n");
		return out.toString();
	}

	private static List<String> codeLines(String text) {
		List<String> lines = new ArrayList<>();
		for (String line : text.split("\n")) {
			if (!line.stripLeading().startsWith("--")) {
				lines.add(line.replaceAll("--.*$", ""));
			}
		}
		return lines;
	}

	private static String firstLine(Statement statement) {
		return statement.text().lines().findFirst().orElse("");
	}

	private static String hash(String text) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest, 0, 8);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
