package io.github.redisqueue.testing.redis;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A minimal RESP client for the test support's own checks (PING, INFO, SHUTDOWN, FLUSHALL), so
 * that starting and probing a server does not depend on the client under test.
 */
public final class RespClient {

	private RespClient() {
	}

	/**
	 * Send one command and read the reply as text (errors raise an {@link IOException}).
	 * @param host the host
	 * @param port the port
	 * @param args the command and its arguments
	 * @return the reply: simple string, bulk string or integer as text
	 */
	public static String call(String host, int port, String... args) throws IOException {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 1000);
			socket.setSoTimeout(5000);
			OutputStream out = socket.getOutputStream();
			StringBuilder command = new StringBuilder("*").append(args.length).append("\r\n");
			for (String arg : args) {
				byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
				command.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
			}
			out.write(command.toString().getBytes(StandardCharsets.UTF_8));
			out.flush();
			return readReply(socket.getInputStream());
		}
	}

	private static String readReply(InputStream in) throws IOException {
		String line = readLine(in);
		if (line.isEmpty()) {
			throw new IOException("Empty reply");
		}
		char type = line.charAt(0);
		String rest = line.substring(1);
		switch (type) {
			case '+', ':' -> {
				return rest;
			}
			case '-' -> throw new IOException("Redis error: " + rest);
			case '$' -> {
				int length = Integer.parseInt(rest);
				if (length < 0) {
					return "";
				}
				byte[] data = in.readNBytes(length + 2);
				return new String(data, 0, length, StandardCharsets.UTF_8);
			}
			default -> throw new IOException("Unexpected reply: " + line);
		}
	}

	private static String readLine(InputStream in) throws IOException {
		ByteArrayOutputStream buffer = new ByteArrayOutputStream();
		int b;
		while ((b = in.read()) != -1) {
			if (b == '\r') {
				in.read();
				break;
			}
			buffer.write(b);
		}
		return buffer.toString(StandardCharsets.UTF_8);
	}

}
