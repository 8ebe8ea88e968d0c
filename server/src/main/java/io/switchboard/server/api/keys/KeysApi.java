package io.switchboard.server.api.keys;

import io.switchboard.client.KeyWire;
import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.KeyRing;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.http.Call;
import io.switchboard.server.http.Guard;
import io.switchboard.server.http.HttpError;
import io.switchboard.server.http.Route;
import io.switchboard.server.security.AccessKeyStore;
import io.switchboard.server.security.DurableKeyRing;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The access-key admin API (action {@code admin}): {@code POST /v1/keys} creates a key and answers
 * its secret (the only time it is shown), {@code GET /v1/keys} lists keys without secrets, {@code
 * DELETE /v1/keys/{id}} revokes one. Run-time keys live in the engine's system records ({@link
 * AccessKeyStore}, served by {@link DurableKeyRing}); every change goes through the server's
 * audited ring, so it is in the audit log with the key id, never the secret. Keys of the
 * configuration are listed but changed only where they are configured.
 */
public final class KeysApi {

  private final KeyRing keys;
  private final DurableKeyRing durable;

  /**
   * @param keys the server's ring (audited), through which keys change
   * @param durable the ring under it, which knows the stored keys' creation times
   */
  public KeysApi(KeyRing keys, DurableKeyRing durable) {
    this.keys = keys;
    this.durable = durable;
  }

  public List<Route> routes() {
    Guard admin = Guard.any(Action.ADMIN);
    return List.of(
        Route.declare("GET", "/v1/keys", "listKeys").guard(admin).noBody().to(this::list),
        Route.declare("POST", "/v1/keys", "createKey")
            .guard(admin)
            .body(KeyWire.CreateKey.class)
            .to(this::create),
        Route.declare("DELETE", "/v1/keys/{key}", "revokeKey")
            .guard(admin)
            .noBody()
            .to(this::revoke));
  }

  private AccessKeyStore store() {
    return durable
        .store()
        .orElseThrow(
            () ->
                new HttpError(
                    409,
                    "KEYS_NOT_STORED",
                    "this server's engine keeps no access keys; configure keys with access-keys"
                        + " or access-keys-file"));
  }

  private void create(Call c) {
    AccessKeyStore store = store(); // refuses before anything is read when keys cannot be kept
    KeyWire.CreateKey request = c.body(KeyWire.CreateKey.class);
    AccessKeyStore.StoredKey key =
        AccessKeyStore.newKey(
            Optional.ofNullable(request.name()),
            request.grants(),
            Optional.ofNullable(request.agent()),
            Optional.ofNullable(request.account()),
            Instant.ofEpochMilli(c.engine().clock().millis()));
    Principal principal = key.principal();
    keys.put(principal);
    AccessKeyStore.StoredKey stored = store.find(principal.keyId()).orElse(key);
    c.json(201, stored.view(true));
  }

  private void list(Call c) {
    List<KeyWire.AccessKey> out = new ArrayList<>();
    durable.configuredKeys().forEach(p -> out.add(configuredView(p)));
    durable.store().ifPresent(s -> s.list().forEach(k -> out.add(k.view(false))));
    out.sort(Comparator.comparing(KeyWire.AccessKey::accessKeyId));
    c.json(new KeyWire.KeyList(out));
  }

  private static KeyWire.AccessKey configuredView(Principal p) {
    AccessKeyStore.StoredKey k = AccessKeyStore.StoredKey.of(p, Instant.EPOCH);
    return new KeyWire.AccessKey(
        k.accessKeyId(), null, k.name(), k.grants(), k.agent(), null, k.account());
  }

  private void revoke(Call c) {
    String id = c.path("key");
    if (durable.configured(id)) {
      throw new HttpError(
          409,
          "KEY_CONFIGURED",
          "access key '"
              + id
              + "' comes from the server's configuration (access-keys or access-keys-file);"
              + " remove it there and restart");
    }
    if (!keys.revoke(id)) {
      throw new HttpError(404, "KEY_NOT_FOUND", "access key '" + id + "' does not exist");
    }
    c.noContent();
  }
}
