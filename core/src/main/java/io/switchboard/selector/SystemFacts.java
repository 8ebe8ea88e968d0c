package io.switchboard.selector;

import java.util.Set;

/**
 * Reserved identifiers through which a selector reads facts about a message rather than its
 * attributes. The selector knows nothing of queues: it resolves these names through {@link
 * Attributes} like any other, and the caller (the queue, the router) binds them. Every name that
 * starts with {@value #PREFIX} is reserved for such facts, so user attributes never shadow them.
 */
public final class SystemFacts {

  /** Names with this prefix are reserved for system facts. */
  public static final String PREFIX = "sys.";

  /** The message priority, a number. */
  public static final String PRIORITY = "sys.priority";

  /** The message group id, a string; absent for messages outside a group. */
  public static final String GROUP_ID = "sys.groupId";

  /** Seconds since the message was sent, a number. */
  public static final String AGE = "sys.age";

  /** How many times the message has been received, a number. */
  public static final String RECEIVE_COUNT = "sys.receiveCount";

  /** When the message was sent, in milliseconds since the epoch. */
  public static final String SENT_AT = "sys.sentAt";

  private static final Set<String> NAMES = Set.of(PRIORITY, GROUP_ID, AGE, RECEIVE_COUNT, SENT_AT);

  private SystemFacts() {}

  /** The system facts defined today. */
  public static Set<String> names() {
    return NAMES;
  }

  /** Whether {@code name} lies in the reserved {@value #PREFIX} namespace. */
  public static boolean isReserved(String name) {
    return name.startsWith(PREFIX);
  }
}
