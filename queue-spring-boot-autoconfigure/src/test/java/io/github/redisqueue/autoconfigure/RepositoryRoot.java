package io.github.redisqueue.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;

/** The repository's root, for tests that read its documentation: found from the working directory up. */
final class RepositoryRoot {

	private RepositoryRoot() {
	}

	/** The first directory, from the working directory up, holding .ci/test-all or mvnw. */
	static Path find() {
		Path start = Path.of("").toAbsolutePath();
		for (Path dir = start; dir != null; dir = dir.getParent()) {
			if (Files.isRegularFile(dir.resolve(".ci/test-all")) || Files.isRegularFile(dir.resolve("mvnw"))) {
				return dir;
			}
		}
		throw new IllegalStateException("no directory from " + start + " up holds .ci/test-all or mvnw");
	}

}
