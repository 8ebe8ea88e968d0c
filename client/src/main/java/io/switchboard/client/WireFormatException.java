package io.switchboard.client;

import java.util.Objects;

/**
 * A JSON document that does not have the shape the native API expects: a field of the wrong type, a
 * field nobody knows, a body that is not an object. The code is one of the API's HTTP-level error
 * codes ({@code INVALID_ARGUMENT}, {@code UNKNOWN_FIELD}, {@code MALFORMED_JSON}).
 */
public final class WireFormatException extends RuntimeException {

  private final String code;

  public WireFormatException(String code, String message) {
    super(message);
    this.code = Objects.requireNonNull(code, "code");
  }

  public String code() {
    return code;
  }
}
