package io.switchboard.queue;

/**
 * What one answer may still carry of message bodies and attributes ({@link
 * QueueLimits#maxAnswerBytes}): a receive stops taking messages before it would pass it, and always
 * takes at least one.
 */
final class AnswerBudget {

  private long left;
  private boolean any;

  AnswerBudget(long maxBytes) {
    this.left = maxBytes;
  }

  /** Whether {@code m} fits (the first always does); if so, it is charged. */
  boolean fits(StoredMessage m) {
    long size = m.body.length + AttributeMap.bytes(m.attributes);
    if (any && size > left) {
      return false;
    }
    left -= size;
    any = true;
    return true;
  }
}
