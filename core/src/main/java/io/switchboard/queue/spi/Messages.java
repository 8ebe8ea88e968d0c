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
 * Builds the {@link Message} an engine shows from the fields it stores, with the conventions of
 * {@link MessageRecord}: times in epoch milliseconds, 0 for "never received", null for none.
 */
public final class Messages {

  private Messages() {}

  /**
   * The message as shown. {@code visibleAt} is shown only for a {@code DELAYED} or {@code
   * IN_FLIGHT} message (when it becomes available); {@code receipt} only on a receive.
   */
  public static Message view(
      String id,
      byte[] body,
      Map<String, AttributeValue> attributes,
      int priority,
      @Nullable String groupId,
      @Nullable String dedupId,
      long seq,
      MessageState state,
      long sentAt,
      long firstReceivedAt,
      int receiveCount,
      long visibleAt,
      long expiresAt,
      @Nullable String receipt,
      @Nullable String deadLetterSource) {
    boolean timed = state == MessageState.DELAYED || state == MessageState.IN_FLIGHT;
    return new Message(
        id,
        new String(body, StandardCharsets.UTF_8),
        attributes,
        priority,
        Optional.ofNullable(groupId),
        Optional.ofNullable(dedupId),
        seq,
        state,
        Instant.ofEpochMilli(sentAt),
        firstReceivedAt == 0
            ? Optional.empty()
            : Optional.of(Instant.ofEpochMilli(firstReceivedAt)),
        receiveCount,
        timed ? Optional.of(Instant.ofEpochMilli(visibleAt)) : Optional.empty(),
        Instant.ofEpochMilli(expiresAt),
        Optional.ofNullable(receipt),
        Optional.ofNullable(deadLetterSource));
  }
}
