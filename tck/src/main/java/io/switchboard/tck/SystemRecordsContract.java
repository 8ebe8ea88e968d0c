package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.spi.SystemRecords;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/**
 * The engine's {@link SystemRecords} (access keys, server secrets): put, get, delete and list by
 * prefix; kept across a restart by durable engines and seen at once by a second engine on the same
 * storage. Also the receipt key kept there: a receipt stays valid after a restart and on a peer.
 * Skipped for engines that keep no records (a remote client).
 */
public abstract class SystemRecordsContract extends EngineContract {

  private SystemRecords records;

  @BeforeEach
  final void records() {
    try {
      records = engine.systemRecords();
    } catch (UnsupportedOperationException e) {
      throw new TestAbortedException("this engine keeps no system records");
    }
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void put_thenGet_returnsTheValue() {
    records.put("key/a", b("one"));
    assertEquals("one", s(records.get("key/a").orElseThrow()));
    records.put("key/a", b("two"));
    assertEquals("two", s(records.get("key/a").orElseThrow()));
    assertTrue(records.get("key/none").isEmpty());
  }

  @Test
  void put_emptyAndBinaryValues_keptExactly() {
    byte[] binary = new byte[256];
    for (int i = 0; i < binary.length; i++) {
      binary[i] = (byte) i;
    }
    records.put("bin", binary);
    records.put("empty", new byte[0]);
    assertArrayEquals(binary, records.get("bin").orElseThrow());
    assertArrayEquals(new byte[0], records.get("empty").orElseThrow());
  }

  @Test
  void putIfAbsent_keepsTheFirstValue() {
    assertEquals("first", s(records.putIfAbsent("k", b("first"))));
    assertEquals("first", s(records.putIfAbsent("k", b("second"))));
    assertEquals("first", s(records.get("k").orElseThrow()));
  }

  @Test
  void delete_removesAndSaysWhetherThereWasOne() {
    records.put("k", b("v"));
    assertTrue(records.delete("k"));
    assertFalse(records.delete("k"));
    assertTrue(records.get("k").isEmpty());
  }

  @Test
  void list_prefix_returnsOnlyThoseSortedByKey() {
    records.put("key/b", b("2"));
    records.put("key/a", b("1"));
    records.put("keyz", b("x"));
    records.put("other/a", b("o"));
    SortedMap<String, byte[]> keys = records.list("key/");
    assertEquals(List.of("key/a", "key/b"), List.copyOf(keys.keySet()));
    assertEquals("2", s(Objects.requireNonNull(keys.get("key/b"))));
    assertTrue(records.list("").keySet().containsAll(List.of("key/a", "keyz", "other/a")));
    assertTrue(records.list("nothing/").isEmpty());
  }

  @Test
  void put_badKeyOrValue_invalidArgumentAndNothingStored() {
    for (String bad : new String[] {"", "x".repeat(SystemRecords.MAX_KEY_LENGTH + 1), "a\nb"}) {
      QueueException e = assertThrows(QueueException.class, () -> records.put(bad, b("v")));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    }
    QueueException e =
        assertThrows(
            QueueException.class,
            () -> records.put("big", new byte[SystemRecords.MAX_VALUE_BYTES + 1]));
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(records.get("big").isEmpty());
  }

  @Test
  void returnedArrays_areCopies() {
    byte[] value = b("abc");
    records.put("k", value);
    value[0] = 'z';
    records.get("k").orElseThrow()[1] = 'z';
    assertEquals("abc", s(records.get("k").orElseThrow()));
  }

  @Test
  void restart_keepsRecordsAndDeletes() {
    records.put("key/a", b("1"));
    records.put("key/b", b("2"));
    records.delete("key/b");
    engine = track(restart(engine));
    SystemRecords after = engine.systemRecords();
    assertEquals("1", s(after.get("key/a").orElseThrow()));
    assertTrue(after.get("key/b").isEmpty());
  }

  @Test
  void restart_receiptIssuedBefore_stillAcks() {
    create("q");
    send("q", "m");
    Message m = receiveOne("q");
    engine = track(restart(engine));
    engine.ack("q", receipt(m));
    assertNothingToReceive("q");
  }

  @Test
  void peer_seesARecordAtOnce() {
    QueueEngine other = track(peer(engine));
    records.put("key/a", b("1"));
    assertEquals("1", s(other.systemRecords().get("key/a").orElseThrow()));
    other.systemRecords().delete("key/a");
    assertTrue(records.get("key/a").isEmpty());
  }

  @Test
  void peer_acceptsAReceiptIssuedByTheOther() {
    QueueEngine other = track(peer(engine));
    create("q");
    send("q", "m");
    Message m = receiveOne("q");
    other.ack("q", receipt(m));
    assertNothingToReceive("q");
  }
}
