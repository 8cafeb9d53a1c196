package io.github.redisqueue.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.script.DefaultRedisScript;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The prelude's record positions are written out rather than built on every call: they must
 * name each field of its kind exactly once, at that field's place in the field list.
 */
class ScriptPreludeIntegrationTests extends AbstractRedisIntegrationTests {

	@SuppressWarnings("rawtypes")
	private static final DefaultRedisScript<List> CHECK = new DefaultRedisScript<>(QueueScripts.withPrelude("""
			local out = {}
			for h, names in pairs(FIELDS) do
			  local count = 0
			  for _ in pairs(POSITION[h]) do
			    count = count + 1
			  end
			  out[#out + 1] = h .. ' ' .. #names .. ' fields, ' .. count .. ' positions'
			  for i, name in ipairs(names) do
			    if POSITION[h][name] ~= i then
			      out[#out + 1] = h .. ' ' .. name .. ' at ' .. tostring(POSITION[h][name]) .. ', listed ' .. i
			    end
			  end
			end
			table.sort(out)
			return out
			"""), List.class);

	@Test
	void everyFieldOfARecordHasItsOwnPosition() {
		QueueKeys keys = new QueueKeys("rq", "prelude");
		List<String> keyNames = keys.scriptKeys().stream().map((key) -> new String(key, StandardCharsets.UTF_8)).toList();

		List<Object> found = List.copyOf(this.redis.execute(CHECK, keyNames, "", ""));

		assertThat(found).containsExactly(keys.key("gates") + " 17 fields, 17 positions",
				keys.key("jobs") + " 26 fields, 26 positions");
	}

	@SuppressWarnings("rawtypes")
	private static final DefaultRedisScript<List> JOB_FIELDS = new DefaultRedisScript<>(
			QueueScripts.withPrelude("return FIELDS[K_JOBS]"), List.class);

	/** docs/redis-layout.md's table of a job record's fields states them in the order of FIELDS in common-records.lua. */
	@Test
	void layoutPageListsTheFieldsOfAJobRecordInTheirOrder() throws IOException {
		QueueKeys keys = new QueueKeys("rq", "prelude");
		List<String> keyNames = keys.scriptKeys().stream().map((key) -> new String(key, StandardCharsets.UTF_8)).toList();
		List<?> code = this.redis.execute(JOB_FIELDS, keyNames, "", "");

		Path page = Path.of("..", "docs", "redis-layout.md");
		String text = Files.readString(page, StandardCharsets.UTF_8);
		String section = text.substring(text.indexOf("Fields of a job record, in their order"));
		Matcher row = Pattern.compile("(?m)^\\| (\\d+) \\| `(\\w+)` \\|").matcher(section);
		List<String> documented = new java.util.ArrayList<>();
		while (row.find()) {
			assertThat(Integer.parseInt(row.group(1))).as("position of %s", row.group(2)).isEqualTo(documented.size() + 1);
			documented.add(row.group(2));
		}

		assertThat(documented).isEqualTo(code);
	}

}
