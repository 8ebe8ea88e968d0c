package io.switchboard.tck.model;

import io.switchboard.queue.ErrorCode;

/** The model refuses an operation, with the error code an engine must give. */
public final class ModelRefusal extends RuntimeException {

  private final ErrorCode code;

  ModelRefusal(ErrorCode code, String message) {
    super(code + ": " + message, null, false, false);
    this.code = code;
  }

  public ErrorCode code() {
    return code;
  }
}
