package io.switchboard.storage.rocksdb;

import io.switchboard.internal.Bytes;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.DedupScope;
import io.switchboard.queue.ExpiryAction;
import io.switchboard.queue.Order;
import io.switchboard.queue.Overflow;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.RedriveTask;
import io.switchboard.queue.spi.JournalEntry;
import io.switchboard.queue.spi.MessageRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The on-disk encoding of journal state: compact big-endian binary, one format version for the
 * whole store ({@link #FORMAT}). Keys sort as RocksDB compares bytes: a queue name, a zero byte,
 * then a big-endian serial, so one queue's messages are contiguous and in serial order.
 */
final class Codec {

  /** Bump when any encoding changes; a store of another format is refused at open. */
  static final int FORMAT = 1;

  private Codec() {}

  // ---- keys ------------------------------------------------------------------------------

  static byte[] queuePrefix(String queue) {
    byte[] name = queue.getBytes(StandardCharsets.UTF_8);
    byte[] key = new byte[name.length + 1];
    System.arraycopy(name, 0, key, 0, name.length);
    return key;
  }

  /** The first key after every key of {@code queue}. */
  static byte[] queueEnd(String queue) {
    byte[] key = queuePrefix(queue);
    key[key.length - 1] = 1;
    return key;
  }

  static byte[] messageKey(String queue, long serial) {
    return new Bytes.Writer(queue.length() + 9).raw(queuePrefix(queue)).l(serial).toArray();
  }

  static byte[] stringKey(String queue, String suffix) {
    return new Bytes.Writer(queue.length() + 16)
        .raw(queuePrefix(queue))
        .raw(suffix.getBytes(StandardCharsets.UTF_8))
        .toArray();
  }

  /** The queue name of a key made by {@link #messageKey} or {@link #stringKey}. */
  static String queueOf(byte[] key) {
    int end = 0;
    while (key[end] != 0) {
      end++;
    }
    return new String(key, 0, end, StandardCharsets.UTF_8);
  }

  static String suffixOf(byte[] key) {
    int start = 0;
    while (key[start] != 0) {
      start++;
    }
    return new String(key, start + 1, key.length - start - 1, StandardCharsets.UTF_8);
  }

  static long serialOf(byte[] key) {
    return new Bytes.Reader(java.util.Arrays.copyOfRange(key, key.length - 8, key.length)).l();
  }

  // ---- queues ----------------------------------------------------------------------------

  static byte[] queue(JournalEntry.QueuePut q) {
    QueueConfig c = q.config();
    Bytes.Writer w = new Bytes.Writer(128).s(q.name()).l(q.createdAt()).l(q.receiptKey());
    w.b(c.order().ordinal())
        .l(c.visibilityTimeout().toMillis())
        .l(c.delay().toMillis())
        .l(c.retention().toMillis())
        .b(c.onExpire().ordinal())
        .i(c.maxMessageSize())
        .l(c.receiveWait().toMillis());
    w.s(c.deadLetter().map(d -> d.target()).orElse(null))
        .i(c.deadLetter().map(d -> d.maxReceiveCount()).orElse(0));
    w.l(c.maxDepth().orElse(-1)).b(c.overflow().ordinal());
    w.b(c.contentBasedDeduplication() ? 1 : 0).b(c.dedupScope().ordinal());
    w.l(c.historyRetention().toMillis());
    w.i(c.indexedAttributes().size());
    c.indexedAttributes().forEach(w::s);
    // Appended after the first release of FORMAT 1: a value that ends here has no metadata.
    w.i(c.metadata().size());
    c.metadata().forEach((k, v) -> w.s(k).s(v));
    // Appended after the metadata: a value that ends there has no limit per key (0: none).
    w.i(c.keyLimit().orElse(0));
    return w.toArray();
  }

  static JournalEntry.QueuePut queue(byte[] value) {
    return queue(value, null);
  }

  /**
   * As {@link #queue(byte[])}, with the configurations decoded so far ({@code configs}, keyed by
   * their encoded bytes): a queue whose configuration is encoded as an earlier one's gets that
   * one's {@link QueueConfig} (immutable), neither decoded again nor held twice. A store with a
   * million queues usually holds a few configurations, so a restart decodes a few and keeps one
   * object for each, not one per queue.
   */
  static JournalEntry.QueuePut queue(
      byte[] value, java.util.@Nullable Map<java.nio.ByteBuffer, QueueConfig> configs) {
    Bytes.Reader r = new Bytes.Reader(value);
    String name = r.text();
    long createdAt = r.l();
    long receiptKey = r.l();
    if (configs == null) {
      return new JournalEntry.QueuePut(name, config(r), createdAt, receiptKey);
    }
    int start = r.position();
    java.nio.ByteBuffer encoded = java.nio.ByteBuffer.wrap(value, start, value.length - start);
    QueueConfig c = configs.get(encoded);
    if (c == null) {
      c = config(r);
      configs.put(encoded, c);
    }
    return new JournalEntry.QueuePut(name, c, createdAt, receiptKey);
  }

  /** The configuration that {@code r} reads from here to the end of the record. */
  private static QueueConfig config(Bytes.Reader r) {
    QueueConfig.Builder b =
        QueueConfig.builder()
            .order(Order.values()[r.b()])
            .visibilityTimeout(Duration.ofMillis(r.l()))
            .delay(Duration.ofMillis(r.l()))
            .retention(Duration.ofMillis(r.l()));
    ExpiryAction onExpire = ExpiryAction.values()[r.b()];
    b.maxMessageSize(r.i()).receiveWait(Duration.ofMillis(r.l()));
    String dlq = r.s();
    int maxReceives = r.i();
    if (dlq != null) {
      b.deadLetter(dlq, maxReceives);
    }
    b.onExpire(onExpire);
    long maxDepth = r.l();
    Overflow overflow = Overflow.values()[r.b()];
    if (maxDepth >= 0) {
      b.maxDepth(maxDepth, overflow);
    }
    b.contentBasedDeduplication(r.b() == 1).dedupScope(DedupScope.values()[r.b()]);
    b.historyRetention(Duration.ofMillis(r.l()));
    int n = r.i();
    Set<String> indexed = new HashSet<>();
    for (int i = 0; i < n; i++) {
      indexed.add(r.s());
    }
    b.indexedAttributes(indexed);
    if (!r.done()) {
      int entries = r.i();
      Map<String, String> metadata = new LinkedHashMap<>();
      for (int i = 0; i < entries; i++) {
        metadata.put(r.s(), r.s());
      }
      b.metadata(metadata);
    }
    if (!r.done()) {
      int keyLimit = r.i();
      if (keyLimit > 0) {
        b.keyLimit(keyLimit);
      }
    }
    return b.build();
  }

  // ---- messages --------------------------------------------------------------------------

  /** The part of a message that never changes, except by an attribute update. */
  static byte[] body(MessageRecord m) {
    Bytes.Writer w = new Bytes.Writer(m.body().length + 64);
    w.l(m.serial()).l(m.sentAt()).s(m.groupId()).s(m.dedupId()).bytes(m.body());
    attributes(w, m.attributes());
    return w.toArray();
  }

  static byte[] state(MessageRecord.StateRecord s) {
    return new Bytes.Writer(64)
        .l(s.seq())
        .i(s.priority())
        .b(s.state())
        .i(s.receiveCount())
        .i(s.leaseEpoch())
        .l(s.visibleAt())
        .l(s.expiresAt())
        .l(s.firstReceivedAt())
        .l(s.leasedAt())
        .s(s.deadLetterSource())
        .toArray();
  }

  static MessageRecord.StateRecord state(byte[] value) {
    Bytes.Reader r = new Bytes.Reader(value);
    return new MessageRecord.StateRecord(
        r.l(), r.i(), (byte) r.b(), r.i(), r.i(), r.l(), r.l(), r.l(), r.l(), r.s());
  }

  static MessageRecord message(byte[] body, MessageRecord.StateRecord s) {
    return message(body, s, null);
  }

  /** A message; recurring strings (group, attributes) decoded through {@code strings}. */
  static MessageRecord message(
      byte[] body, MessageRecord.StateRecord s, Bytes.@Nullable Strings strings) {
    Bytes.Reader r = new Bytes.Reader(body);
    long serial = r.l();
    long sentAt = r.l();
    String groupId = r.s(strings);
    String dedupId = r.s();
    byte[] text = r.bytes();
    Map<String, AttributeValue> attributes = attributes(r, strings);
    return MessageRecord.of(serial, sentAt, text, attributes, groupId, dedupId, s);
  }

  private static void attributes(Bytes.Writer w, Map<String, AttributeValue> attributes) {
    w.i(attributes.size());
    for (Map.Entry<String, AttributeValue> e : attributes.entrySet()) {
      w.s(e.getKey());
      AttributeValue v = e.getValue();
      w.s(v.dataType());
      switch (v) {
        case AttributeValue.StringValue s -> w.b('S').s(s.value());
        case AttributeValue.NumberValue n -> w.b('N').s(n.value());
        case AttributeValue.BinaryValue b -> w.b('B').bytes(b.value());
        case AttributeValue.StringListValue l -> {
          w.b('L').i(l.value().size());
          l.value().forEach(w::s);
        }
      }
    }
  }

  private static Map<String, AttributeValue> attributes(
      Bytes.Reader r, Bytes.@Nullable Strings strings) {
    int n = r.i();
    if (n == 0) {
      return Map.of();
    }
    Map<String, AttributeValue> out = new LinkedHashMap<>(n * 2);
    for (int i = 0; i < n; i++) {
      String name = r.text(strings);
      String type = r.text(strings);
      AttributeValue v =
          switch (r.b()) {
            case 'S' -> new AttributeValue.StringValue(type, r.text(strings));
            case 'N' -> new AttributeValue.NumberValue(type, r.text(strings));
            case 'B' -> new AttributeValue.BinaryValue(type, r.bytes());
            default -> {
              int size = r.i();
              List<String> list = new ArrayList<>(size);
              for (int j = 0; j < size; j++) {
                list.add(r.text(strings));
              }
              yield new AttributeValue.StringListValue(type, list);
            }
          };
      out.put(name, v);
    }
    return out;
  }

  // ---- dedup, history, tasks -------------------------------------------------------------

  static byte[] dedup(JournalEntry.DedupPut d) {
    return new Bytes.Writer(32).l(d.serial()).l(d.seq()).l(d.until()).toArray();
  }

  static JournalEntry.DedupPut dedup(String queue, String key, byte[] value) {
    Bytes.Reader r = new Bytes.Reader(value);
    return new JournalEntry.DedupPut(queue, key, r.l(), r.l(), r.l());
  }

  static byte[] history(JournalEntry.HistoryPut h) {
    byte[] body = body(h.message());
    byte[] state = state(h.message().stateRecord());
    return new Bytes.Writer(body.length + state.length + 32)
        .s(h.state())
        .l(h.until())
        .bytes(body)
        .bytes(state)
        .toArray();
  }

  static JournalEntry.HistoryPut history(String queue, byte[] value) {
    Bytes.Reader r = new Bytes.Reader(value);
    String state = r.text();
    long until = r.l();
    byte[] body = r.bytes();
    MessageRecord m = message(body, state(r.bytes()));
    return new JournalEntry.HistoryPut(queue, m, state, until);
  }

  static byte[] task(RedriveTask t) {
    return new Bytes.Writer(128)
        .s(t.id())
        .s(t.source())
        .s(t.destination().orElse(null))
        .i(t.maxPerSecond().orElse(-1))
        .b(t.status().ordinal())
        .l(t.moved())
        .l(t.toMove())
        .l(t.startedAt().toEpochMilli())
        .s(t.failureReason().orElse(null))
        .toArray();
  }

  static RedriveTask task(Bytes.Reader r) {
    String id = r.text();
    String source = r.text();
    Optional<String> destination = Optional.ofNullable(r.s());
    int rate = r.i();
    RedriveTask.Status status = RedriveTask.Status.values()[r.b()];
    long moved = r.l();
    long toMove = r.l();
    Instant startedAt = Instant.ofEpochMilli(r.l());
    Optional<String> problem = Optional.ofNullable(r.s());
    return new RedriveTask(
        id,
        source,
        destination,
        rate < 0 ? OptionalInt.empty() : OptionalInt.of(rate),
        status,
        moved,
        toMove,
        startedAt,
        problem);
  }

  static byte[] taskStart(JournalEntry.TaskPut t) {
    Bytes.Writer w = new Bytes.Writer(64 + t.remaining().size() * 8);
    w.bytes(task(t.task())).l(t.startedAt()).i(t.remaining().size());
    for (long serial : t.remaining()) {
      w.l(serial);
    }
    return w.toArray();
  }

  static JournalEntry.TaskPut taskStart(byte[] value, byte[] progress) {
    Bytes.Reader r = new Bytes.Reader(value);
    RedriveTask task = task(new Bytes.Reader(r.bytes()));
    long startedAt = r.l();
    int n = r.i();
    int next = 0;
    if (progress != null) {
      Bytes.Reader p = new Bytes.Reader(progress);
      task = task(new Bytes.Reader(p.bytes()));
      next = p.i();
    }
    List<Long> remaining = new ArrayList<>(Math.max(0, n - next));
    for (int i = 0; i < n; i++) {
      long serial = r.l();
      if (i >= next) {
        remaining.add(serial);
      }
    }
    return new JournalEntry.TaskPut(task, startedAt, remaining);
  }

  static byte[] taskProgress(JournalEntry.TaskProgress p) {
    return new Bytes.Writer(128).bytes(task(p.task())).i(p.next()).toArray();
  }
}
