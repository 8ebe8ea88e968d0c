/**
 * The PostgreSQL queue engine ({@link io.switchboard.storage.postgres.PostgresQueueEngine}), the
 * routing journal, the workspace store and the routing leadership, over a caller's {@link
 * javax.sql.DataSource}.
 */
@NullMarked
package io.switchboard.storage.postgres;

import org.jspecify.annotations.NullMarked;
