package io.switchboard.server.auth;

import java.util.List;
import java.util.Optional;

/**
 * The server's {@link KeyRing}: another ring's keys, every change written to the audit log ({@link
 * Audit}), and keyless only until it first holds a key ({@link #keyless}).
 */
public final class AuditedKeyRing implements KeyRing {

  private final KeyRing ring;
  private volatile boolean keyed;

  public AuditedKeyRing(KeyRing ring) {
    this(ring, false);
  }

  /**
   * @param checking true to check every request from the start even if {@code ring} holds no key
   *     yet (a server bound off loopback whose keys are all in a store that is not open yet)
   */
  public AuditedKeyRing(KeyRing ring, boolean checking) {
    this.ring = ring;
    this.keyed = checking || !ring.keyless();
  }

  @Override
  public Optional<Principal> find(String keyId) {
    return ring.find(keyId);
  }

  @Override
  public List<Principal> list() {
    return ring.list();
  }

  @Override
  public void put(Principal principal) {
    boolean replaced = ring.find(principal.keyId()).isPresent();
    ring.put(principal);
    keyed = true;
    Audit.keyPut(principal, replaced);
  }

  @Override
  public boolean revoke(String keyId) {
    boolean revoked = ring.revoke(keyId);
    Audit.keyRevoked(keyId, revoked);
    return revoked;
  }

  /** Keyless until the ring first holds a key; never again after. */
  @Override
  public boolean keyless() {
    if (!keyed && !ring.keyless()) {
      keyed = true;
    }
    return !keyed;
  }
}
