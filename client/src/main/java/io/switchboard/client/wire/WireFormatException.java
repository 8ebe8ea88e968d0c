package io.switchboard.client.wire;

import java.util.Objects;

/**
 * A JSON document that does not have the shape the native API expects: a field of the wrong type, a
 * field nobody knows, a body that is not an object. Its code is one of the {@link WireCode}s.
 */
public final class WireFormatException extends RuntimeException {

  private final WireCode code;

  public WireFormatException(WireCode code, String message) {
    super(message);
    this.code = Objects.requireNonNull(code, "code");
  }

  /** The code as it goes on the wire ({@code "UNKNOWN_FIELD"}). */
  public String code() {
    return code.name();
  }

  public WireCode wireCode() {
    return code;
  }
}
