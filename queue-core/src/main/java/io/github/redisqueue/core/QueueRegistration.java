package io.github.redisqueue.core;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redisqueue.QueueException;

import static io.github.redisqueue.core.ScriptReplies.encodeAscii;
import static io.github.redisqueue.core.ScriptReplies.encodeUtf8;

/**
 * The registry of queue names under a key prefix, and the check of the layout version the data
 * under that prefix was written with; each done once per queue and per template.
 */
final class QueueRegistration {

	private final QueueScriptExecutor executor;

	private final String prefix;

	private final Set<String> registered = ConcurrentHashMap.newKeySet();

	private volatile boolean layoutChecked;

	QueueRegistration(QueueScriptExecutor executor, String prefix) {
		this.executor = executor;
		this.prefix = prefix;
	}

	void register(QueueKeys k) {
		if (this.registered.contains(k.queue())) {
			return;
		}
		checkLayout();
		this.executor.redis()
			.opsForSet()
			.add(encodeUtf8(QueueKeys.registryKey(this.prefix)), encodeUtf8(k.queue()));
		this.registered.add(k.queue());
	}

	private void checkLayout() {
		if (this.layoutChecked) {
			return;
		}
		byte[] key = encodeUtf8(QueueKeys.layoutKey(this.prefix));
		Boolean created = this.executor.redis().opsForValue().setIfAbsent(key, encodeAscii(QueueKeys.LAYOUT_VERSION));
		if (!Boolean.TRUE.equals(created)) {
			byte[] found = this.executor.redis().opsForValue().get(key);
			String version = (found != null) ? new String(found, StandardCharsets.UTF_8) : QueueKeys.LAYOUT_VERSION;
			if (!QueueKeys.LAYOUT_VERSION.equals(version)) {
				throw new QueueException("Redis holds queue layout version " + version + " under key prefix '"
						+ this.prefix + "', but this library writes version " + QueueKeys.LAYOUT_VERSION
						+ "; migrate the data or use another key prefix");
			}
		}
		this.layoutChecked = true;
	}

}
