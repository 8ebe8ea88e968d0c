package io.switchboard.storage.dynamodb;

import io.switchboard.queue.QueueException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A queue's shards ({@code docs/design.md}, "Sharding a busy queue's keys"): the list of {@code
 * (from serial, count)} its item keeps, oldest first. A serial carries its shard in its low {@value
 * #BITS} bits, chosen when the serial is taken, so every id and receipt names the partition of its
 * item whatever the count is now and whoever read which list: a count change moves nothing and
 * takes effect at the next serial. Shard 0 is the partition key without a suffix, so a queue of one
 * shard has the layout of a queue without shards. A queue whose item has no list was made before
 * shards, when a serial's low bits were a counter's: every message of it is in shard 0, and it
 * keeps one shard.
 *
 * <p>A message that came from another queue (dead-lettered, redriven) keeps its id's serial, whose
 * bits may name a shard above the count: only its pointer is there (its item is at an order serial
 * this queue chose), found by id as any other; a purge leaves such a pointer to its time to live.
 *
 * @param entries {@code (from, count)} pairs, {@code from} ascending, the first from 0; empty for a
 *     queue made before shards
 */
record Shards(List<Entry> entries) {

  /** The low bits of a serial that hold its shard. */
  static final int BITS = 6;

  /** The most shards a queue may have: what {@value #BITS} bits hold. */
  static final int MAX = 1 << BITS;

  /** The queue item's attribute holding the list: {@code from:count} pairs, comma-separated. */
  static final String ATTRIBUTE = "sh";

  /** Where a count starts: the first serial it applies to, and the count. */
  record Entry(long from, int count) {}

  Shards {
    entries = List.copyOf(entries);
  }

  /** A new queue's list: every serial carries its shard, {@code count} of them. */
  static Shards created(int count) {
    return new Shards(List.of(new Entry(0, check(count, "shards"))));
  }

  /** The list as a queue item holds it ({@code null}: an item written before lists, one shard). */
  static Shards decode(@Nullable String text) {
    List<Entry> out = new ArrayList<>();
    if (text != null && !text.isEmpty()) {
      for (String pair : text.split(",")) {
        int colon = pair.indexOf(':');
        out.add(
            new Entry(
                Long.parseLong(pair.substring(0, colon)),
                Integer.parseInt(pair.substring(colon + 1))));
      }
    }
    return new Shards(out);
  }

  String encode() {
    StringBuilder s = new StringBuilder();
    for (Entry e : entries) {
      s.append(s.isEmpty() ? "" : ",").append(e.from()).append(':').append(e.count());
    }
    return s.toString();
  }

  /** The count new serials are written with. */
  int count() {
    return entries.isEmpty() ? 1 : entries.get(entries.size() - 1).count();
  }

  /** How many partitions a priority's messages may be in: the largest count the list held. */
  int partitions() {
    int most = 1;
    for (Entry e : entries) {
      most = Math.max(most, e.count());
    }
    return most;
  }

  /** Whether the count can change: the queue was made with a list (not before shards). */
  boolean changeable() {
    return !entries.isEmpty();
  }

  /** The list with {@code count} from {@code serial} on. */
  Shards withCount(long serial, int count) {
    List<Entry> next = new ArrayList<>(entries);
    next.add(new Entry(serial, check(count, "shards")));
    return new Shards(next);
  }

  /** The shard of a serial: its low bits; 0 in a queue made before shards. */
  int of(long serial) {
    return entries.isEmpty() ? 0 : (int) (serial & (MAX - 1));
  }

  /**
   * The shard a new message goes to: a grouped message's by a hash of its group (a group stays in
   * one partition while the count stands), any other's by its serial, so consecutive serials spread
   * over the shards.
   */
  int choose(long serial, @Nullable String group) {
    int count = count();
    if (count == 1) {
      return 0;
    }
    long spread = group == null ? serial >>> BITS : group.hashCode() & 0x7fffffff;
    return (int) (spread % count);
  }

  /** {@code serial} with its low bits set to {@code shard}. */
  static long place(long serial, int shard) {
    return (serial & ~(long) (MAX - 1)) | shard;
  }

  /** A shard count: 1..{@value #MAX}, else {@code INVALID_ARGUMENT} naming the value given. */
  static int check(int count, String field) {
    if (count < 1 || count > MAX) {
      throw QueueException.invalid(field + " must be 1.." + MAX + ", got " + count);
    }
    return count;
  }
}
