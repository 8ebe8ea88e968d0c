package io.switchboard.server.security;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.switchboard.client.KeyWire;
import io.switchboard.client.wire.Json;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.spi.SystemRecords;
import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.Grant;
import io.switchboard.server.auth.Principal;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Access keys (principals) kept as system records, one JSON document under {@code key/<id>}: {@code
 * {"accessKeyId", "secret", "name", "grants": [{"actions": [...], "resource": "..."}], "agent",
 * "createdAt", "account"}} ({@code account} only for a key of another AWS account). In the engine's
 * store, so keys survive restarts and every server of a PostgreSQL cluster sees a key as soon as it
 * is created. The secret is kept as given: SigV4 verification needs it (it is an HMAC key), so it
 * cannot be hashed; the store's own protection (the data directory is 0700, the database's access
 * control) is what guards it. {@link DurableKeyRing} serves these keys to the authentication
 * filter.
 */
public final class AccessKeyStore {

  static final String PREFIX = "key/";

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final char[] ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".toCharArray();

  /** A key as stored. */
  public record StoredKey(
      @Json.Required String accessKeyId,
      @Json.Required String secret,
      @Nullable String name,
      @Json.Required List<KeyWire.Grant> grants,
      @Nullable String agent,
      @Json.Required String createdAt,
      @Nullable String account) {

    public KeyWire.AccessKey view(boolean withSecret) {
      return new KeyWire.AccessKey(
          accessKeyId, withSecret ? secret : null, name, grants, agent, createdAt, account);
    }

    /** {@code p} as stored, created at {@code createdAt}. */
    public static StoredKey of(Principal p, Instant createdAt) {
      List<KeyWire.Grant> grants = new ArrayList<>();
      for (Grant g : p.grants()) {
        grants.add(
            new KeyWire.Grant(
                g.actions().stream().sorted().map(Action::wireName).toList(), g.resource()));
      }
      return new StoredKey(
          p.keyId(),
          p.secret(),
          p.name().orElse(null),
          grants,
          p.agent().orElse(null),
          createdAt.toString(),
          p.account().orElse(null));
    }

    /** The principal this key is: its grants parsed (they were checked when it was stored). */
    public Principal principal() {
      List<Grant> parsed = new ArrayList<>();
      for (KeyWire.Grant g : grants) {
        Set<Action> actions = new LinkedHashSet<>();
        g.actions().forEach(a -> actions.add(Action.parse(a)));
        parsed.add(new Grant(actions, g.resource()));
      }
      return new Principal(
          accessKeyId,
          secret,
          Optional.ofNullable(name),
          parsed,
          Optional.ofNullable(agent),
          Optional.ofNullable(account));
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

  /**
   * A new key with a random id and secret, checked but not stored.
   *
   * @throws QueueException {@code INVALID_ARGUMENT} naming what is wrong with the name, grants,
   *     agent or account
   */
  public static StoredKey newKey(
      Optional<String> name,
      List<KeyWire.Grant> grants,
      Optional<String> agent,
      Optional<String> account,
      Instant now) {
    name.ifPresent(AccessKeyStore::checkName);
    agent.ifPresent(AccessKeyStore::checkAgent);
    account.ifPresent(AccessKeyStore::checkAccount);
    checkGrants(grants);
    StoredKey key =
        new StoredKey(
            newId(),
            newSecret(),
            name.orElse(null),
            List.copyOf(grants),
            agent.orElse(null),
            now.toString(),
            account.orElse(null));
    try {
      key.principal();
    } catch (IllegalArgumentException e) {
      throw QueueException.invalid(String.valueOf(e.getMessage()));
    }
    return key;
  }

  void put(StoredKey key) {
    try {
      records.put(PREFIX + key.accessKeyId(), Json.STRICT.writeValueAsBytes(key));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode access key " + key.accessKeyId(), e);
    }
  }

  /**
   * The key stored under {@code accessKeyId}; none, without reading the store, for an id no key can
   * have ({@link Principal#validKeyId}: too long, or a character a key id never holds), so that a
   * request naming one is refused as any unknown key is.
   */
  public Optional<StoredKey> find(String accessKeyId) {
    if (!Principal.validKeyId(accessKeyId)) {
      return Optional.empty();
    }
    return records.get(PREFIX + accessKeyId).map(b -> decode(accessKeyId, b));
  }

  /** Every key, sorted by id. */
  public List<StoredKey> list() {
    List<StoredKey> out = new ArrayList<>();
    records.list(PREFIX).forEach((k, v) -> out.add(decode(k.substring(PREFIX.length()), v)));
    return out;
  }

  /** Whether any key is stored. */
  boolean any() {
    return !records.list(PREFIX).isEmpty();
  }

  /** Whether there was such a key. */
  boolean revoke(String accessKeyId) {
    return Principal.validKeyId(accessKeyId) && records.delete(PREFIX + accessKeyId);
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

  private static void checkAccount(String account) {
    if (!Principal.validAccount(account)) {
      throw QueueException.invalid(
          "account must be the 12-digit AWS account id the key belongs to in SQS queue policies,"
              + " got '"
              + account
              + "'");
    }
  }

  private static void checkAgent(String agent) {
    if (agent.isEmpty()
        || agent.length() > 256
        || agent.chars().anyMatch(Character::isISOControl)) {
      throw QueueException.invalid(
          "agent must be an agent id of 1..256 characters without control characters, got '"
              + agent
              + "'");
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
        if (Action.of(a).isEmpty()) {
          throw QueueException.invalid(
              "grants[" + i + "].actions: unknown action '" + a + "'; known: " + Action.known());
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
