package io.switchboard.routing;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Objects;

/**
 * A workspace's assignment-callback secret: the key of the HMAC-SHA256 signature on every callback
 * the server sends for the workspace's workflows ({@code docs/routing.md}, "Assignment callbacks").
 * Made by the server (32 random bytes, base64url), shown once when made, never in an answer after;
 * {@link #toString()} hides it, so a definition that is logged does not leak it.
 *
 * @param value the secret, 16..200 characters; the signature's key is its UTF-8 bytes
 */
public record CallbackSecret(String value) {

  private static final SecureRandom RANDOM = new SecureRandom();

  public CallbackSecret {
    Objects.requireNonNull(value, "value");
    if (value.length() < 16 || value.length() > 200) {
      throw RoutingException.invalid(
          "a callback secret has 16..200 characters, got " + value.length());
    }
  }

  /** A new random secret. */
  public static CallbackSecret generate() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return new CallbackSecret(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
  }

  @Override
  public String toString() {
    return "CallbackSecret[redacted]";
  }
}
