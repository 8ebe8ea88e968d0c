package io.switchboard.routing;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The one exception type of the routing API. Every instance carries a stable {@link
 * RoutingErrorCode} and a message that says what was wrong, what is allowed, and the value given.
 * An operation that throws has changed nothing.
 */
public final class RoutingException extends RuntimeException {

  private final RoutingErrorCode code;

  RoutingException(RoutingErrorCode code, String message) {
    super(message);
    this.code = Objects.requireNonNull(code, "code");
  }

  RoutingException(RoutingErrorCode code, String message, @Nullable Throwable cause) {
    super(message, cause);
    this.code = Objects.requireNonNull(code, "code");
  }

  public RoutingErrorCode code() {
    return code;
  }

  /** The store behind a durable router could not take a write; for journal implementations. */
  public static RoutingException unavailable(String message, @Nullable Throwable cause) {
    return new RoutingException(RoutingErrorCode.UNAVAILABLE, message, cause);
  }

  /**
   * CONTACT_NOT_FOUND for {@code contactId}: what the router answers for a contact it does not
   * have, and what a server answers an agent's key for another agent's contact, which it must not
   * tell apart.
   */
  public static RoutingException contactNotFound(String contactId) {
    return new RoutingException(
        RoutingErrorCode.CONTACT_NOT_FOUND, "contact '" + contactId + "' does not exist");
  }

  /** RESERVATION_NOT_FOUND for {@code reservationId}, as {@link #contactNotFound}. */
  public static RoutingException reservationNotFound(String reservationId) {
    return new RoutingException(
        RoutingErrorCode.RESERVATION_NOT_FOUND,
        "reservation '" + reservationId + "' does not exist");
  }

  static RoutingException invalid(String message) {
    return new RoutingException(RoutingErrorCode.INVALID_ARGUMENT, message);
  }

  static RoutingException state(String message) {
    return new RoutingException(RoutingErrorCode.INVALID_STATE, message);
  }
}
