package io.github.redisqueue.test.crash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The record a crash-trial worker keeps of its handler runs, outside the queue's Redis: one file
 * per worker process, one line per event, each line handed to the kernel by one {@code write}
 * call before the handler goes on, so a line written survives a SIGKILL of the process (and,
 * with {@code fsync}, of the machine).
 *
 * <p>Lines: {@code S <epoch ms> <job id> <key> <attempt>} before the handler body,
 * {@code D <epoch ms> <job id> <key> <attempt>} after it.
 */
final class Journal implements AutoCloseable {

	static final String STARTED = "S";

	static final String DONE = "D";

	private final FileChannel channel;

	private final boolean fsync;

	Journal(Path file, boolean fsync) {
		try {
			this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
					StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot open the journal " + file, ex);
		}
		this.fsync = fsync;
	}

	void started(String id, String key, int attempt) {
		write(STARTED, id, key, attempt);
	}

	void done(String id, String key, int attempt) {
		write(DONE, id, key, attempt);
	}

	private synchronized void write(String event, String id, String key, int attempt) {
		String line = event + " " + System.currentTimeMillis() + " " + id + " " + key + " " + attempt + "\n";
		ByteBuffer buffer = ByteBuffer.wrap(line.getBytes(StandardCharsets.US_ASCII));
		try {
			while (buffer.hasRemaining()) {
				this.channel.write(buffer);
			}
			if (this.fsync) {
				this.channel.force(false);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot write the journal", ex);
		}
	}

	@Override
	public void close() throws IOException {
		this.channel.close();
	}

}
