package io.switchboard.server;

import io.switchboard.client.Json;
import io.switchboard.client.KeyWire;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The access-key admin API: {@code POST /v1/keys} creates a key and answers its secret (the only
 * time it is shown), {@code GET /v1/keys} lists keys without secrets, {@code DELETE /v1/keys/{id}}
 * revokes one. Keys live in the engine's system records ({@link AccessKeyStore}). Every change is
 * logged (the audit trail) with the key id and name, never the secret.
 */
final class KeysApi {

  private static final Logger AUDIT = LoggerFactory.getLogger("io.switchboard.audit");

  private KeysApi() {}

  static List<Route> routes() {
    return List.of(
        new Route("GET", "/v1/keys", "listKeys", true, KeysApi::list),
        new Route("POST", "/v1/keys", "createKey", true, KeysApi::create),
        new Route("DELETE", "/v1/keys/{key}", "revokeKey", true, KeysApi::revoke));
  }

  private static AccessKeyStore store(Call c) {
    return new AccessKeyStore(c.engine().systemRecords());
  }

  private static void create(Call c) {
    c.queryOnly();
    KeyWire.CreateKey request = c.body(KeyWire.CreateKey.class);
    AccessKeyStore.StoredKey key =
        store(c)
            .create(
                Optional.ofNullable(request.name()),
                request.grants(),
                Instant.ofEpochMilli(c.engine().clock().millis()));
    AUDIT
        .atInfo()
        .addKeyValue("event", "key.created")
        .addKeyValue("keyId", key.accessKeyId())
        .addKeyValue("name", key.name())
        .addKeyValue("grants", key.grants())
        .addKeyValue("requestId", c.requestId())
        .log("access key created");
    c.json(201, Json.tree(key.view(true)));
  }

  private static void list(Call c) {
    c.queryOnly();
    c.noBody();
    List<KeyWire.AccessKey> keys = store(c).list().stream().map(k -> k.view(false)).toList();
    c.json(Json.tree(new KeyWire.KeyList(keys)));
  }

  private static void revoke(Call c) {
    c.queryOnly();
    c.noBody();
    String id = c.path("key");
    if (!store(c).revoke(id)) {
      throw new HttpError(404, "KEY_NOT_FOUND", "access key '" + id + "' does not exist");
    }
    AUDIT
        .atInfo()
        .addKeyValue("event", "key.revoked")
        .addKeyValue("keyId", id)
        .addKeyValue("requestId", c.requestId())
        .log("access key revoked");
    c.noContent();
  }
}
