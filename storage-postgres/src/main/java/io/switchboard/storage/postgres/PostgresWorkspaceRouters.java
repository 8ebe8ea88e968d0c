package io.switchboard.storage.postgres;

import io.switchboard.routing.Router;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceRouters;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The routers of the workspaces other than {@code default} on the routing leader, each on a {@link
 * PostgresRouterJournal} of its own over the shared router tables (its rows keyed by the
 * workspace's name), all of them writing under the leader's one lease epoch: a takeover fences
 * every workspace at once, and the new leader reopens them all. A journal stays open while its
 * workspace exists and this term lasts (a settings change rebuilds the router on it); deleting the
 * workspace closes it and deletes its rows. The RocksDB counterpart is {@code
 * RocksWorkspaceRouters}.
 */
final class PostgresWorkspaceRouters implements WorkspaceRouters {

  private final DataSource ds;
  private final long epoch;
  private final Function<WorkspaceDefinition, Router.Builder> builder;
  private final Runnable onFailure;
  private final Map<String, PostgresRouterJournal> journals = new HashMap<>();
  private final Map<String, Router> routers = new HashMap<>();

  PostgresWorkspaceRouters(
      DataSource ds,
      long epoch,
      Function<WorkspaceDefinition, Router.Builder> builder,
      Runnable onFailure) {
    this.ds = ds;
    this.epoch = epoch;
    this.builder = builder;
    this.onFailure = onFailure;
  }

  @Override
  public synchronized Router open(WorkspaceDefinition workspace) {
    PostgresRouterJournal journal =
        journals.computeIfAbsent(
            workspace.name(), n -> PostgresRouterJournal.open(ds, epoch, n, onFailure));
    Router router = builder.apply(workspace).journal(journal).build();
    routers.put(workspace.name(), router);
    return router;
  }

  @Override
  public synchronized void drop(String name) {
    routers.remove(name);
    PostgresRouterJournal journal = journals.remove(name);
    if (journal != null) {
      journal.close();
    }
    PostgresRouterJournal.drop(ds, epoch, name);
  }

  /** Why a workspace's journal stopped taking writes, if one did. */
  synchronized Optional<String> failure() {
    for (PostgresRouterJournal j : journals.values()) {
      Optional<String> f = j.failure();
      if (f.isPresent()) {
        return Optional.of("workspace '" + j.workspace() + "': " + f.get());
      }
    }
    return Optional.empty();
  }

  /** Writes what the journals still hold, then closes them (the routers are closed already). */
  @Override
  public void close() {
    for (PostgresRouterJournal j : take()) {
      j.close();
    }
  }

  /**
   * Closes the routers opened here, then their journals: for a takeover that failed while the
   * registry was loading, before anyone else could close them.
   */
  void closeAll() {
    List<Router> opened;
    synchronized (this) {
      opened = new ArrayList<>(routers.values());
    }
    opened.forEach(Router::close);
    close();
  }

  /** Stops every journal without writing what is queued, as a dying process would (tests). */
  void abandon() {
    for (PostgresRouterJournal j : take()) {
      j.abandon();
    }
  }

  private synchronized List<PostgresRouterJournal> take() {
    List<PostgresRouterJournal> all = new ArrayList<>(journals.values());
    journals.clear();
    routers.clear();
    return all;
  }
}
