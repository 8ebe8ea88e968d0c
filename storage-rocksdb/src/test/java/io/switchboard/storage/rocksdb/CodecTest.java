package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Order;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.spi.JournalEntry;
import io.switchboard.queue.spi.MessageRecord;
import io.switchboard.queue.spi.MessageRecord.StateRecord;
import io.switchboard.testing.Components;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The queue encoding: metadata round-trips, and values written before it existed still read. The
 * message encoding (written and read field by field, in order): every component of a message's
 * record, changed alone, round-trips, so a field added to the record and left out of the codec
 * fails here.
 */
class CodecTest {

  @Test
  void queue_withMetadata_roundTrips() {
    QueueConfig config =
        QueueConfig.builder()
            .order(Order.LIFO)
            .indexedAttributes("region")
            .metadata(Map.of("sqs.tag.team", "blue", "sqs.Policy", "{\"Statement\":[]}"))
            .build();
    JournalEntry.QueuePut put = new JournalEntry.QueuePut("q", config, 1234L, 99L);
    assertEquals(put, Codec.queue(Codec.queue(put)));
  }

  @Test
  void queue_writtenBeforeMetadata_readsWithNone() {
    QueueConfig config = QueueConfig.builder().order(Order.LIFO).indexedAttributes("r").build();
    JournalEntry.QueuePut put = new JournalEntry.QueuePut("q", config, 1234L, 99L);
    byte[] encoded = Codec.queue(put);
    // A value of the first release ended before the 4-byte metadata count (0 here) and the
    // 4-byte limit per key after it (0 here).
    byte[] old = Arrays.copyOf(encoded, encoded.length - 8);
    JournalEntry.QueuePut read = Codec.queue(old);
    assertEquals(put, read);
    assertEquals(Map.of(), read.config().metadata());
  }

  @Test
  void queue_withAKeyLimit_roundTrips_andOneWrittenBeforeItReadsWithNone() {
    QueueConfig config = QueueConfig.builder().keyLimit(7).metadata(Map.of("k", "v")).build();
    JournalEntry.QueuePut put = new JournalEntry.QueuePut("q", config, 1234L, 99L);
    byte[] encoded = Codec.queue(put);
    assertEquals(put, Codec.queue(encoded));
    JournalEntry.QueuePut before = Codec.queue(Arrays.copyOf(encoded, encoded.length - 4));
    assertEquals(java.util.OptionalInt.empty(), before.config().keyLimit());
    assertEquals(Map.of("k", "v"), before.config().metadata());
  }

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
    return value instanceof Map<?, ?> ? Map.of("b", AttributeValue.string("y")) : null;
  }

  @Test
  void message_everyComponent_roundTrips() {
    Components.eachChanged(MESSAGE, CodecTest::other)
        .forEach(
            (name, m) -> {
              MessageRecord read =
                  Codec.message(Codec.body(m), Codec.state(Codec.state(m.stateRecord())));
              assertArrayEquals(m.body(), read.body(), name + " changed: body");
              assertEquals(m, withBody(read, m.body()), name + " changed");
            });
  }

  @Test
  void messageState_everyComponent_roundTrips() {
    Components.eachChanged(STATE, CodecTest::other)
        .forEach((name, s) -> assertEquals(s, Codec.state(Codec.state(s)), name + " changed"));
  }

  /** {@code m} with {@code body} (a record compares arrays by identity). */
  private static MessageRecord withBody(MessageRecord m, byte[] body) {
    return MessageRecord.of(
        m.serial(), m.sentAt(), body, m.attributes(), m.groupId(), m.dedupId(), m.stateRecord());
  }

  @Test
  void queuesWithEqualConfigurations_readBackSharingOne_andOthersGetTheirOwn() {
    QueueConfig lifo = QueueConfig.builder().order(Order.LIFO).indexedAttributes("r").build();
    Map<ByteBuffer, QueueConfig> seen = new HashMap<>();
    JournalEntry.QueuePut a =
        Codec.queue(Codec.queue(new JournalEntry.QueuePut("a", lifo, 1L, 2L)), seen);
    JournalEntry.QueuePut b =
        Codec.queue(Codec.queue(new JournalEntry.QueuePut("b", lifo, 3L, 4L)), seen);
    JournalEntry.QueuePut c =
        Codec.queue(
            Codec.queue(new JournalEntry.QueuePut("c", QueueConfig.defaults(), 5L, 6L)), seen);
    // each queue keeps its own name, creation time and receipt seed
    assertEquals(new JournalEntry.QueuePut("a", lifo, 1L, 2L), a);
    assertEquals(new JournalEntry.QueuePut("b", lifo, 3L, 4L), b);
    assertEquals(new JournalEntry.QueuePut("c", QueueConfig.defaults(), 5L, 6L), c);
    assertSame(a.config(), b.config(), "decoded once, held once");
    assertNotSame(a.config(), c.config());
    assertEquals(2, seen.size());
  }
}
