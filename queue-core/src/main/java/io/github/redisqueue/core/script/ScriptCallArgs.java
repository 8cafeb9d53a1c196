package io.github.redisqueue.core.script;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import org.jspecify.annotations.Nullable;

/**
 * The arguments of one script call ({@code FCALL} or {@code EVALSHA}: the function or SHA, the
 * key count, the keys, the arguments) written straight from the caller's arrays. Lettuce's own
 * arguments wrap each key and value in an object of its own, grow a list for them and render each
 * length of ten or more as a {@link String}: for a queue script's 23 keys and a score of
 * arguments, some 2 KB of garbage a call, on every enqueue and every reserve. The bytes on the
 * wire are the same.
 */
final class ScriptCallArgs extends CommandArgs<byte[], byte[]> {

	private static final byte[] CRLF = { '\r', '\n' };

	private final byte[] target;

	private final byte[][] keys;

	private final byte[][] argv;

	/**
	 * @param target the function's name or the script's SHA
	 * @param keys the call's keys (not copied: left unchanged until the call is written), none null
	 * @param argv the call's arguments (not copied either), none null
	 */
	ScriptCallArgs(String target, byte[][] keys, byte[][] argv) {
		super(ByteArrayCodec.INSTANCE);
		// refused here, on the caller's thread: a null met while Netty writes the call would close
		// the connection under every other call in flight on it
		requireElements(keys, "key");
		requireElements(argv, "argument");
		this.target = target.getBytes(StandardCharsets.UTF_8);
		this.keys = keys;
		this.argv = argv;
	}

	private static void requireElements(byte[][] values, String what) {
		for (int i = 0; i < values.length; i++) {
			if (values[i] == null) {
				throw new IllegalArgumentException("Script call " + what + " " + (i + 1) + " is null");
			}
		}
	}

	@Override
	public int count() {
		return 2 + this.keys.length + this.argv.length;
	}

	@Override
	public void encode(ByteBuf buf) {
		bulk(buf, this.target);
		buf.writeByte('$');
		writeDecimal(buf, ScriptArgs.decimalDigits(this.keys.length));
		buf.writeBytes(CRLF);
		writeDecimal(buf, this.keys.length);
		buf.writeBytes(CRLF);
		for (byte[] key : this.keys) {
			bulk(buf, key);
		}
		for (byte[] value : this.argv) {
			bulk(buf, value);
		}
	}

	/** The first key, by which a cluster connection picks the node of the call. */
	@Override
	public @Nullable ByteBuffer getFirstEncodedKey() {
		return (this.keys.length > 0) ? ByteBuffer.wrap(this.keys[0]) : null;
	}

	@Override
	public @Nullable Long getFirstInteger() {
		return (long) this.keys.length;
	}

	@Override
	public String getFirstString() {
		return new String(this.target, StandardCharsets.UTF_8);
	}

	@Override
	public String toCommandString() {
		StringBuilder text = new StringBuilder(getFirstString()).append(' ').append(this.keys.length);
		for (byte[] key : this.keys) {
			text.append(" key<").append(new String(key, StandardCharsets.UTF_8)).append('>');
		}
		for (byte[] value : this.argv) {
			text.append(" value<").append(value.length).append(" bytes>");
		}
		return text.toString();
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + " [" + toCommandString() + "]";
	}

	private static void bulk(ByteBuf buf, byte[] value) {
		buf.writeByte('$');
		writeDecimal(buf, value.length);
		buf.writeBytes(CRLF);
		buf.writeBytes(value);
		buf.writeBytes(CRLF);
	}

	/** Writes a count (0 or more) as decimal ASCII digits, without a string in between. */
	static void writeDecimal(ByteBuf buf, long value) {
		long scale = 1;
		while (scale <= value / 10) {
			scale *= 10;
		}
		for (; scale > 0; scale /= 10) {
			buf.writeByte((int) ('0' + (value / scale) % 10));
		}
	}

}
