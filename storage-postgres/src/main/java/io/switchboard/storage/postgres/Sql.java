package io.switchboard.storage.postgres;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/** Short transactions on the pool, and database errors turned into the engine's errors. */
final class Sql {

  /**
   * Work inside one transaction whose answer may be null, meaning "none" (a row not found): run by
   * {@link #txOrNull} and {@link #statementOrNull}.
   */
  @FunctionalInterface
  interface Query<T> {
    @Nullable T run(Connection c) throws SQLException;
  }

  /** Work inside one transaction; its answer is never null. */
  @FunctionalInterface
  interface Work<T> extends Query<T> {
    @Override
    T run(Connection c) throws SQLException;
  }

  /**
   * Work inside one transaction that answers nothing ({@link #act}): a {@link Work} never returns
   * null (docs/decisions.md, 2026-11-26, NullAway on storage-postgres).
   */
  @FunctionalInterface
  interface Step {
    void run(Connection c) throws SQLException;
  }

  private final DataSource ds;

  Sql(DataSource ds) {
    this.ds = ds;
  }

  private static final int ATTEMPTS = 3;

  /**
   * Runs {@code work} in one transaction: committed if it returns, rolled back if it throws. A
   * deadlock or serialization failure (the database rolled everything back) is tried again, up to
   * three times in all.
   */
  <T> T tx(String what, Work<T> work) {
    return Objects.requireNonNull(txOrNull(what, work), "a Work answers non-null");
  }

  /** Runs {@code query} as {@link #tx} runs work; null when it answers null. */
  <T> @Nullable T txOrNull(String what, Query<T> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        return once(what, work);
      } catch (QueueException e) {
        if (attempt >= ATTEMPTS || !(e.getCause() instanceof SQLException s) || !retryable(s)) {
          throw e;
        }
      }
    }
  }

  /** Runs {@code step} in one transaction, as {@link #tx} does. */
  void act(String what, Step step) {
    tx(
        what,
        c -> {
          step.run(c);
          return Boolean.TRUE;
        });
  }

  /**
   * Runs {@code work} on a connection in autocommit mode: each statement is its own transaction.
   * For operations that are one statement; retried like {@link #tx}. An error names what was being
   * done: {@code action} and the queue (put together only then, as these run for every message).
   */
  <T> T statement(String action, String queue, Work<T> work) {
    return Objects.requireNonNull(statementOrNull(action, queue, work), "a Work answers non-null");
  }

  /** Runs {@code query} as {@link #statement} runs work; null when it answers null. */
  <T> @Nullable T statementOrNull(String action, String queue, Query<T> work) {
    for (int attempt = 1; ; attempt++) {
      try (Connection c = ds.getConnection()) {
        c.setAutoCommit(true);
        return work.run(c);
      } catch (SQLException e) {
        if (attempt >= ATTEMPTS || !retryable(e)) {
          throw translate(e, action + " '" + queue + "'");
        }
      }
    }
  }

  private static boolean retryable(SQLException e) {
    return "40001".equals(e.getSQLState()) || "40P01".equals(e.getSQLState());
  }

  private <T> @Nullable T once(String what, Query<T> work) {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try {
        @Nullable T result = work.run(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        try {
          c.rollback();
        } catch (SQLException ignored) {
          // the connection is broken; the pool discards it, the transaction is gone with it
        }
        throw e;
      }
    } catch (SQLException e) {
      throw translate(e, what);
    }
  }

  static PreparedStatement prepare(Connection c, String sql, @Nullable Object... args)
      throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    for (int i = 0; i < args.length; i++) {
      ps.setObject(i + 1, args[i]);
    }
    return ps;
  }

  static int update(Connection c, String sql, @Nullable Object... args) throws SQLException {
    try (PreparedStatement ps = prepare(c, sql, args)) {
      return ps.executeUpdate();
    }
  }

  /** Runs a statement whose result is not needed (a lock, a notify). */
  static void execute(Connection c, String sql, @Nullable Object... args) throws SQLException {
    try (PreparedStatement ps = prepare(c, sql, args)) {
      ps.execute();
    }
  }

  static long queryLong(Connection c, String sql, @Nullable Object... args) throws SQLException {
    try (PreparedStatement ps = prepare(c, sql, args);
        java.sql.ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * A database error as the engine reports it: the database away, refusing the credentials or out
   * of resources is {@link ErrorCode#UNAVAILABLE} (the server answers 503); anything else is a bug
   * or a broken database and stays an unchecked error.
   */
  static RuntimeException translate(SQLException e, String what) {
    String state = sqlState(e);
    String detail = rootMessage(e);
    if (state != null && (state.startsWith("28") || state.equals("3D000"))) {
      return new QueueException(
          ErrorCode.UNAVAILABLE,
          "PostgreSQL refused the login while "
              + what
              + ": "
              + detail
              + " (SQLSTATE "
              + state
              + ")",
          e);
    }
    if (retryable(e)) {
      return new QueueException(
          ErrorCode.UNAVAILABLE,
          "PostgreSQL kept aborting the transaction while "
              + what
              + " (deadlock or serialization failure, SQLSTATE "
              + state
              + "); try again",
          e);
    }
    if (e instanceof SQLTransientConnectionException
        || (state != null
            && (state.startsWith("08") || state.startsWith("57P") || state.startsWith("53")))) {
      return new QueueException(
          ErrorCode.UNAVAILABLE,
          "the PostgreSQL database is unavailable while "
              + what
              + ": "
              + detail
              + (state == null ? "" : " (SQLSTATE " + state + ")"),
          e);
    }
    return new IllegalStateException("database error while " + what + ": " + detail, e);
  }

  private static @Nullable String sqlState(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s && s.getSQLState() != null) {
        return s.getSQLState();
      }
    }
    return null;
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = t.getMessage();
    return m == null ? t.getClass().getSimpleName() : m;
  }
}
