package io.switchboard.queue;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The one exception type of the queue API. Every instance carries a stable {@link ErrorCode} and a
 * message that says what was wrong, what is allowed, and the value given. An operation that throws
 * has changed nothing.
 */
public class QueueException extends RuntimeException {

  private final ErrorCode code;

  public QueueException(ErrorCode code, String message) {
    super(message);
    this.code = Objects.requireNonNull(code, "code");
  }

  public QueueException(ErrorCode code, String message, @Nullable Throwable cause) {
    super(message, cause);
    this.code = Objects.requireNonNull(code, "code");
  }

  public ErrorCode code() {
    return code;
  }

  /** INVALID_ARGUMENT: the message says what was wrong, what is allowed, and the value given. */
  public static QueueException invalid(String message) {
    return new QueueException(ErrorCode.INVALID_ARGUMENT, message);
  }

  /** QUEUE_NOT_FOUND, in the words every engine uses. */
  public static QueueException queueNotFound(@Nullable String name) {
    return new QueueException(ErrorCode.QUEUE_NOT_FOUND, "queue '" + name + "' does not exist");
  }

  /** MESSAGE_NOT_FOUND, in the words every engine uses. */
  public static QueueException messageNotFound(String queue, String id) {
    return new QueueException(
        ErrorCode.MESSAGE_NOT_FOUND, "message '" + id + "' is not in queue '" + queue + "'");
  }
}
