package io.github.redisqueue.samples.outbox;

import java.sql.PreparedStatement;
import java.sql.Statement;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Places orders: the row and the {@link OrderPlaced} event are committed together, the event as a
 * publication in Spring Modulith's registry. No job is enqueued here: Redis is not part of the
 * transaction.
 */
@Service
public class Orders {

	private static final Logger logger = LoggerFactory.getLogger(Orders.class);

	private final JdbcTemplate jdbc;

	private final ApplicationEventPublisher events;

	Orders(JdbcTemplate jdbc, ApplicationEventPublisher events) {
		this.jdbc = jdbc;
		this.events = events;
	}

	/**
	 * Place an order.
	 * @param item what is ordered
	 * @return the order's id
	 */
	@Transactional
	public long place(String item) {
		GeneratedKeyHolder key = new GeneratedKeyHolder();
		this.jdbc.update((connection) -> {
			PreparedStatement insert = connection.prepareStatement("insert into orders (item) values (?)",
					Statement.RETURN_GENERATED_KEYS);
			insert.setString(1, item);
			return insert;
		}, key);
		long id = key.getKey().longValue();
		this.events.publishEvent(new OrderPlaced(id, item));
		logger.info("Order {} ({}) placed", id, item);
		return id;
	}

}
