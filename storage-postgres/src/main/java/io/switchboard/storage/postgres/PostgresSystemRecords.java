package io.switchboard.storage.postgres;

import io.switchboard.queue.spi.SystemRecords;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * {@link SystemRecords} in the table {@code sb_system} (schema version 5): one row per record, each
 * call one autocommit statement (or two, for {@link #putIfAbsent}), so a record written through one
 * server is read by every other at once and is durable when the call returns (the database's
 * commit).
 */
final class PostgresSystemRecords implements SystemRecords {

  private final PostgresQueueEngine engine;

  PostgresSystemRecords(PostgresQueueEngine engine) {
    this.engine = engine;
  }

  @Override
  public Optional<byte[]> get(String key) {
    SystemRecords.checkKey(key);
    engine.open();
    return Optional.ofNullable(
        engine.sql().statementOrNull("reading system record", key, c -> read(c, key)));
  }

  @Override
  public void put(String key, byte[] value) {
    SystemRecords.checkKey(key);
    SystemRecords.checkValue(value);
    engine.open();
    engine
        .sql()
        .statement(
            "writing system record",
            key,
            c ->
                Sql.update(
                    c,
                    "insert into sb_system (key, value) values (?, ?)"
                        + " on conflict (key) do update set value = excluded.value",
                    key,
                    value));
  }

  /**
   * Insert-if-absent, then read in a statement of its own: a read in the insert's statement would
   * miss a row that a racing server committed after the statement began (its snapshot).
   */
  @Override
  public byte[] putIfAbsent(String key, byte[] value) {
    SystemRecords.checkKey(key);
    SystemRecords.checkValue(value);
    engine.open();
    return engine
        .sql()
        .statement(
            "writing system record",
            key,
            c -> {
              while (true) {
                if (Sql.update(
                        c,
                        "insert into sb_system (key, value) values (?, ?)"
                            + " on conflict (key) do nothing",
                        key,
                        value)
                    == 1) {
                  return value.clone();
                }
                byte[] there = read(c, key);
                if (there != null) {
                  return there;
                }
                // deleted between the two statements: try again
              }
            });
  }

  @Override
  public boolean delete(String key) {
    SystemRecords.checkKey(key);
    engine.open();
    return engine
            .sql()
            .statement(
                "deleting system record",
                key,
                c -> Sql.update(c, "delete from sb_system where key = ?", key))
        > 0;
  }

  @Override
  public SortedMap<String, byte[]> list(String prefix) {
    SystemRecords.checkPrefix(prefix);
    engine.open();
    return engine
        .sql()
        .statement(
            "listing system records",
            prefix,
            c -> {
              SortedMap<String, byte[]> out = new TreeMap<>();
              try (PreparedStatement ps =
                      Sql.prepare(
                          c,
                          "select key, value from sb_system where left(key, ?) = ?",
                          prefix.length(),
                          prefix);
                  ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                  out.put(rs.getString(1), rs.getBytes(2));
                }
              }
              return out;
            });
  }

  private static byte @Nullable [] read(java.sql.Connection c, String key)
      throws java.sql.SQLException {
    try (PreparedStatement ps = Sql.prepare(c, "select value from sb_system where key = ?", key);
        ResultSet rs = ps.executeQuery()) {
      return rs.next() ? rs.getBytes(1) : null;
    }
  }
}
