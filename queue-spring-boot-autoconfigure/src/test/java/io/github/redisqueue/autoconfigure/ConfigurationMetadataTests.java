package io.github.redisqueue.autoconfigure;

import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The generated configuration metadata gives IDEs a description for every property and the
 * defaults users most often look for.
 */
class ConfigurationMetadataTests {

	@Test
	void everyPropertyHasADescriptionAndTheMainDefaultsAreKnown() throws Exception {
		JsonNode metadata;
		try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(in).as("generated metadata on the class path").isNotNull();
			metadata = JsonMapper.builder().build().readTree(in);
		}
		Map<String, JsonNode> properties = new HashMap<>();
		metadata.get("properties").forEach((property) -> properties.put(property.get("name").asString(), property));

		assertThat(properties).hasSizeGreaterThanOrEqualTo(21);
		properties.forEach((name, property) -> assertThat(property.has("description")).as(name).isTrue());
		assertThat(properties.get("queue.listener.lease").get("defaultValue").asString()).isEqualTo("30s");
		assertThat(properties.get("queue.listener.concurrency").get("defaultValue").asInt()).isEqualTo(1);
		assertThat(properties.get("queue.reaper.interval").get("defaultValue").asString()).isEqualTo("5s");
		assertThat(properties.get("queue.max-payload-size").get("defaultValue").asString()).isEqualTo("1MB");
	}

}
