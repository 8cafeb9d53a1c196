package io.github.redisqueue.core.script;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A script call's arguments written by {@link ScriptCallArgs} are, byte for byte, those Lettuce's
 * own {@code fcall}/{@code evalsha} write, and name the same first key for a cluster's routing.
 */
class ScriptCallArgsTests {

	@ParameterizedTest
	@ValueSource(ints = { 0, 1, 9, 10, 23, 24, 100 })
	void writesWhatLettuceWritesForAnyKeyCount(int keyCount) {
		byte[][] keys = new byte[keyCount][];
		for (int i = 0; i < keyCount; i++) {
			keys[i] = ("{rq:orders}:key-" + i).getBytes(StandardCharsets.UTF_8);
		}
		byte[][] argv = { bytes(0), bytes(1), bytes(9), bytes(10), bytes(99), bytes(100), bytes(12_345),
				"w8".getBytes(StandardCharsets.US_ASCII), "30000".getBytes(StandardCharsets.US_ASCII) };
		assertSameAsLettuce("redisqueue_0123456789abcdef_reserve", keys, argv);
	}

	@Test
	void writesWhatLettuceWritesWithNoArguments() {
		assertSameAsLettuce("e0f3c1d2a4b5968778695a4b3c2d1e0f12345678", new byte[][] { bytes(16) }, new byte[0][]);
		assertSameAsLettuce("f", new byte[0][], new byte[0][]);
	}

	@Test
	void namesTheFirstKeyForRouting() {
		byte[][] keys = { "{rq:a}:ready".getBytes(StandardCharsets.UTF_8), "{rq:a}:delayed".getBytes(StandardCharsets.UTF_8) };
		ScriptCallArgs ours = new ScriptCallArgs("f", keys, new byte[][] { bytes(3) });
		assertThat(ours.getFirstEncodedKey()).isEqualTo(lettuce("f", keys, new byte[][] { bytes(3) }).getFirstEncodedKey());
		assertThat(new ScriptCallArgs("f", new byte[0][], new byte[0][]).getFirstEncodedKey()).isNull();
	}

	@Test
	void refusesANullKeyOrArgumentBeforeTheCallIsWritten() {
		byte[][] keys = { "{rq:a}:ready".getBytes(StandardCharsets.UTF_8), null };
		assertThatIllegalArgumentException().isThrownBy(() -> new ScriptCallArgs("f", keys, new byte[0][]))
			.withMessage("Script call key 2 is null");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ScriptCallArgs("f", new byte[0][], new byte[][] { bytes(1), bytes(2), null }))
			.withMessage("Script call argument 3 is null");
	}

	@Test
	void writesANonAsciiNameAsLettuceDoes() {
		assertSameAsLettuce("fonction_\u00e9t\u00e9", new byte[][] { bytes(12) }, new byte[][] { bytes(3) });
	}

	@Test
	void encodesNumbersAsTheirDecimalText() {
		for (long value : new long[] { 0, 1, 9, 10, 11, 99, 100, 30_000, 123_456_789, 1_000_000_000_000L, Long.MAX_VALUE,
				-1, -10, Long.MIN_VALUE }) {
			assertThat(new String(ScriptArgs.encodeNumber(value), StandardCharsets.US_ASCII))
				.isEqualTo(Long.toString(value));
		}
	}

	@Test
	void writesCountsAsDecimalDigits() {
		for (long value : new long[] { 0, 7, 10, 19, 100, 12_345, 1_000_000, Long.MAX_VALUE }) {
			ByteBuf buf = Unpooled.buffer();
			ScriptCallArgs.writeDecimal(buf, value);
			assertThat(buf.toString(StandardCharsets.US_ASCII)).isEqualTo(Long.toString(value));
		}
	}

	private static void assertSameAsLettuce(String target, byte[][] keys, byte[][] argv) {
		ScriptCallArgs ours = new ScriptCallArgs(target, keys, argv);
		CommandArgs<byte[], byte[]> theirs = lettuce(target, keys, argv);
		assertThat(ours.count()).isEqualTo(theirs.count());
		assertThat(encoded(ours)).isEqualTo(encoded(theirs));
		// written again (a call redirected in a cluster is written once more): the same bytes
		assertThat(encoded(ours)).isEqualTo(encoded(theirs));
	}

	/** The arguments as Lettuce's RedisCommandBuilder builds them for FCALL and EVALSHA. */
	private static CommandArgs<byte[], byte[]> lettuce(String target, byte[][] keys, byte[][] argv) {
		return new CommandArgs<>(ByteArrayCodec.INSTANCE).add(target).add(keys.length).addKeys(keys).addValues(argv);
	}

	private static byte[] encoded(CommandArgs<byte[], byte[]> args) {
		ByteBuf buf = Unpooled.buffer();
		args.encode(buf);
		byte[] out = new byte[buf.readableBytes()];
		buf.readBytes(out);
		return out;
	}

	private static byte[] bytes(int length) {
		byte[] value = new byte[length];
		Arrays.fill(value, (byte) 'x');
		return value;
	}

}
