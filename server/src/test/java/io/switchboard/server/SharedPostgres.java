package io.switchboard.server;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * One embedded PostgreSQL for the server tests that run servers on a database (started on first
 * use, stopped when the test JVM exits), instead of one started and stopped by each test class:
 * each start is an initdb and a server start, seconds on a loaded machine. A test class takes
 * databases of its own ({@link #database}), so the classes share nothing but the server process; a
 * test that stops or breaks PostgreSQL itself starts its own.
 */
final class SharedPostgres {

  private static EmbeddedPostgres postgres;

  private SharedPostgres() {}

  static synchronized EmbeddedPostgres postgres() {
    if (postgres == null) {
      try {
        postgres = EmbeddedPostgres.builder().start();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      EmbeddedPostgres started = postgres;
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      started.close();
                    } catch (IOException ignored) {
                      // the JVM is going away
                    }
                  }));
    }
    return postgres;
  }

  /**
   * A new empty database {@code name} on the shared server (dropped first if there, so a class run
   * again in the same JVM starts clean); returns its JDBC URL.
   */
  static synchronized String database(String name) throws SQLException {
    try (Connection c = postgres().getPostgresDatabase().getConnection();
        Statement s = c.createStatement()) {
      s.execute("drop database if exists " + name + " with (force)");
      s.execute("create database " + name);
    }
    return postgres().getJdbcUrl("postgres", name);
  }
}
