package io.switchboard.storage.dynamodb;

import io.switchboard.routing.Router;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceRouters;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The routers of the workspaces other than {@code default} on the routing leader, each on a {@link
 * DynamoRouterJournal} of its own (its items' keys carry the workspace's name), all writing under
 * the leader's one lease epoch: a takeover fences every workspace at once, and the new leader
 * reopens them all. Deleting a workspace closes its journal and deletes its items. The PostgreSQL
 * counterpart is {@code PostgresWorkspaceRouters}.
 */
final class DynamoWorkspaceRouters implements WorkspaceRouters {

  private final Store store;
  private final long epoch;
  private final Function<WorkspaceDefinition, Router.Builder> builder;
  private final Runnable onFailure;
  private final Map<String, DynamoRouterJournal> journals = new HashMap<>();
  private final Map<String, Router> routers = new HashMap<>();

  DynamoWorkspaceRouters(
      Store store,
      long epoch,
      Function<WorkspaceDefinition, Router.Builder> builder,
      Runnable onFailure) {
    this.store = store;
    this.epoch = epoch;
    this.builder = builder;
    this.onFailure = onFailure;
  }

  @Override
  public synchronized Router open(WorkspaceDefinition workspace) {
    DynamoRouterJournal journal =
        journals.computeIfAbsent(
            workspace.name(), n -> DynamoRouterJournal.open(store, epoch, n, onFailure));
    Router router = builder.apply(workspace).journal(journal).build();
    routers.put(workspace.name(), router);
    return router;
  }

  @Override
  public synchronized void drop(String name) {
    routers.remove(name);
    DynamoRouterJournal journal = journals.remove(name);
    if (journal != null) {
      journal.close();
    }
    DynamoRouterJournal.drop(store, epoch, name);
  }

  /** Why a workspace's journal stopped taking writes, if one did. */
  synchronized Optional<String> failure() {
    for (DynamoRouterJournal j : journals.values()) {
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
    for (DynamoRouterJournal j : take()) {
      j.close();
    }
  }

  /** Closes the routers opened here, then their journals (a takeover that failed while loading). */
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
    for (DynamoRouterJournal j : take()) {
      j.abandon();
    }
  }

  private synchronized List<DynamoRouterJournal> take() {
    List<DynamoRouterJournal> all = new ArrayList<>(journals.values());
    journals.clear();
    routers.clear();
    return all;
  }
}
