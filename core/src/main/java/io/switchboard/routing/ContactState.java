package io.switchboard.routing;

/**
 * The life of a contact: {@code QUEUED → OFFERED → ASSIGNED → WRAP_UP → COMPLETED}, with {@code
 * OFFERED → QUEUED} when an offer is rejected, missed or cancelled, and the end states {@code
 * ABANDONED} (the caller left) and {@code TIMED_OUT} (waited longer than its maximum wait).
 */
public enum ContactState {
  QUEUED,
  OFFERED,
  ASSIGNED,
  WRAP_UP,
  COMPLETED,
  ABANDONED,
  TIMED_OUT;

  /** Whether the contact is over: completed, abandoned or timed out. */
  public boolean isFinal() {
    return this == COMPLETED || this == ABANDONED || this == TIMED_OUT;
  }
}
