package io.github.redisqueue.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A check of the names a Lua text uses, for the scripts: it reads the text token by token and
 * follows Lua's scopes (a local is seen from its declaration to the end of its block; a function
 * sees the locals declared before it), and reports each name that is used where no local, no
 * parameter and no builtin of Redis's Lua defines it. Such a name is a global, which Redis's Lua
 * reads as nil: a call of a function that a module lost, misspelt or defines too late.
 *
 * <p>Fields ({@code a.b}, {@code a:b()}) and keys of table constructors ({@code {b = 1}}) are not
 * names. A local counts as declared from its {@code local} keyword on (so {@code local x = x}
 * reads the new x: the check may miss such a use, it does not report a false one), and the locals
 * of a {@code repeat} block stay declared after its {@code until}.
 */
final class LuaNames {

	/** The globals of Redis's Lua that scripts may use. */
	static final Set<String> BUILTINS = Set.of("redis", "cjson", "cmsgpack", "bit", "struct", "string", "table",
			"math", "os", "tonumber", "tostring", "type", "pairs", "ipairs", "unpack", "select", "error", "pcall",
			"xpcall", "assert", "next", "setmetatable", "getmetatable", "rawget", "rawset", "rawequal", "KEYS", "ARGV",
			"_G");

	private static final Set<String> KEYWORDS = Set.of("and", "break", "do", "else", "elseif", "end", "false", "for",
			"function", "if", "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while");

	private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

	private static final Pattern NUMBER = Pattern
		.compile("0[xX][0-9a-fA-F]+|(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?");

	private static final Pattern LONG_BRACKET = Pattern.compile("\\[(=*)\\[");

	private static final Pattern SYMBOL = Pattern.compile("\\.\\.\\.|\\.\\.|==|~=|<=|>=|[-+*/%^#<>=(){}\\[\\];:,.]");

	private LuaNames() {
	}

	/** A part of a text, for the messages: a module, a script. */
	record Unit(String name, String text) {
	}

	/**
	 * What the check found in units read one after the other, as Lua reads their concatenation.
	 * @param undefined each use of a name nothing defines: unit, line and name
	 * @param mostLocals the most locals of the main chunk in scope at once (Lua allows 200)
	 */
	record Report(List<String> undefined, int mostLocals) {
	}

	static Report check(List<Unit> units) {
		Scopes scopes = new Scopes();
		for (Unit unit : units) {
			scopes.walk(unit, tokens(unit.text()));
		}
		return new Report(scopes.undefined, scopes.mostLocals);
	}

	static Report check(String name, String text) {
		return check(List.of(new Unit(name, text)));
	}

	/** A name ({@code identifier}), or a keyword or symbol. */
	private record Token(String text, boolean identifier, int line) {

		boolean is(String keywordOrSymbol) {
			return !this.identifier && this.text.equals(keywordOrSymbol);
		}

	}

	/** The names, keywords and symbols of a text, without its comments, strings and numbers. */
	private static List<Token> tokens(String text) {
		List<Token> tokens = new ArrayList<>();
		int line = 1;
		int i = 0;
		while (i < text.length()) {
			char c = text.charAt(i);
			int end;
			if (c == '\n') {
				line++;
				i++;
				continue;
			}
			if (Character.isWhitespace(c)) {
				i++;
				continue;
			}
			if (text.startsWith("--", i)) {
				Matcher longComment = LONG_BRACKET.matcher(text).region(i + 2, text.length());
				if (longComment.lookingAt()) {
					end = longEnd(text, longComment);
				}
				else {
					int newline = text.indexOf('\n', i);
					end = (newline < 0) ? text.length() : newline;
				}
			}
			else if (c == '\'' || c == '"') {
				end = i + 1;
				while (end < text.length() && text.charAt(end) != c) {
					end += (text.charAt(end) == '\\') ? 2 : 1;
				}
				end++;
			}
			else if (c == '[' && LONG_BRACKET.matcher(text).region(i, text.length()).lookingAt()) {
				Matcher longString = LONG_BRACKET.matcher(text).region(i, text.length());
				longString.lookingAt();
				end = longEnd(text, longString);
			}
			else {
				Matcher name = NAME.matcher(text).region(i, text.length());
				Matcher number = NUMBER.matcher(text).region(i, text.length());
				Matcher symbol = SYMBOL.matcher(text).region(i, text.length());
				if (name.lookingAt()) {
					tokens.add(new Token(name.group(), !KEYWORDS.contains(name.group()), line));
					end = name.end();
				}
				else if (number.lookingAt() && number.end() > i && !(c == '.' && number.group().equals("."))) {
					end = number.end();
				}
				else if (symbol.lookingAt()) {
					tokens.add(new Token(symbol.group(), false, line));
					end = symbol.end();
				}
				else {
					throw new IllegalArgumentException("cannot read Lua at line " + line + ": " + c);
				}
			}
			for (int k = i; k < Math.min(end, text.length()); k++) {
				if (text.charAt(k) == '\n') {
					line++;
				}
			}
			i = end;
		}
		return tokens;
	}

	private static int longEnd(String text, Matcher open) {
		String close = "]" + open.group(1) + "]";
		int at = text.indexOf(close, open.end());
		return (at < 0) ? text.length() : at + close.length();
	}

	private static final class Frame {

		final char kind;

		final boolean function;

		final Set<String> names = new HashSet<>();

		Frame(char kind, boolean function) {
			this.kind = kind;
			this.function = function;
		}

	}

	private static final class Scopes {

		final Set<String> top = new HashSet<>();

		int topCount;

		final Deque<Frame> frames = new ArrayDeque<>();

		final List<String> undefined = new ArrayList<>();

		int mostLocals;

		List<String> pendingLoopNames = new ArrayList<>();

		void walk(Unit unit, List<Token> tokens) {
			for (int i = 0; i < tokens.size(); i++) {
				Token t = tokens.get(i);
				Token before = (i > 0) ? tokens.get(i - 1) : null;
				Token after = (i + 1 < tokens.size()) ? tokens.get(i + 1) : null;
				if (t.is("local") && after != null && after.is("function")) {
					declare(tokens.get(i + 2).text());
					i = function(unit, tokens, i + 1, true);
				}
				else if (t.is("local")) {
					int j = i + 1;
					while (j < tokens.size() && tokens.get(j).identifier()) {
						declare(tokens.get(j).text());
						j += (j + 1 < tokens.size() && tokens.get(j + 1).is(",")) ? 2 : 1;
					}
					i = j - 1;
				}
				else if (t.is("function")) {
					i = function(unit, tokens, i, false);
				}
				else if (t.is("for")) {
					int j = i + 1;
					while (tokens.get(j).identifier() || tokens.get(j).is(",")) {
						if (tokens.get(j).identifier()) {
							this.pendingLoopNames.add(tokens.get(j).text());
						}
						j++;
					}
					i = j - 1;
				}
				else if (t.is("do")) {
					Frame frame = new Frame('B', false);
					frame.names.addAll(this.pendingLoopNames);
					this.pendingLoopNames = new ArrayList<>();
					push(frame);
					countLocals();
				}
				else if (t.is("if") || t.is("repeat")) {
					push(new Frame('B', false));
				}
				else if (t.is("end")) {
					pop('B', unit, t);
				}
				else if (t.is("until")) {
					Frame body = pop('B', unit, t);
					if (!this.frames.isEmpty()) {
						this.frames.peek().names.addAll(body.names);
					}
					else {
						this.top.addAll(body.names);
					}
				}
				else if (t.is("{") || t.is("(") || t.is("[")) {
					push(new Frame(t.text().charAt(0), false));
				}
				else if (t.is("}") || t.is(")") || t.is("]")) {
					pop(t.is("}") ? '{' : t.is(")") ? '(' : '[', unit, t);
				}
				else if (t.identifier()) {
					boolean field = before != null && (before.is(".") || before.is(":"));
					boolean key = !this.frames.isEmpty() && this.frames.peek().kind == '{' && after != null
							&& after.is("=") && before != null && (before.is("{") || before.is(",") || before.is(";"));
					if (!field && !key) {
						use(unit, t);
					}
				}
			}
		}

		/** Reads a function from its keyword at i: its name, its parameters; returns the index of ')'. */
		private int function(Unit unit, List<Token> tokens, int i, boolean local) {
			int j = i + 1;
			if (tokens.get(j).identifier()) {
				if (!local) {
					use(unit, tokens.get(j));
				}
				j++;
				while (tokens.get(j).is(".") || tokens.get(j).is(":")) {
					j += 2;
				}
			}
			if (!tokens.get(j).is("(")) {
				throw new IllegalArgumentException(unit.name() + ":" + tokens.get(j).line() + ": no parameters");
			}
			Frame frame = new Frame('B', true);
			j++;
			while (!tokens.get(j).is(")")) {
				if (tokens.get(j).identifier()) {
					frame.names.add(tokens.get(j).text());
				}
				j++;
			}
			push(frame);
			return j;
		}

		private void declare(String name) {
			for (Frame frame : this.frames) {
				if (frame.kind == 'B') {
					frame.names.add(name);
					countLocals();
					return;
				}
			}
			this.top.add(name);
			this.topCount++;
			countLocals();
		}

		private void use(Unit unit, Token t) {
			for (Frame frame : this.frames) {
				if (frame.names.contains(t.text())) {
					return;
				}
			}
			if (!this.top.contains(t.text()) && !BUILTINS.contains(t.text())) {
				this.undefined.add(unit.name() + ":" + t.line() + ": " + t.text());
			}
		}

		private void push(Frame frame) {
			this.frames.push(frame);
		}

		private Frame pop(char kind, Unit unit, Token t) {
			if (this.frames.isEmpty() || this.frames.peek().kind != kind) {
				throw new IllegalArgumentException(unit.name() + ":" + t.line() + ": unbalanced '" + t.text() + "'");
			}
			return this.frames.pop();
		}

		/** The locals of the main chunk in scope: its top level and its blocks outside any function. */
		private void countLocals() {
			int count = this.topCount;
			for (java.util.Iterator<Frame> outward = this.frames.descendingIterator(); outward.hasNext();) {
				Frame frame = outward.next();
				if (frame.function) {
					break;
				}
				if (frame.kind == 'B') {
					count += frame.names.size();
				}
			}
			this.mostLocals = Math.max(this.mostLocals, count);
		}

	}

}
