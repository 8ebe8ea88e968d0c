package io.switchboard.server.security;

import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.switchboard.queue.spi.SystemRecords;
import io.switchboard.server.auth.Audit;
import io.switchboard.server.http.Call;
import io.switchboard.server.http.HttpError;
import io.switchboard.time.Clock;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * The server-to-server credential of a routing call a follower forwards to the routing leader of a
 * PostgreSQL cluster ({@link io.switchboard.server.cluster.RoutingForwarder}). The follower has
 * authenticated the call already (any scheme: Basic, SigV4, a client certificate); a SigV4
 * signature could not be checked again at the leader (it covers the follower's host), so the
 * follower does not pass the client's credentials on. It sends instead the key id it admitted the
 * call as, and an HMAC-SHA256, under a key only the servers of the cluster hold, over that key id,
 * the method, the path and query, the body's hash, the follower's id and the time. The leader
 * trusts the key id only with a valid HMAC made within {@link #MAX_AGE}, looks the key up in its
 * own ring (a key revoked is refused there too) and checks its grants as for any call.
 *
 * <p>The key is 256 random bits in the engine's store ({@value #RECORD}), made by the first server
 * of a store and read by every other: the same on every server of a cluster, never configured,
 * never sent. A call can be replayed within {@link #MAX_AGE} by whoever sees it on the network
 * between servers, as a Basic or SigV4 request can: use TLS between servers that cross an untrusted
 * network ({@code docs/security.md}).
 */
public final class ForwardedCalls {

  /** The system record that holds the key. */
  static final String RECORD = "server/forwarding-key";

  /** The id of the follower that forwarded a call, on the forwarded request. */
  public static final String FORWARDED_BY = "X-Switchboard-Forwarded-By";

  /** The key id the follower admitted the call as; absent when it checked nothing (keyless). */
  public static final String PRINCIPAL = "X-Switchboard-Forwarded-Key";

  /** When the follower forwarded the call, in epoch milliseconds. */
  public static final String AT = "X-Switchboard-Forwarded-At";

  /** The HMAC, hex. */
  public static final String SIGNATURE = "X-Switchboard-Forward-Signature";

  /** How far a forwarded call's time may be from the leader's clock. */
  static final Duration MAX_AGE = Duration.ofMinutes(5);

  private static final SecureRandom RANDOM = new SecureRandom();

  private final Clock clock;
  private volatile byte @Nullable [] key;

  public ForwardedCalls(Clock clock) {
    this.clock = clock;
  }

  /** Reads the key from the store, made and stored first by the first server of the store. */
  public void attach(SystemRecords records) {
    byte[] fresh = new byte[32];
    RANDOM.nextBytes(fresh);
    key = records.putIfAbsent(RECORD, fresh);
  }

  /**
   * The headers that carry {@code keyId} (empty: the follower is keyless) with a forwarded call.
   *
   * @throws HttpError 503 when this server has no key (its engine keeps no records)
   */
  public Map<String, String> headers(
      String method, String pathAndQuery, Optional<String> keyId, String forwardedBy, byte[] body) {
    byte[] k = key;
    if (k == null) {
      throw new HttpError(
          503,
          "UNAVAILABLE",
          "this server has no forwarding key yet (its engine is not open): retry");
    }
    String at = Long.toString(clock.millis());
    Map<String, String> h = new LinkedHashMap<>();
    keyId.ifPresent(id -> h.put(PRINCIPAL, id));
    h.put(AT, at);
    h.put(
        SIGNATURE,
        HexFormat.of()
            .formatHex(mac(k, method, pathAndQuery, keyId.orElse(""), forwardedBy, at, body)));
    return h;
  }

  /** {@link #SIGNATURE} as Helidon names it, made once: it is looked for on every keyed call. */
  private static final HeaderName SIGNATURE_NAME = HeaderNames.create(SIGNATURE);

  /** Whether {@code call} says it was forwarded by a server of the cluster (it may be forged). */
  static boolean claimed(Call call) {
    return call.request().headers().contains(SIGNATURE_NAME);
  }

  /**
   * The key id a forwarded call was admitted as by the follower, once its HMAC is checked: empty
   * when the follower admitted it without a key (keyless).
   *
   * @throws HttpError 401 {@code UNAUTHENTICATED} when the HMAC is missing, wrong or too old
   */
  Optional<String> verify(Call call) {
    String claimedKey = call.header(PRINCIPAL).orElse("");
    String signature = call.header(SIGNATURE).orElse("");
    String at = call.header(AT).orElse("");
    String forwardedBy = call.header(FORWARDED_BY).orElse("");
    byte[] k = key;
    long sent;
    try {
      sent = Long.parseLong(at);
    } catch (NumberFormatException e) {
      throw refused(call, claimedKey, AT + " must be epoch milliseconds, got '" + at + "'");
    }
    if (Math.abs(clock.millis() - sent) > MAX_AGE.toMillis()) {
      throw refused(
          call,
          claimedKey,
          "the forwarded call was signed at "
              + sent
              + ", more than "
              + MAX_AGE.toMinutes()
              + " minutes from this server's clock (are the servers' clocks in step?)");
    }
    var req = call.request();
    String query = req.query().rawValue();
    String pathAndQuery =
        req.path().rawPath() + (query == null || query.isEmpty() ? "" : "?" + query);
    byte[] given;
    try {
      given = HexFormat.of().parseHex(signature);
    } catch (IllegalArgumentException e) {
      given = new byte[0];
    }
    if (k == null
        || !MessageDigest.isEqual(
            given,
            mac(
                k,
                req.prologue().method().text(),
                pathAndQuery,
                claimedKey,
                forwardedBy,
                at,
                call.bytes()))) {
      throw refused(
          call,
          claimedKey,
          "the forwarded call's server signature ("
              + SIGNATURE
              + ") does not match: only servers sharing this server's store may forward calls");
    }
    return claimedKey.isEmpty() ? Optional.empty() : Optional.of(claimedKey);
  }

  private static HttpError refused(Call call, String keyId, String message) {
    Audit.refused(keyId.isEmpty() ? Audit.ANONYMOUS : keyId, null, 401, call.requestId(), message);
    return new HttpError(
        401, "UNAUTHENTICATED", message, Map.of("WWW-Authenticate", Authentication.CHALLENGE));
  }

  private static byte[] mac(
      byte[] key,
      String method,
      String pathAndQuery,
      String keyId,
      String forwardedBy,
      String at,
      byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      byte[] bodyHash = MessageDigest.getInstance("SHA-256").digest(body);
      String text =
          "switchboard-forward-v1\n"
              + method
              + "\n"
              + pathAndQuery
              + "\n"
              + keyId
              + "\n"
              + forwardedBy
              + "\n"
              + at
              + "\n"
              + HexFormat.of().formatHex(bodyHash);
      return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 and SHA-256 are part of every JDK", e);
    }
  }
}
