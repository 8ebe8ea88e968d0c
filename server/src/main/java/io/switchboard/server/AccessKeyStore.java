package io.switchboard.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.switchboard.client.Json;
import io.switchboard.client.KeyWire;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.spi.SystemRecords;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Access keys (principals) kept as system records, one JSON document under {@code key/<id>}: {@code
 * {"accessKeyId", "secret", "name", "grants": [{"actions": [...], "resource": "..."}],
 * "createdAt"}}. In the engine's store, so keys survive restarts and every server of a PostgreSQL
 * cluster sees a key as soon as it is created. The secret is kept as given: SigV4 verification
 * needs it (it is an HMAC key), so it cannot be hashed; the store's own protection (the data
 * directory is 0700, the database's access control) is what guards it.
 *
 * <p>The operations are those of a principal registry ({@code find}, {@code list}, {@code put},
 * {@code revoke}), so an authentication filter can read keys from here.
 */
final class AccessKeyStore {

  static final String PREFIX = "key/";

  /** The actions a grant may name (DESIGN.md, "Access control"). */
  static final Set<String> ACTIONS =
      Set.of(
          "queue:send",
          "queue:receive",
          "queue:browse",
          "queue:admin",
          "routing:agent",
          "routing:supervisor",
          "metrics:read",
          "admin");

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final char[] ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".toCharArray();

  /** A key as stored. */
  record StoredKey(
      @Json.Required String accessKeyId,
      @Json.Required String secret,
      String name,
      @Json.Required List<KeyWire.Grant> grants,
      @Json.Required String createdAt) {

    KeyWire.AccessKey view(boolean withSecret) {
      return new KeyWire.AccessKey(
          accessKeyId, withSecret ? secret : null, name, grants, createdAt);
    }

    @Override
    public String toString() {
      return "StoredKey[" + accessKeyId + ", secret hidden]";
    }
  }

  private final SystemRecords records;

  AccessKeyStore(SystemRecords records) {
    this.records = records;
  }

  /** Makes a new key with a random id and secret, stores it and returns it. */
  StoredKey create(Optional<String> name, List<KeyWire.Grant> grants, Instant now) {
    name.ifPresent(AccessKeyStore::checkName);
    checkGrants(grants);
    StoredKey key =
        new StoredKey(newId(), newSecret(), name.orElse(null), List.copyOf(grants), now.toString());
    put(key);
    return key;
  }

  void put(StoredKey key) {
    try {
      records.put(PREFIX + key.accessKeyId(), Json.STRICT.writeValueAsBytes(key));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode access key " + key.accessKeyId(), e);
    }
  }

  Optional<StoredKey> find(String accessKeyId) {
    return records.get(PREFIX + accessKeyId).map(b -> decode(accessKeyId, b));
  }

  /** Every key, sorted by id. */
  List<StoredKey> list() {
    List<StoredKey> out = new ArrayList<>();
    records.list(PREFIX).forEach((k, v) -> out.add(decode(k.substring(PREFIX.length()), v)));
    return out;
  }

  /** Whether there was such a key. */
  boolean revoke(String accessKeyId) {
    return records.delete(PREFIX + accessKeyId);
  }

  private static StoredKey decode(String id, byte[] json) {
    try {
      return Json.LENIENT.readValue(json, StoredKey.class);
    } catch (IOException e) {
      throw new IllegalStateException(
          "the stored access key " + id + " cannot be read: " + e.getClass().getSimpleName(), e);
    }
  }

  /** {@code SB} and 18 characters of base32: 90 random bits, shaped like an AWS key id. */
  private static String newId() {
    StringBuilder id = new StringBuilder("SB");
    for (int i = 0; i < 18; i++) {
      id.append(ID_ALPHABET[RANDOM.nextInt(ID_ALPHABET.length)]);
    }
    return id.toString();
  }

  /** 240 random bits in 40 base64url characters. */
  private static String newSecret() {
    byte[] b = new byte[30];
    RANDOM.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  private static void checkName(String name) {
    if (name.isEmpty() || name.length() > 256 || name.chars().anyMatch(Character::isISOControl)) {
      throw QueueException.invalid(
          "name must be 1..256 characters without control characters, got '" + name + "'");
    }
  }

  private static void checkGrants(List<KeyWire.Grant> grants) {
    if (grants.isEmpty() || grants.size() > 100) {
      throw QueueException.invalid("grants must hold 1..100 grants, got " + grants.size());
    }
    for (int i = 0; i < grants.size(); i++) {
      KeyWire.Grant g = grants.get(i);
      if (g.actions().isEmpty()) {
        throw QueueException.invalid("grants[" + i + "].actions must name at least one action");
      }
      for (String a : g.actions()) {
        if (!ACTIONS.contains(a)) {
          throw QueueException.invalid(
              "grants["
                  + i
                  + "].actions: unknown action '"
                  + a
                  + "'; known: "
                  + ACTIONS.stream().sorted().toList());
        }
      }
      String r = g.resource();
      if (r.isEmpty() || r.length() > 256 || r.chars().anyMatch(Character::isISOControl)) {
        throw QueueException.invalid(
            "grants["
                + i
                + "].resource must be 1..256 characters (a queue-name glob, a routing workspace,"
                + " or *), got '"
                + r
                + "'");
      }
    }
  }
}
