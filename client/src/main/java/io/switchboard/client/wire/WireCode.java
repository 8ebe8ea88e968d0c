package io.switchboard.client.wire;

import io.switchboard.queue.ErrorCode;

/**
 * The error codes of the wire itself, raised before any engine is asked anything: the JSON of a
 * request is not JSON, names a field the route does not know, or has the wrong shape. They answer
 * 400 in the API's one error shape and stand in {@code docs/api.md} beside the engine's {@link
 * ErrorCode}s; {@link #INVALID_ARGUMENT} is the engine's code of the same name, so a client
 * switches on one name whichever side found the problem.
 */
public enum WireCode {
  /** The body is not JSON, has a duplicate key or trailing text. */
  MALFORMED_JSON,
  /** A body field the route does not know; the message lists the known ones. */
  UNKNOWN_FIELD,
  /** A field is missing, of the wrong type or out of range ({@link ErrorCode#INVALID_ARGUMENT}). */
  INVALID_ARGUMENT
}
