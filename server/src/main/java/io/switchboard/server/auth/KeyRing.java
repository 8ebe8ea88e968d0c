package io.switchboard.server.auth;

import java.util.List;
import java.util.Optional;

/**
 * The access keys a server knows, by key id. Every surface authenticates against the same ring
 * (SigV4 on the SQS endpoint and the native API, HTTP Basic on the native API). A ring with no key
 * means keyless mode: nothing is checked (DESIGN.md, "Access control").
 *
 * <p>Implementations are thread-safe: requests read it concurrently with changes. A change is seen
 * by the next request. {@link MemoryKeyRing} keeps keys in memory (the configured ones); a durable
 * store may implement this interface so that every server of a cluster sees the same keys. The
 * server wraps its ring in {@link AuditedKeyRing}, so every change is in the audit log whoever
 * implements it.
 */
public interface KeyRing {

  /** The key with this id, if the ring has it. */
  Optional<Principal> find(String keyId);

  /** Every key, in no particular order. */
  List<Principal> list();

  /** Adds a key, or replaces the one with the same id. */
  void put(Principal principal);

  /** Removes the key with this id; false if there was none. */
  boolean revoke(String keyId);

  /**
   * True while nothing is to be checked (keyless mode): the ring has no key. Called on every
   * request, so keep it cheap. The server's ring ({@link AuditedKeyRing}) never goes back to
   * keyless once it has held a key, so revoking the last key locks the server rather than opening
   * it.
   */
  default boolean keyless() {
    return list().isEmpty();
  }
}
