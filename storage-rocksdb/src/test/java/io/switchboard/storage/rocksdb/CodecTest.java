package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.switchboard.queue.Order;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.spi.JournalEntry;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The queue encoding: metadata round-trips, and values written before it existed still read. */
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
    // A value of the first release ended before the 4-byte metadata count (0 here).
    byte[] old = Arrays.copyOf(encoded, encoded.length - 4);
    JournalEntry.QueuePut read = Codec.queue(old);
    assertEquals(put, read);
    assertEquals(Map.of(), read.config().metadata());
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
