package io.switchboard.storage.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * One embedded PostgreSQL for the whole test run (started on first use, stopped when the JVM
 * exits), with one pool that the contract tests share. {@link #fresh()} empties the engine's tables
 * instead of making a new database, which keeps each test to a few milliseconds.
 */
final class TestDatabase {

  private static EmbeddedPostgres postgres;
  private static HikariDataSource pool;

  private TestDatabase() {}

  static synchronized EmbeddedPostgres postgres() {
    if (postgres == null) {
      try {
        postgres = EmbeddedPostgres.builder().start();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      if (pool != null) {
                        pool.close();
                      }
                      postgres.close();
                    } catch (IOException ignored) {
                      // the JVM is going away
                    }
                  }));
    }
    return postgres;
  }

  static String url() {
    return postgres().getJdbcUrl("postgres", "postgres");
  }

  static synchronized HikariDataSource pool() {
    if (pool == null) {
      HikariConfig c = new HikariConfig();
      c.setJdbcUrl(url());
      c.setUsername("postgres");
      c.setPassword("postgres");
      c.setMaximumPoolSize(12);
      c.setConnectionTimeout(3000);
      pool = new HikariDataSource(c);
    }
    return pool;
  }

  /** Empties every engine table (the schema stays), so the next engine starts from nothing. */
  static synchronized HikariDataSource fresh() {
    HikariDataSource ds = pool();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "do $$ begin if to_regclass('sb_queue') is not null then truncate sb_message, sb_lease, sb_queue,"
              + " sb_counter, sb_dedup, sb_history, sb_redrive restart identity; end if;"
              + " if to_regclass('sb_queue_count') is not null then update sb_queue_count set n = 0;"
              + " end if;"
              + " if to_regclass('sb_system') is not null then truncate sb_system; end if; end $$");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return ds;
  }

  /** A new empty database on the shared server (dropped first if there); returns its JDBC URL. */
  static String freshDatabase(String name) throws SQLException {
    try (Connection c = pool().getConnection();
        Statement s = c.createStatement()) {
      s.execute("drop database if exists " + name);
      s.execute("create database " + name);
    }
    return url().replaceAll("/postgres\\?.*", "/" + name);
  }
}
