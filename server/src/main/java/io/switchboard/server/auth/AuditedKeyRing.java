package io.switchboard.server.auth;

import java.util.List;
import java.util.Optional;

/** A {@link KeyRing} that writes every change to the audit log ({@link Audit}). */
public final class AuditedKeyRing implements KeyRing {

  private final KeyRing ring;

  public AuditedKeyRing(KeyRing ring) {
    this.ring = ring;
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
    Audit.keyPut(principal, replaced);
  }

  @Override
  public boolean revoke(String keyId) {
    boolean revoked = ring.revoke(keyId);
    Audit.keyRevoked(keyId, revoked);
    return revoked;
  }

  @Override
  public boolean isEmpty() {
    return ring.isEmpty();
  }
}
