package io.switchboard.queue.spi;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Builds the {@link Message} an engine shows from what it stores, with the conventions of {@link
 * MessageRecord}: times in epoch milliseconds, 0 for "never received", null for none.
 */
public final class Messages {

  private Messages() {}

  /**
   * The message as shown, from the part that never changes and the {@link
   * MessageRecord.StateRecord} (of which the engine's {@code state}, {@code leaseEpoch} and {@code
   * leasedAt} are not shown: {@code state} is shown as {@code shownState}). {@code visibleAt} is
   * shown only for a {@code DELAYED} or {@code IN_FLIGHT} message (when it becomes available);
   * {@code receipt} only on a receive. A field of the state reaches every store's view through
   * here, so a new one is written once, below.
   */
  public static Message view(
      String id,
      byte[] body,
      Map<String, AttributeValue> attributes,
      @Nullable String groupId,
      @Nullable String dedupId,
      long sentAt,
      MessageRecord.StateRecord s,
      MessageState shownState,
      @Nullable String receipt) {
    boolean timed = shownState == MessageState.DELAYED || shownState == MessageState.IN_FLIGHT;
    return new Message(
        id,
        new String(body, StandardCharsets.UTF_8),
        attributes,
        s.priority(),
        Optional.ofNullable(groupId),
        Optional.ofNullable(dedupId),
        s.seq(),
        shownState,
        Instant.ofEpochMilli(sentAt),
        s.firstReceivedAt() == 0
            ? Optional.empty()
            : Optional.of(Instant.ofEpochMilli(s.firstReceivedAt())),
        s.receiveCount(),
        timed ? Optional.of(Instant.ofEpochMilli(s.visibleAt())) : Optional.empty(),
        Instant.ofEpochMilli(s.expiresAt()),
        Optional.ofNullable(receipt),
        Optional.ofNullable(s.deadLetterSource()));
  }

  /**
   * The journal's state ({@link MessageRecord#DELAYED}, {@link MessageRecord#AVAILABLE}, {@link
   * MessageRecord#IN_FLIGHT}) of a message shown as {@code shown}: for a store that keeps no such
   * byte and makes a {@link MessageRecord.StateRecord} to show a message. A state past the queue
   * (completed, failed, dead-lettered) is {@code AVAILABLE}: it is neither timed nor leased.
   */
  public static byte storedState(MessageState shown) {
    return switch (shown) {
      case DELAYED -> MessageRecord.DELAYED;
      case IN_FLIGHT -> MessageRecord.IN_FLIGHT;
      default -> MessageRecord.AVAILABLE;
    };
  }
}
