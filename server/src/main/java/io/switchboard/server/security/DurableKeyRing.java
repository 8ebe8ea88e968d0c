package io.switchboard.server.security;

import io.switchboard.queue.spi.SystemRecords;
import io.switchboard.server.auth.KeyRing;
import io.switchboard.server.auth.MemoryKeyRing;
import io.switchboard.server.auth.Principal;
import io.switchboard.time.TimeSource;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The server's keys: those of its configuration ({@code access-keys}, {@code access-keys-file}),
 * fixed while it runs, and those created at run time through {@code /v1/keys}, kept in the engine's
 * store ({@link AccessKeyStore}) so that they survive restarts and every server of a PostgreSQL
 * cluster sees them.
 *
 * <p>A stored key is read from the store when a request names it and kept for {@link #FRESH_NANOS}
 * (one second): a key created on another server works here at once (a miss always reads the store),
 * a key revoked on this server is refused at once, and one revoked on another server is refused
 * here within that second. The store joins when the engine opens ({@link #attach}); until then only
 * the configured keys are known.
 */
public final class DurableKeyRing implements KeyRing {

  /** How long a stored key read from the store is trusted before it is read again. */
  static final long FRESH_NANOS = TimeUnit.SECONDS.toNanos(1);

  private record Cached(Optional<Principal> principal, long readAt) {}

  private final MemoryKeyRing configured;
  private final Map<String, Cached> cache = new ConcurrentHashMap<>();
  private volatile @Nullable AccessKeyStore store;
  private volatile TimeSource time = TimeSource.system();
  private volatile boolean storedAny;
  private volatile long storedAnyCheckedAt;

  public DurableKeyRing(MemoryKeyRing configured) {
    this.configured = configured;
  }

  /** The engine's store joins; a remote engine without one leaves only the configured keys. */
  public void attach(SystemRecords records, TimeSource time) {
    this.time = time;
    AccessKeyStore s = new AccessKeyStore(records);
    storedAny = s.any();
    storedAnyCheckedAt = System.nanoTime();
    store = s;
  }

  /** Whether the engine's store holds a key, read now; false before it opens or without one. */
  public boolean storedAny() {
    AccessKeyStore s = store;
    return s != null && s.any();
  }

  /** The store of run-time keys, if the engine has one. */
  public Optional<AccessKeyStore> store() {
    return Optional.ofNullable(store);
  }

  /** The configuration's keys (changed only there). */
  public List<Principal> configuredKeys() {
    return configured.list();
  }

  /** Whether {@code keyId} is one of the configuration's keys (changed only there). */
  public boolean configured(String keyId) {
    return configured.find(keyId).isPresent();
  }

  @Override
  public Optional<Principal> find(String keyId) {
    Optional<Principal> fixed = configured.find(keyId);
    AccessKeyStore s = store;
    if (fixed.isPresent() || s == null) {
      return fixed;
    }
    long now = System.nanoTime();
    Cached c = cache.get(keyId);
    if (c != null && now - c.readAt() < FRESH_NANOS) {
      return c.principal();
    }
    Optional<Principal> read = s.find(keyId).map(AccessKeyStore.StoredKey::principal);
    if (read.isPresent()) {
      cache.put(keyId, new Cached(read, now));
    } else {
      cache.remove(keyId);
    }
    return read;
  }

  @Override
  public List<Principal> list() {
    List<Principal> all = new ArrayList<>(configured.list());
    AccessKeyStore s = store;
    if (s != null) {
      s.list().forEach(k -> all.add(k.principal()));
    }
    return all;
  }

  /**
   * Stores {@code principal} as a run-time key, created now; seen by the next request.
   *
   * @throws IllegalArgumentException if it is one of the configuration's keys
   * @throws IllegalStateException if the engine keeps no keys (a remote engine) or is not open
   */
  @Override
  public void put(Principal principal) {
    if (configured(principal.keyId())) {
      throw new IllegalArgumentException(
          "access key " + principal.keyId() + " is configured; change it where it is configured");
    }
    AccessKeyStore s = store;
    if (s == null) {
      throw new IllegalStateException("this server's engine keeps no access keys");
    }
    s.put(AccessKeyStore.StoredKey.of(principal, Instant.ofEpochMilli(time.millis())));
    cache.remove(principal.keyId());
    storedAny = true;
  }

  @Override
  public boolean revoke(String keyId) {
    AccessKeyStore s = store;
    boolean revoked = s != null && s.revoke(keyId);
    cache.remove(keyId);
    return revoked;
  }

  /**
   * Keyless while no key is configured and none is stored. Whether one is stored is read again at
   * most once a second (another server of a cluster may create the first).
   */
  @Override
  public boolean keyless() {
    if (!configured.keyless() || storedAny) {
      return false;
    }
    AccessKeyStore s = store;
    long now = System.nanoTime();
    if (s != null && now - storedAnyCheckedAt >= FRESH_NANOS) {
      storedAnyCheckedAt = now;
      storedAny = s.any();
    }
    return !storedAny;
  }
}
