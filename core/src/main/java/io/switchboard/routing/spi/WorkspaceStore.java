package io.switchboard.routing.spi;

import io.switchboard.routing.WorkspaceDefinition;
import java.util.List;

/**
 * Where a server keeps its workspaces' definitions (name, settings, activities, task queues; not
 * their agents and contacts, which each workspace's {@link RouterJournal} keeps). Changes are rare
 * (an administrator's), so each is written durably before the call returns.
 */
public interface WorkspaceStore {

  /** Every stored definition, read once at start. */
  List<WorkspaceDefinition> load();

  /** Stores {@code definition}, replacing the one of the same name; durable on return. */
  void put(WorkspaceDefinition definition);

  /** Forgets the definition named {@code name}; durable on return. */
  void delete(String name);

  /** A store in memory, for tests and servers without a data directory. */
  static WorkspaceStore memory() {
    return new MemoryWorkspaceStore();
  }
}
