/**
 * The PostgreSQL queue engine, routing journal, workspace store and routing leadership. Takes a
 * {@link javax.sql.DataSource} from the caller (the server builds a HikariCP pool); uses core's
 * public API and SPI only.
 *
 * <p>The PostgreSQL driver declares the automatic module name {@code org.postgresql.jdbc}; HikariCP
 * is the named module {@code com.zaxxer.hikari} (docs/decisions.md, 2026-11-26).
 */
@SuppressWarnings("requires-automatic")
module io.switchboard.storage.postgres {
  requires transitive io.switchboard.core;
  requires transitive java.sql;
  requires com.zaxxer.hikari;
  requires org.postgresql.jdbc;
  requires static org.jspecify;

  exports io.switchboard.storage.postgres;
}
