package io.switchboard.storage.postgres;

import io.switchboard.routing.RoutingException;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.spi.WorkspaceCodec;
import io.switchboard.routing.spi.WorkspaceStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The routing workspaces' definitions in table {@code sb_workspace} (name, {@link WorkspaceCodec}
 * bytes), one transaction per change, so a change is durable when the call returns. The routing
 * leader's store ({@link #fenced}) writes only while the lease is still at its epoch, as the
 * routers' journals do: a deposed leader changes no definition.
 */
public final class PostgresWorkspaceStore implements WorkspaceStore {

  private final DataSource ds;
  private final long epoch;

  /** A store whose writes are not fenced (a single server, tests). */
  public PostgresWorkspaceStore(DataSource ds) {
    this(ds, -1);
  }

  private PostgresWorkspaceStore(DataSource ds, long epoch) {
    this.ds = ds;
    this.epoch = epoch;
  }

  /** The store of the holder of lease epoch {@code epoch}: every write checks the epoch first. */
  static PostgresWorkspaceStore fenced(DataSource ds, long epoch) {
    return new PostgresWorkspaceStore(ds, epoch);
  }

  @Override
  public List<WorkspaceDefinition> load() {
    try (Connection c = ds.getConnection();
        PreparedStatement s = c.prepareStatement("select value from sb_workspace order by name");
        ResultSet rs = s.executeQuery()) {
      List<WorkspaceDefinition> out = new ArrayList<>();
      while (rs.next()) {
        out.add(WorkspaceCodec.decode(rs.getBytes(1)));
      }
      return out;
    } catch (SQLException e) {
      throw failed("read", e);
    }
  }

  @Override
  public void put(WorkspaceDefinition definition) {
    update(
        "insert into sb_workspace (name, value) values (?, ?)"
            + " on conflict (name) do update set value = excluded.value",
        definition.name(),
        WorkspaceCodec.encode(definition));
  }

  @Override
  public void delete(String name) {
    update("delete from sb_workspace where name = ?", name, null);
  }

  private void update(String sql, String name, byte @Nullable [] value) {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement s = c.prepareStatement(sql)) {
        if (epoch >= 0) {
          RouterLease.Row row = RouterLease.fence(c);
          if (row.epoch() != epoch) {
            throw RoutingException.unavailable(
                PostgresRouterJournal.fencedMessage(epoch, row), null);
          }
        }
        s.setString(1, name);
        if (value != null) {
          s.setBytes(2, value);
        }
        s.executeUpdate();
        c.commit();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw failed("store", e);
    }
  }

  private static RoutingException failed(String what, SQLException e) {
    return RoutingException.unavailable(
        "could not " + what + " workspaces in PostgreSQL: " + e.getMessage(), e);
  }
}
