package io.switchboard.routing;

import io.switchboard.routing.spi.MemoryRouterJournal;
import io.switchboard.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Builds the router of each workspace but {@code default} on the workspace's own stored state (a
 * {@link io.switchboard.routing.spi.RouterJournal} per workspace), and forgets that state when the
 * workspace is deleted. The server's opens a RocksDB router store per workspace; {@link #memory}
 * keeps journals in memory, for tests.
 */
public interface WorkspaceRouters {

  /**
   * A router with the workspace's settings, recovered from its stored state (empty for a new one).
   */
  Router open(WorkspaceDefinition workspace);

  /**
   * Forgets the stored state of workspace {@code name}, whose router is closed; nothing if none.
   */
  void drop(String name);

  /** Releases what the routers' stores hold (the routers are closed already). */
  default void close() {}

  /**
   * Routers on {@link MemoryRouterJournal}s kept by name, so a registry built again on the same
   * instance finds its workspaces' agents and contacts as a restarted server does.
   */
  static WorkspaceRouters memory(Clock clock) {
    Objects.requireNonNull(clock, "clock");
    return memory(w -> w.applyTo(Router.builder().clock(clock)));
  }

  /**
   * As {@link #memory(Clock)}, each router from the builder {@code builder} gives for the workspace
   * (the journal is set here).
   */
  static WorkspaceRouters memory(Function<WorkspaceDefinition, Router.Builder> builder) {
    Objects.requireNonNull(builder, "builder");
    Map<String, MemoryRouterJournal> journals = new HashMap<>();
    return new WorkspaceRouters() {
      @Override
      public synchronized Router open(WorkspaceDefinition workspace) {
        MemoryRouterJournal journal =
            journals.computeIfAbsent(workspace.name(), n -> new MemoryRouterJournal());
        return builder.apply(workspace).journal(journal).taskQueues(workspace.queues()).build();
      }

      @Override
      public synchronized void drop(String name) {
        journals.remove(name);
      }
    };
  }
}
