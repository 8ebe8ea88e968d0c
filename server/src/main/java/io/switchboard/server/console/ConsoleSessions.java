package io.switchboard.server.console;

import io.switchboard.queue.spi.SystemRecords;
import io.switchboard.server.auth.KeyRing;
import io.switchboard.server.auth.Principal;
import io.switchboard.time.TimeSource;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The web console's sessions, kept in the cookie rather than on a server, so that every server
 * sharing a store (a PostgreSQL cluster behind a balancer) accepts a session made on any of them
 * ({@code docs/security.md}, "The web console"; decision of 2026-11-26).
 *
 * <p>A session token is {@code 1.<id>.<key id>.<renewed at>.<mac>}: a random 128-bit session id,
 * the access key's id (base64url), the time it was last renewed (epoch milliseconds) and an
 * HMAC-SHA256 over them and a digest of the key's secret, under the console's session key: 256
 * random bits kept in the store's {@link SystemRecords} under {@value #KEY_RECORD} (made on the
 * first start, the same on every server sharing the store, as the receipt key). So a token no
 * server of the cluster signed, or one changed in any byte, is no session; a key given a new secret
 * ends its sessions.
 *
 * <p>What cannot be in the cookie is checked on every request: the key must still exist (revoking
 * it ends its sessions at once), and the session must not be signed out: sign-out stores {@code
 * console/signed-out/<id>} in the store until the session could no longer be live anyway ({@link
 * Console#IDLE} later); expired records are deleted at the next sign-out. The CSRF token is derived
 * from the session id under the session key, so it needs no storage either.
 *
 * <p>A session ends after {@link Console#IDLE} without a request: a request {@link #RENEW} or more
 * after the last renewal is answered a renewed cookie.
 */
final class ConsoleSessions {

  /** The system record that holds the console's session key. */
  static final String KEY_RECORD = "server/console-session-key";

  /** The prefix of the records of signed-out sessions. */
  static final String SIGNED_OUT = "console/signed-out/";

  /** A session's cookie is renewed (its idle time restarts) by a request this long after. */
  static final Duration RENEW = Duration.ofMinutes(1);

  private static final int KEY_BYTES = 32;
  private static final int MAX_TOKEN = 1024;
  private static final String VERSION = "1";
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

  /** A live session: its key, its id and CSRF token, and a renewed token to send back, if any. */
  record Session(Principal principal, String id, String csrf, Optional<String> renewed) {
    String keyId() {
      return principal.keyId();
    }
  }

  /** A new session's cookie value and its CSRF token. */
  record Opened(String token, String csrf) {}

  private final SystemRecords store;
  private final TimeSource clock;
  private final SecretKeySpec key;

  private ConsoleSessions(SystemRecords store, TimeSource clock, byte[] key) {
    this.store = store;
    this.clock = clock;
    this.key = new SecretKeySpec(key, "HmacSHA256");
  }

  /**
   * The sessions of {@code store}: its session key, made and stored first if there is none (of
   * servers starting together, all end up with the one stored first).
   *
   * @throws IllegalStateException when the stored record is not a key (the store is damaged)
   */
  static ConsoleSessions load(SystemRecords store, TimeSource clock) {
    byte[] fresh = new byte[KEY_BYTES];
    RANDOM.nextBytes(fresh);
    byte[] stored = store.putIfAbsent(KEY_RECORD, fresh);
    if (stored.length != KEY_BYTES) {
      throw new IllegalStateException(
          "the system record "
              + KEY_RECORD
              + " holds "
              + stored.length
              + " bytes, not a "
              + KEY_BYTES
              + "-byte key: the store is damaged; delete the record to make a new key (every"
              + " console session then ends)");
    }
    return new ConsoleSessions(store, clock, stored);
  }

  /** A new session of {@code principal}, renewed now. */
  Opened open(Principal principal) {
    byte[] id = new byte[16];
    RANDOM.nextBytes(id);
    String sessionId = B64.encodeToString(id);
    return new Opened(token(sessionId, principal, clock.millis()), csrf(sessionId));
  }

  /**
   * The session {@code token} names, if live (see the class comment); keys are read from {@code
   * keys}.
   */
  Optional<Session> live(String token, KeyRing keys) {
    if (token.length() > MAX_TOKEN) {
      return Optional.empty();
    }
    String[] parts = token.split("\\.", -1);
    if (parts.length != 5 || !parts[0].equals(VERSION)) {
      return Optional.empty();
    }
    String sessionId = parts[1];
    String keyId;
    long renewedAt;
    try {
      keyId = new String(Base64.getUrlDecoder().decode(parts[2]), StandardCharsets.UTF_8);
      renewedAt = Long.parseLong(parts[3]);
    } catch (IllegalArgumentException malformed) {
      return Optional.empty();
    }
    Optional<Principal> principal = keys.find(keyId);
    if (principal.isEmpty()) {
      return Optional.empty(); // revoked: its sessions end
    }
    String expected = mac(sessionId, parts[2], parts[3], principal.get());
    if (!MessageDigest.isEqual(
        expected.getBytes(StandardCharsets.US_ASCII),
        parts[4].getBytes(StandardCharsets.US_ASCII))) {
      return Optional.empty();
    }
    long now = clock.millis();
    if (now - renewedAt > Console.IDLE.toMillis() || renewedAt > now + RENEW.toMillis()) {
      return Optional.empty();
    }
    if (store.get(SIGNED_OUT + sessionId).isPresent()) {
      return Optional.empty();
    }
    Optional<String> renewed =
        now - renewedAt >= RENEW.toMillis()
            ? Optional.of(token(sessionId, principal.get(), now))
            : Optional.empty();
    return Optional.of(new Session(principal.get(), sessionId, csrf(sessionId), renewed));
  }

  /**
   * Signs out the session {@code token} names, if live, for every server sharing the store; deletes
   * the records of sign-outs whose sessions could no longer be live anyway.
   */
  void close(String token, KeyRing keys) {
    Optional<Session> live = live(token, keys);
    long now = clock.millis();
    if (live.isPresent()) {
      long until = now + Console.IDLE.toMillis() + RENEW.toMillis();
      store.put(
          SIGNED_OUT + live.get().id(), Long.toString(until).getBytes(StandardCharsets.US_ASCII));
    }
    for (Map.Entry<String, byte[]> e : store.list(SIGNED_OUT).entrySet()) {
      if (expiredAt(e.getValue()) < now) {
        store.delete(e.getKey());
      }
    }
  }

  private static long expiredAt(byte[] value) {
    try {
      return Long.parseLong(new String(value, StandardCharsets.US_ASCII));
    } catch (NumberFormatException damaged) {
      return 0; // not ours to keep
    }
  }

  private String token(String sessionId, Principal principal, long renewedAt) {
    String keyId = B64.encodeToString(principal.keyId().getBytes(StandardCharsets.UTF_8));
    String at = Long.toString(renewedAt);
    return String.join(".", VERSION, sessionId, keyId, at, mac(sessionId, keyId, at, principal));
  }

  private String mac(String sessionId, String keyId, String renewedAt, Principal principal) {
    return hmac(
        "session\n"
            + sessionId
            + "\n"
            + keyId
            + "\n"
            + renewedAt
            + "\n"
            + B64.encodeToString(sha256(principal.secret())));
  }

  private String csrf(String sessionId) {
    return hmac("csrf\n" + sessionId);
  }

  private String hmac(String text) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      return B64.encodeToString(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  @Override
  public String toString() {
    return "ConsoleSessions[key hidden]";
  }
}
