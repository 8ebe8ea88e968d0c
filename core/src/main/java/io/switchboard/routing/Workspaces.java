package io.switchboard.routing;

import io.switchboard.internal.LargestN;
import io.switchboard.routing.spi.WorkspaceStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The routing workspaces of a server ({@code docs/routing.md}, "Workspaces, queues and workflows"):
 * each with its own settings, activities, task queues, agents, contacts, events and statistics, on
 * a router of its own. The workspace {@value #DEFAULT} is the server's router of before workspaces,
 * with the server's routing settings and the three presence values as its activities; it always
 * exists and cannot be deleted or reconfigured here.
 *
 * <p>Definitions are kept in a {@link WorkspaceStore}, each change durable before the call returns;
 * the routers of the other workspaces come from {@link WorkspaceRouters}. A call that throws {@link
 * RoutingException} has changed nothing.
 */
public final class Workspaces implements AutoCloseable {

  /** The workspace of the {@code /v1/routing} routes. */
  public static final String DEFAULT = "default";

  private final Map<String, Workspace> workspaces = new ConcurrentHashMap<>();
  private final WorkspaceStore store;
  private final WorkspaceRouters routers;

  /**
   * Loads the stored workspaces and opens their routers.
   *
   * @param defaultRouter the router of {@value #DEFAULT}, which stays its caller's to close
   * @param defaultSettings the settings {@code defaultRouter} was built with, as the API shows them
   */
  public Workspaces(
      Router defaultRouter,
      WorkspaceSettings defaultSettings,
      WorkspaceStore store,
      WorkspaceRouters routers) {
    this.store = Objects.requireNonNull(store, "store");
    this.routers = Objects.requireNonNull(routers, "routers");
    WorkspaceDefinition defaults =
        new WorkspaceDefinition(DEFAULT, defaultSettings, Activity.DEFAULTS, List.of());
    for (WorkspaceDefinition stored : store.load()) {
      if (stored.name().equals(DEFAULT)) {
        defaults = defaults.withSettings(defaultSettings);
        for (TaskQueue q : stored.queues()) {
          defaults = defaults.withQueue(q);
        }
        for (Workflow w : stored.workflows()) {
          defaults = defaults.withWorkflow(w);
        }
        defaults = defaults.withCallbackSecret(stored.callbackSecret());
      } else {
        workspaces.put(stored.name(), new Workspace(this, stored, routers.open(stored)));
      }
    }
    workspaces.put(DEFAULT, new Workspace(this, defaults, defaultRouter));
  }

  /** The workspace named {@code name}; WORKSPACE_NOT_FOUND if there is none. */
  public Workspace get(String name) {
    Objects.requireNonNull(name, "workspace");
    Workspace w = workspaces.get(name);
    if (w == null) {
      throw new RoutingException(
          RoutingErrorCode.WORKSPACE_NOT_FOUND,
          "workspace '" + WorkspaceDefinition.checkName(name) + "' does not exist");
    }
    return w;
  }

  /** Every workspace, by name. */
  public List<Workspace> list() {
    List<Workspace> all = new ArrayList<>(workspaces.values());
    all.sort(Comparator.comparing(Workspace::name));
    return all;
  }

  /**
   * The names of at most {@code n} (0..) workspaces with the most contacts waiting ({@link
   * Router#waitingNow}), most first: one read per workspace and nothing allocated per workspace
   * ({@link LargestN}), for the metrics of a server with many.
   */
  public List<String> busiest(int n) {
    LargestN<String> top = new LargestN<>(n);
    for (Workspace w : workspaces.values()) {
      top.offer(w.name(), w.router().waitingNow());
    }
    return top.heaviestFirst();
  }

  /**
   * Creates a workspace with no agents, contacts or task queues unless {@code definition} has
   * queues; WORKSPACE_ALREADY_EXISTS if the name is taken. A definition without a callback secret
   * gets a new one ({@link CallbackSecret#generate}), which the created workspace's definition
   * holds: the one moment it can be shown.
   */
  public synchronized Workspace create(WorkspaceDefinition definition) {
    Objects.requireNonNull(definition, "definition");
    if (definition.callbackSecret().isEmpty()) {
      definition = definition.withCallbackSecret(Optional.of(CallbackSecret.generate()));
    }
    if (workspaces.containsKey(definition.name())) {
      throw new RoutingException(
          RoutingErrorCode.WORKSPACE_ALREADY_EXISTS,
          "workspace '" + definition.name() + "' exists already");
    }
    routers.drop(definition.name()); // what a deletion interrupted by a crash left behind
    store.put(definition);
    Router router;
    try {
      router = routers.open(definition);
    } catch (RuntimeException e) {
      store.delete(definition.name());
      throw e;
    }
    Workspace w = new Workspace(this, definition, router);
    workspaces.put(definition.name(), w);
    return w;
  }

  /**
   * Deletes a workspace with its agents, contacts and history; the workspace {@value #DEFAULT} is
   * refused (INVALID_STATE).
   */
  public synchronized void delete(String name) {
    Workspace w = get(name);
    if (name.equals(DEFAULT)) {
      throw RoutingException.state("the workspace '" + DEFAULT + "' cannot be deleted");
    }
    w.exclusively(
        () -> {
          workspaces.remove(name);
          w.router().close();
          routers.drop(name);
          store.delete(name);
        });
  }

  /** Stores a workspace's new definition (called by {@link Workspace} under its lock). */
  void stored(WorkspaceDefinition definition) {
    store.put(definition);
  }

  /** Reopens a workspace's router with new settings (called by {@link Workspace}). */
  Router reopen(WorkspaceDefinition definition) {
    return routers.open(definition);
  }

  /** Closes the routers of every workspace but {@value #DEFAULT}. */
  @Override
  public synchronized void close() {
    for (Workspace w : workspaces.values()) {
      if (!w.name().equals(DEFAULT)) {
        w.router().close();
      }
    }
    routers.close();
  }
}
