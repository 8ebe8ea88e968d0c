package io.switchboard.routing;

/**
 * The life of a contact: {@code QUEUED → OFFERED → ASSIGNED → WRAP_UP → COMPLETED}, with {@code
 * OFFERED → QUEUED} when an offer is rejected, missed or cancelled, and the end states {@code
 * ABANDONED} (the caller left), {@code TIMED_OUT} (waited longer than its maximum wait) and {@code
 * CANCELLED} (a supervisor removed it).
 */
public enum ContactState {
  QUEUED,
  OFFERED,
  ASSIGNED,
  WRAP_UP,
  COMPLETED,
  ABANDONED,
  TIMED_OUT,
  /** A supervisor cancelled it while it waited (queued or offered). */
  CANCELLED;

  /** Whether the contact is over: completed, abandoned, timed out or cancelled. */
  public boolean isFinal() {
    return this == COMPLETED || this == ABANDONED || this == TIMED_OUT || this == CANCELLED;
  }
}
