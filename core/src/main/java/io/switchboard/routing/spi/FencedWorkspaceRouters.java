package io.switchboard.routing.spi;

import io.switchboard.routing.Router;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceRouters;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The routers of the workspaces other than {@code default} on the routing leader of a shared store
 * (PostgreSQL, DynamoDB), each on a journal of its own, all writing under the leader's one lease
 * epoch: a takeover fences every workspace at once, and the new leader reopens them all. A journal
 * stays open while its workspace exists and this term lasts (a settings change rebuilds the router
 * on it); deleting the workspace closes it and deletes its stored state. The store says how a
 * workspace's journal is opened and dropped ({@link Journals}).
 *
 * @param <J> the store's journal
 */
public final class FencedWorkspaceRouters<J extends FencedWorkspaceRouters.Journal>
    implements WorkspaceRouters {

  /** A workspace's journal in a shared store, fenced by the leader's lease epoch. */
  public interface Journal extends RouterJournal {

    /** The workspace whose state it holds. */
    String workspace();

    /** Why it stopped taking writes (its store failed, or the lease passed on), if it did. */
    Optional<String> failure();

    /** Stops without writing what is queued, as a dying process would. */
    void abandon();
  }

  /** How a store opens a workspace's journal and deletes a workspace's state, under one epoch. */
  public interface Journals<J extends Journal> {

    /** The journal of {@code workspace}, recovering what is stored. */
    J open(String workspace);

    /** Deletes every stored record of {@code workspace} (its journal is closed). */
    void drop(String workspace);
  }

  private final Journals<J> store;
  private final Function<WorkspaceDefinition, Router.Builder> builder;
  private final Map<String, J> journals = new HashMap<>();
  private final Map<String, Router> routers = new HashMap<>();

  /**
   * @param store opens and drops the workspaces' journals, all under the leader's epoch
   * @param builder the router of a workspace (its journal is set here)
   */
  public FencedWorkspaceRouters(
      Journals<J> store, Function<WorkspaceDefinition, Router.Builder> builder) {
    this.store = Objects.requireNonNull(store, "store");
    this.builder = Objects.requireNonNull(builder, "builder");
  }

  @Override
  public synchronized Router open(WorkspaceDefinition workspace) {
    J journal = journals.computeIfAbsent(workspace.name(), store::open);
    Router router = builder.apply(workspace).journal(journal).build();
    routers.put(workspace.name(), router);
    return router;
  }

  @Override
  public synchronized void drop(String name) {
    routers.remove(name);
    J journal = journals.remove(name);
    if (journal != null) {
      journal.close();
    }
    store.drop(name);
  }

  /** Why a workspace's journal stopped taking writes, if one did. */
  public synchronized Optional<String> failure() {
    for (J j : journals.values()) {
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
    for (J j : take()) {
      j.close();
    }
  }

  /**
   * Closes the routers opened here, then their journals: for a takeover that failed while the
   * registry was loading, before anyone else could close them.
   */
  public void closeAll() {
    List<Router> opened;
    synchronized (this) {
      opened = new ArrayList<>(routers.values());
    }
    opened.forEach(Router::close);
    close();
  }

  /** Stops every journal without writing what is queued, as a dying process would. */
  public void abandon() {
    for (J j : take()) {
      j.abandon();
    }
  }

  private synchronized List<J> take() {
    List<J> all = new ArrayList<>(journals.values());
    journals.clear();
    routers.clear();
    return all;
  }
}
