package io.switchboard.storage.dynamodb;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.MessageFilter;
import io.switchboard.queue.SelectorFilter;
import io.switchboard.queue.spi.Partitions;
import io.switchboard.selector.Selector;
import io.switchboard.selector.SystemFacts;
import io.switchboard.selector.Truth;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.SdkBytes;

/**
 * A queue's catalogue of attribute partitions ({@code docs/design.md}, "Attribute partitions on
 * DynamoDB"): which slot (the low {@value Shards#BITS} bits of a serial, what names a shard in a
 * queue without indexed attributes) holds the messages of which combination of indexed values. The
 * queue's item keeps slot {@code n} as the attribute {@code ap<n>}: the indexed attributes' names
 * (sorted, newline-separated), a zero byte, and the partition's canonical encoding ({@link
 * Partitions#encode}). A slot is taken by a conditional write on the queue's item and never changes
 * or goes while the queue's generation lives, so every server agrees on it and a new engine finds
 * every partition by reading the item.
 *
 * <p>The catalogue only spares reads: a receive still tests every message it reads with its filter,
 * so a slot read that a selector cannot match costs units, never a wrong answer.
 */
record AttributePartitions(TreeMap<Integer, Entry> slots) {

  /** The queue item's attribute prefix: slot {@code n} is {@code ap<n>}. */
  static final String PREFIX = "ap";

  /** One slot: the indexed attributes' names the encoding was made with, and the encoding. */
  record Entry(String names, String encoding) {}

  /** The catalogue a queue's item holds. */
  static AttributePartitions of(
      Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> item) {
    TreeMap<Integer, Entry> slots = new TreeMap<>();
    for (Map.Entry<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> e :
        item.entrySet()) {
      String name = e.getKey();
      if (name.length() > PREFIX.length()
          && name.startsWith(PREFIX)
          && name.substring(PREFIX.length()).chars().allMatch(Character::isDigit)
          && e.getValue().b() != null) {
        slots.put(Integer.parseInt(name.substring(PREFIX.length())), decode(e.getValue().b()));
      }
    }
    return new AttributePartitions(slots);
  }

  private static Entry decode(SdkBytes value) {
    byte[] b = value.asByteArray();
    int zero = 0;
    while (zero < b.length && b[zero] != 0) {
      zero++;
    }
    return new Entry(
        new String(b, 0, zero, StandardCharsets.UTF_8),
        Partitions.of(Arrays.copyOfRange(b, Math.min(b.length, zero + 1), b.length)));
  }

  /** The value of slot attribute for {@code names} and {@code encoding}. */
  static software.amazon.awssdk.services.dynamodb.model.AttributeValue encode(
      String names, String encoding) {
    byte[] n = names.getBytes(StandardCharsets.UTF_8);
    byte[] e = Partitions.bytes(encoding);
    byte[] out = new byte[n.length + 1 + e.length];
    System.arraycopy(n, 0, out, 0, n.length);
    System.arraycopy(e, 0, out, n.length + 1, e.length);
    return software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromB(
        SdkBytes.fromByteArray(out));
  }

  /** The indexed attributes' names as a slot records them: sorted, newline-separated. */
  static String names(Collection<String> indexed) {
    return String.join("\n", indexed.stream().sorted().toList());
  }

  /** The encoding of a message's partition in a queue indexing {@code indexed}. */
  static String encoding(Set<String> indexed, Map<String, AttributeValue> attributes) {
    String encoding = Partitions.encode(indexed, attributes::get);
    return encoding == null ? "" : encoding;
  }

  /** The slot holding {@code encoding} under {@code names}, or -1 when none does yet. */
  int slotOf(String names, String encoding) {
    for (Map.Entry<Integer, Entry> e : slots.entrySet()) {
      if (e.getValue().names().equals(names) && e.getValue().encoding().equals(encoding)) {
        return e.getKey();
      }
    }
    return -1;
  }

  /**
   * The slots a receive with {@code filter} must read in a queue indexing {@code indexed}: every
   * slot, unless the filter is a selector that reads indexed attributes only; then the slots whose
   * values the selector is TRUE for, and every slot recorded under other indexed attributes (its
   * encoding says nothing of the current ones).
   */
  List<Integer> matching(Set<String> indexed, @Nullable MessageFilter filter) {
    Selector selector = prunes(indexed, filter);
    if (selector == null) {
      return List.copyOf(slots.keySet());
    }
    String names = names(indexed);
    List<String> sorted = indexed.stream().sorted().toList();
    List<Integer> out = new ArrayList<>();
    for (Map.Entry<Integer, Entry> e : slots.entrySet()) {
      if (!e.getValue().names().equals(names)) {
        out.add(e.getKey());
        continue;
      }
      List<@Nullable Object> values = Partitions.decode(e.getValue().encoding());
      Map<String, @Nullable Object> byName = new HashMap<>();
      for (int i = 0; i < sorted.size() && i < values.size(); i++) {
        byName.put(sorted.get(i), values.get(i));
      }
      if (selector.evaluate(byName::get) == Truth.TRUE) {
        out.add(e.getKey());
      }
    }
    return out;
  }

  /** The selector of {@code filter} when it reads indexed attributes only, else null. */
  private static @Nullable Selector prunes(Set<String> indexed, @Nullable MessageFilter filter) {
    if (indexed.isEmpty() || !(filter instanceof SelectorFilter sf)) {
      return null;
    }
    for (String name : sf.selector().attributeNames()) {
      if (name.startsWith(SystemFacts.PREFIX) || !indexed.contains(name)) {
        return null;
      }
    }
    return sf.selector();
  }
}
