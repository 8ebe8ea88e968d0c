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
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.value().getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      mac.update((seconds + ".").getBytes(StandardCharsets.US_ASCII));
      return "t=" + seconds + ",v1=" + HexFormat.of().formatHex(mac.doFinal(body));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }
}
