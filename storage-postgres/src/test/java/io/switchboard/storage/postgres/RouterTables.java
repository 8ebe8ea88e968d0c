package io.switchboard.storage.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** The router's tables in the shared test database: emptied, and the lease made free. */
final class RouterTables {

  private RouterTables() {}

  /**
   * Creates the schema if needed, empties the router's tables (workspace {@code default}'s state,
   * no other workspace) and frees the lease (epoch 0).
   */
  static DataSource fresh() {
    DataSource ds = TestDatabase.pool();
    Schema.migrate(ds);
    sql(
        ds,
        "truncate sb_router_agent, sb_router_contact, sb_router_reservation, sb_router_interval,"
            + " sb_workspace",
        "delete from sb_router_state where workspace <> 'default'",
        "update sb_router_state set format = 1, agent_serial = 0, contact_seq = 0, idle_seq = 0,"
            + " reservation_seq = 0, timer_seq = 0, retire_seq = 0, event_id_limit = 0,"
            + " reservation_limit = 0",
        "update sb_router_leader set epoch = 0, holder = null, url = null, expires_at ="
            + " '-infinity'");
    return ds;
  }

  /** Makes the lease run out now, as if its holder had stopped renewing long ago. */
  static void expireLease(DataSource ds) {
    sql(ds, "update sb_router_leader set expires_at = clock_timestamp() - interval '1 second'");
  }

  /** Takes the lease for {@code holder} as a takeover would; returns the new epoch. */
  static long takeLease(DataSource ds, String holder) {
    expireLease(ds);
    try (Connection c = ds.getConnection()) {
      return RouterLease.acquire(c, holder, "http://" + holder, 60_000).orElseThrow();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  static void sql(DataSource ds, String... statements) {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      for (String statement : statements) {
        s.execute(statement);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
