package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.queue.spi.MessageRecord;
import io.switchboard.queue.spi.MessageRecord.StateRecord;
import io.switchboard.queue.spi.Messages;
import io.switchboard.testing.Components;
import java.lang.reflect.Type;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The queue's in-memory message ({@link StoredMessage}) and the record a journal stores ({@link
 * MessageRecord}) are two forms of one message, converted by hand both ways ({@link
 * QueueJournal#record}, {@link QueueJournal#restore}, {@link QueueJournal#stateRecord}): every
 * component of the record, changed alone, survives the round trip, so a field added to the record
 * and left out of a conversion fails here.
 */
class MessageFormsTest {

  private static final StateRecord STATE =
      new StateRecord(7, 3, MessageRecord.AVAILABLE, 2, 5, 1_000, 9_000, 500, 800, "dlq-source");

  private static final MessageRecord MESSAGE =
      MessageRecord.of(
          42,
          100,
          new byte[] {1, 2, 3},
          Map.of("a", AttributeValue.string("x")),
          "group",
          "dedup",
          STATE);

  private static @Nullable Object other(Type type, @Nullable Object value) {
    if (value instanceof StateRecord) {
      return new StateRecord(8, 4, MessageRecord.IN_FLIGHT, 3, 6, 2_000, 10_000, 600, 900, null);
    }
    if (value instanceof byte[]) {
      return new byte[] {9};
    }
    if (value instanceof Map<?, ?>) {
      return Map.of("b", AttributeValue.string("y"));
    }
    return null;
  }

  @Test
  void everyComponentOfTheRecord_survivesTheStoredMessage() {
    Map<String, MessageRecord> changed = Components.eachChanged(MESSAGE, MessageFormsTest::other);
    changed.forEach(
        (name, r) ->
            assertEquals(r, QueueJournal.record(QueueJournal.restore(r)), name + " changed"));
  }

  @Test
  void everyComponentOfTheState_survivesTheStoredMessage() {
    Map<String, StateRecord> changed = Components.eachChanged(STATE, MessageFormsTest::other);
    changed.forEach(
        (name, s) -> {
          MessageRecord r = MESSAGE.with(s);
          assertEquals(r, QueueJournal.record(QueueJournal.restore(r)), name + " changed");
          assertEquals(s, QueueJournal.stateRecord(QueueJournal.restore(r)), name + " changed");
        });
  }

  /**
   * What every store shows ({@link Messages#view}): each component of the state, changed alone,
   * changes the message shown, but the three the engine keeps to itself.
   */
  @Test
  void everyShownComponentOfTheState_reachesTheMessageShown() {
    Set<String> notShown = Set.of("state", "leaseEpoch", "leasedAt");
    Message original = shown(STATE);
    Components.eachChanged(STATE, MessageFormsTest::other)
        .forEach(
            (name, s) ->
                assertEquals(
                    !notShown.contains(name),
                    !shown(s).equals(original),
                    name + (notShown.contains(name) ? " is not shown" : " is shown")));
  }

  private static Message shown(StateRecord s) {
    return Messages.view(
        "id",
        MESSAGE.body(),
        MESSAGE.attributes(),
        "group",
        "dedup",
        100,
        s,
        MessageState.IN_FLIGHT,
        "receipt");
  }
}
