package io.switchboard.routing.spi;

import io.switchboard.routing.WorkspaceDefinition;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@link WorkspaceStore#memory()}: one instance outlives the registries built on it in tests. */
final class MemoryWorkspaceStore implements WorkspaceStore {

  private final Map<String, byte[]> stored = new LinkedHashMap<>();

  @Override
  public synchronized List<WorkspaceDefinition> load() {
    return stored.values().stream().map(WorkspaceCodec::decode).toList();
  }

  @Override
  public synchronized void put(WorkspaceDefinition definition) {
    stored.put(definition.name(), WorkspaceCodec.encode(definition));
  }

  @Override
  public synchronized void delete(String name) {
    stored.remove(name);
  }
}
