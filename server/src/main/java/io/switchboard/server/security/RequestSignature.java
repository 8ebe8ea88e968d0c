package io.switchboard.server.security;

import io.switchboard.routing.CallbackSecret;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The signature on every request the server sends to a URL its users give it (assignment callbacks,
 * push subscriptions; {@code docs/routing.md}, "Assignment callbacks"): the header {@value
 * #HEADER}: {@code t=<unix seconds>,v1=<lower-case hex HMAC-SHA256 of "t." + body>}, keyed with the
 * secret's UTF-8 bytes. One scheme, so one receiver check serves both.
 */
public final class RequestSignature {

  /** The header that carries the signature. */
  public static final String HEADER = "X-Switchboard-Signature";

  private RequestSignature() {}

  /** {@code t=<seconds>,v1=<hex HMAC-SHA256 over "<seconds>." + body>}. */
  public static String sign(CallbackSecret secret, long seconds, byte[] body) {
    return sign(mac(secret), seconds, body);
  }

  /**
   * Signs many requests with one secret: the key is set up once, each signature starts from a copy
   * of it. Safe from any thread.
   */
  public static Signer signer(CallbackSecret secret) {
    return new Signer(mac(secret));
  }

  /** {@link #sign} with a key set up once ({@link #signer}). */
  public static final class Signer {
    private final Mac keyed;

    private Signer(Mac keyed) {
      this.keyed = keyed;
    }

    /** As {@link RequestSignature#sign}. */
    public String sign(long seconds, byte[] body) {
      Mac mac;
      try {
        mac = (Mac) keyed.clone();
      } catch (CloneNotSupportedException e) {
        throw new IllegalStateException("the JDK's HmacSHA256 can be copied", e);
      }
      return RequestSignature.sign(mac, seconds, body);
    }
  }

  private static Mac mac(CallbackSecret secret) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.value().getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  private static String sign(Mac mac, long seconds, byte[] body) {
    mac.update((seconds + ".").getBytes(StandardCharsets.US_ASCII));
    return "t=" + seconds + ",v1=" + HexFormat.of().formatHex(mac.doFinal(body));
  }
}
