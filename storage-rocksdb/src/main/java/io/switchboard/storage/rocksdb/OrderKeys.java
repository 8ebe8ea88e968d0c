package io.switchboard.storage.rocksdb;

import io.switchboard.internal.Bytes;
import io.switchboard.queue.spi.MessageRecord;
import io.switchboard.queue.spi.Partitions;
import io.switchboard.queue.spi.Place;
import io.switchboard.queue.spi.QueueRules;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The keys of the {@code orders} column family (docs/design.md, "A backlog bigger than memory"):
 * {@code queue, 0x00, kind, fields...}, with empty values. Numbers are big-endian with the sign bit
 * flipped, so RocksDB's unsigned byte order is their numeric order; a priority is stored inverted,
 * so higher priorities sort first.
 *
 * <ul>
 *   <li>{@code A} available (any queue): priority', seq, serial — delivery order; FIFO reads
 *       forward, LIFO reads each priority band backwards (a grouped queue's browse order).
 *   <li>{@code G} group line (grouped queue, any state): group id, 0x00, seq, serial.
 *   <li>{@code T} delayed: visibleAt, serial.
 *   <li>{@code D} delayed (standard queue): priority', seq, serial — the delayed messages in
 *       delivery order, read as {@code A} is (a browse that shows them, a redrive's snapshot).
 *   <li>{@code L} in flight: serial.
 *   <li>{@code X} expiry (every message): expiresAt, serial.
 *   <li>{@code R} arrival (every message): sentAt, serial.
 *   <li>{@code P} partition line (available, standard queue with indexed attributes): partition
 *       ({@link io.switchboard.queue.spi.Partitions}), 0x00, priority', seq, serial — each
 *       partition's delivery order, read as {@code A} is.
 *   <li>{@code F} tenant line (available, standard queue, with a group id): group id, 0x00,
 *       priority', seq, serial — each tenant's delivery order in a fair queue, read as {@code A}
 *       is.
 * </ul>
 */
final class OrderKeys {

  static final byte AVAILABLE = 'A';
  static final byte GROUP = 'G';
  static final byte DELAYED = 'T';
  static final byte DELAYED_IN_ORDER = 'D';
  static final byte IN_FLIGHT = 'L';
  static final byte EXPIRY = 'X';
  static final byte ARRIVAL = 'R';
  static final byte PARTITION = 'P';
  static final byte TENANT = 'F';

  /**
   * Counter keys: {@code C} then {@code a}, {@code d}, {@code f} (available, delayed, in flight),
   * {@code p} and the inverted priority, {@code q} and a partition (its available messages), or
   * {@code t} and a group id (a standard queue's tenant: its available messages); values are 8-byte
   * little-endian counts changed by merges ({@code UInt64AddOperator}).
   */
  static final byte COUNTER = 'C';

  private OrderKeys() {}

  /** Every key of {@code place} for message {@code serial} of {@code queue}; none for null. */
  static List<byte[]> of(String queue, long serial, @Nullable Place place) {
    if (place == null) {
      return List.of();
    }
    List<byte[]> keys = new ArrayList<>(4);
    boolean grouped = QueueRules.isGrouped(queue);
    switch (place.state()) {
      case MessageRecord.AVAILABLE -> {
        keys.add(key(AVAILABLE, queue, serial, place));
        if (!grouped && place.partition() != null) {
          keys.add(key(PARTITION, queue, serial, place));
        }
        if (!grouped && place.groupId() != null) {
          keys.add(key(TENANT, queue, serial, place));
        }
      }
      case MessageRecord.DELAYED -> {
        keys.add(key(DELAYED, queue, serial, place));
        if (!grouped) {
          keys.add(key(DELAYED_IN_ORDER, queue, serial, place));
        }
      }
      default -> keys.add(key(IN_FLIGHT, queue, serial, place));
    }
    if (grouped && place.groupId() != null) {
      keys.add(key(GROUP, queue, serial, place));
    }
    keys.add(key(EXPIRY, queue, serial, place));
    keys.add(key(ARRIVAL, queue, serial, place));
    return keys;
  }

  /**
   * The key of {@code kind} that a message at {@code place} has, or would have if its state gave it
   * one: where a read that goes on after that message starts.
   */
  static byte[] key(byte kind, String queue, long serial, Place place) {
    Bytes.Writer w = key(Codec.queuePrefix(queue), kind);
    switch (kind) {
      case AVAILABLE, DELAYED_IN_ORDER -> w.i(~flip(place.priority())).l(flip(place.seq()));
      case PARTITION ->
          w.raw(Partitions.bytes(String.valueOf(place.partition())))
              .b(0)
              .i(~flip(place.priority()))
              .l(flip(place.seq()));
      case TENANT ->
          w.raw(String.valueOf(place.groupId()).getBytes(StandardCharsets.UTF_8))
              .b(0)
              .i(~flip(place.priority()))
              .l(flip(place.seq()));
      case GROUP ->
          w.raw(String.valueOf(place.groupId()).getBytes(StandardCharsets.UTF_8))
              .b(0)
              .l(flip(place.seq()));
      case DELAYED -> w.l(flip(place.visibleAt()));
      case IN_FLIGHT -> {}
      case EXPIRY -> w.l(flip(place.expiresAt()));
      case ARRIVAL -> w.l(flip(place.sentAt()));
      default -> throw new IllegalArgumentException("no order key of kind " + (char) kind);
    }
    return w.l(flip(serial)).toArray();
  }

  /**
   * The counts {@code place} adds to its queue: the key of its state's counter and of its
   * priority's counter; none for null.
   */
  static List<byte[]> counters(String queue, @Nullable Place place) {
    if (place == null) {
      return List.of();
    }
    byte[] prefix = Codec.queuePrefix(queue);
    int state =
        switch (place.state()) {
          case MessageRecord.AVAILABLE -> 'a';
          case MessageRecord.DELAYED -> 'd';
          default -> 'f';
        };
    byte[] stateKey = key(prefix, COUNTER).b(state).toArray();
    byte[] priorityKey = key(prefix, COUNTER).b('p').i(~flip(place.priority())).toArray();
    if (place.state() != MessageRecord.AVAILABLE || QueueRules.isGrouped(queue)) {
      return List.of(stateKey, priorityKey);
    }
    List<byte[]> out = new ArrayList<>(4);
    out.add(stateKey);
    out.add(priorityKey);
    String partition = place.partition();
    if (partition != null) {
      out.add(partitionCounter(queue, partition));
    }
    String tenant = place.groupId();
    if (tenant != null) {
      out.add(tenantCounter(queue, tenant));
    }
    return out;
  }

  /** The counter of a tenant's available messages (a standard queue's group id). */
  static byte[] tenantCounter(String queue, String groupId) {
    return key(Codec.queuePrefix(queue), COUNTER)
        .b('t')
        .raw(groupId.getBytes(StandardCharsets.UTF_8))
        .toArray();
  }

  /** The start of one tenant's line. */
  static byte[] tenantLine(String queue, String groupId) {
    return key(Codec.queuePrefix(queue), TENANT)
        .raw(groupId.getBytes(StandardCharsets.UTF_8))
        .b(0)
        .toArray();
  }

  /** The start of one priority band of a tenant's line. */
  static byte[] tenantBand(String queue, String groupId, int priority) {
    return key(Codec.queuePrefix(queue), TENANT)
        .raw(groupId.getBytes(StandardCharsets.UTF_8))
        .b(0)
        .i(~flip(priority))
        .toArray();
  }

  /** The counter of a partition's available messages. */
  static byte[] partitionCounter(String queue, String partition) {
    return key(Codec.queuePrefix(queue), COUNTER).b('q').raw(Partitions.bytes(partition)).toArray();
  }

  /** The start of one partition's line, or of one of its priority bands. */
  static byte[] partitionLine(String queue, String partition) {
    return key(Codec.queuePrefix(queue), PARTITION).raw(Partitions.bytes(partition)).b(0).toArray();
  }

  /** The start of one priority band of a partition's line. */
  static byte[] partitionBand(String queue, String partition, int priority) {
    return key(Codec.queuePrefix(queue), PARTITION)
        .raw(Partitions.bytes(partition))
        .b(0)
        .i(~flip(priority))
        .toArray();
  }

  /** The priority of a key whose inverted priority starts at {@code at}. */
  static int priorityAt(byte[] key, int at) {
    int v =
        ((key[at] & 0xff) << 24)
            | ((key[at + 1] & 0xff) << 16)
            | ((key[at + 2] & 0xff) << 8)
            | (key[at + 3] & 0xff);
    return flip(~v);
  }

  /** A count as a counter's value (and a merge's operand: a negative delta wraps around). */
  static byte[] count(long n) {
    return java.nio.ByteBuffer.allocate(8)
        .order(java.nio.ByteOrder.LITTLE_ENDIAN)
        .putLong(n)
        .array();
  }

  static long countOf(byte[] value) {
    return java.nio.ByteBuffer.wrap(value).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
  }

  /** The first key of {@code kind} in {@code queue}. */
  static byte[] start(String queue, byte kind) {
    return key(Codec.queuePrefix(queue), kind).toArray();
  }

  /** The first key of {@code kind} in {@code queue} that begins with {@code head}. */
  static byte[] start(String queue, byte kind, byte[] head) {
    return key(Codec.queuePrefix(queue), kind).raw(head).toArray();
  }

  /** The start of one priority band of {@code A} keys. */
  static byte[] band(String queue, int priority) {
    return band(queue, AVAILABLE, priority);
  }

  /** The start of one priority band of the keys of {@code kind} ({@code A} or {@code D}). */
  static byte[] band(String queue, byte kind, int priority) {
    return key(Codec.queuePrefix(queue), kind).i(~flip(priority)).toArray();
  }

  /** The start of one group's line. */
  static byte[] groupLine(String queue, String groupId) {
    return key(Codec.queuePrefix(queue), GROUP)
        .raw(groupId.getBytes(StandardCharsets.UTF_8))
        .b(0)
        .toArray();
  }

  /** The serial a key ends with. */
  static long serialOf(byte[] key) {
    return flip(longAt(key, key.length - 8));
  }

  /**
   * The seq of an {@code A} or {@code D} key of a queue whose prefix is {@code prefixLength} long.
   */
  static long seqOf(byte[] key, int prefixLength) {
    return flip(longAt(key, prefixLength + 1 + 4));
  }

  /** The expiry time of an {@code X} key of a queue whose prefix is {@code prefixLength} long. */
  static long expiryOf(byte[] key, int prefixLength) {
    return flip(longAt(key, prefixLength + 1));
  }

  /**
   * The priority of an {@code A} or {@code D} key of a queue whose prefix is {@code prefixLength}
   * long.
   */
  static int priorityOf(byte[] key, int prefixLength) {
    int at = prefixLength + 1;
    int v =
        ((key[at] & 0xff) << 24)
            | ((key[at + 1] & 0xff) << 16)
            | ((key[at + 2] & 0xff) << 8)
            | (key[at + 3] & 0xff);
    return flip(~v);
  }

  /** Whether {@code key} begins with {@code prefix}. */
  static boolean startsWith(byte[] key, byte[] prefix) {
    return key.length >= prefix.length
        && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
  }

  private static Bytes.Writer key(byte[] prefix, byte kind) {
    return new Bytes.Writer(prefix.length + 32).raw(prefix).b(kind);
  }

  private static long longAt(byte[] b, int at) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (b[at + i] & 0xff);
    }
    return v;
  }

  private static long flip(long v) {
    return v ^ Long.MIN_VALUE;
  }

  private static int flip(int v) {
    return v ^ Integer.MIN_VALUE;
  }
}
