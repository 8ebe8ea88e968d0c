package io.switchboard.server.auth;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** A {@link KeyRing} in memory: the keys of the configuration, lost when the server stops. */
public final class MemoryKeyRing implements KeyRing {

  private final Map<String, Principal> keys = new ConcurrentHashMap<>();

  /** An empty ring (keyless mode). */
  public MemoryKeyRing() {}

  /**
   * A ring holding {@code initial}.
   *
   * @throws IllegalArgumentException if a key id repeats
   */
  public MemoryKeyRing(Collection<Principal> initial) {
    for (Principal p : initial) {
      if (keys.putIfAbsent(p.keyId(), p) != null) {
        throw new IllegalArgumentException("access key id " + p.keyId() + " is given twice");
      }
    }
  }

  @Override
  public Optional<Principal> find(String keyId) {
    return Optional.ofNullable(keys.get(keyId));
  }

  @Override
  public List<Principal> list() {
    return List.copyOf(keys.values());
  }

  @Override
  public void put(Principal principal) {
    keys.put(principal.keyId(), principal);
  }

  @Override
  public boolean revoke(String keyId) {
    return keys.remove(keyId) != null;
  }

  @Override
  public boolean keyless() {
    return keys.isEmpty();
  }
}
