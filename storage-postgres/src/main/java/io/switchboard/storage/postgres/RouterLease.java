package io.switchboard.storage.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * The statements on the routing leader's lease, the one row of {@code sb_router_leader}. Expiry is
 * decided by the database's clock ({@code clock_timestamp()}), never by a server's, so servers
 * whose clocks disagree still agree on whether the lease ran out. Taking the lease raises the
 * epoch; every write of the router checks the epoch in its own transaction ({@link
 * PostgresRouterJournal}), which is what keeps a deposed leader from writing, whatever it believes.
 */
final class RouterLease {

  /** The lease row as read: who holds it, at which epoch, and whether it has not run out yet. */
  record Row(
      long epoch,
      @Nullable String holder,
      @Nullable String url,
      boolean live,
      long remainingMillis) {}

  private RouterLease() {}

  /**
   * Takes the lease if it ran out (or was released), or if {@code me} holds it already (a server
   * that stepped down after a failed write takes it again at a new epoch, and so reloads what was
   * stored). Returns the new epoch, or nothing if another server holds a live lease.
   */
  static OptionalLong acquire(Connection c, String me, String url, long leaseMillis)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "update sb_router_leader set epoch = epoch + 1, holder = ?, url = ?, expires_at ="
                + " clock_timestamp() + ? * interval '1 millisecond', changed_at ="
                + " clock_timestamp() where id = 1 and (expires_at <= clock_timestamp() or"
                + " holder = ?) returning epoch")) {
      ps.setString(1, me);
      ps.setString(2, url);
      ps.setLong(3, leaseMillis);
      ps.setString(4, me);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
      }
    }
  }

  /** Extends the lease held at {@code epoch}; false if another server took it since. */
  static boolean renew(Connection c, long epoch, long leaseMillis) throws SQLException {
    return Sql.update(
            c,
            "update sb_router_leader set expires_at = clock_timestamp() + ? * interval '1"
                + " millisecond' where id = 1 and epoch = ?",
            leaseMillis,
            epoch)
        == 1;
  }

  /**
   * Ends the lease held at {@code epoch} now, so the next server to try takes it without waiting
   * for it to run out. The holder stays recorded, as the last one.
   */
  static void release(Connection c, long epoch) throws SQLException {
    Sql.update(
        c,
        "update sb_router_leader set expires_at = '-infinity', changed_at = clock_timestamp()"
            + " where id = 1 and epoch = ?",
        epoch);
  }

  static Row read(Connection c) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement(
                "select epoch, holder, url, expires_at > clock_timestamp(), case when expires_at"
                    + " > clock_timestamp() then (extract(epoch from expires_at -"
                    + " clock_timestamp()) * 1000)::bigint else 0 end from sb_router_leader"
                    + " where id = 1");
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        throw new IllegalStateException("the routing lease row is missing from sb_router_leader");
      }
      return new Row(
          rs.getLong(1), rs.getString(2), rs.getString(3), rs.getBoolean(4), rs.getLong(5));
    }
  }

  /**
   * Inside a write transaction: locks the lease row against a takeover until the transaction ends
   * (a takeover waits for the write to commit, and every later write sees the new epoch), and
   * returns the epoch and holder in force.
   */
  static Row fence(Connection c) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement(
                "select epoch, holder, url from sb_router_leader where id = 1 for share");
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        throw new IllegalStateException("the routing lease row is missing from sb_router_leader");
      }
      return new Row(rs.getLong(1), rs.getString(2), rs.getString(3), true, 0);
    }
  }
}
