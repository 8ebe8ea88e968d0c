package io.switchboard.queue;

import java.util.Arrays;

/**
 * A growable array of {@code long}, used as a FIFO of message serials: appends at the tail, reads
 * from a moving head, compacts itself when the dead prefix dominates.
 */
final class LongList {

  private long[] items;
  private int head;
  private int tail;

  LongList(int capacity) {
    items = new long[Math.max(2, capacity)];
  }

  LongList() {
    this(8);
  }

  void add(long value) {
    if (tail == items.length) {
      if (head > items.length / 2) {
        System.arraycopy(items, head, items, 0, tail - head);
        tail -= head;
        head = 0;
      } else {
        items = Arrays.copyOf(items, items.length * 2);
      }
    }
    items[tail++] = value;
  }

  /** The length of the backing array (tests). */
  int capacity() {
    return items.length;
  }

  int size() {
    return tail - head;
  }

  boolean isEmpty() {
    return tail == head;
  }

  long peekFirst() {
    return items[head];
  }

  long pollFirst() {
    return items[head++];
  }

  long get(int index) {
    return items[head + index];
  }

  void clear() {
    head = 0;
    tail = 0;
    if (items.length > 1024) {
      items = new long[8];
    }
  }

  /** Sorts the values, ascending. */
  void sort() {
    Arrays.sort(items, head, tail);
  }

  /** Keeps only the values the predicate accepts, in order. */
  void retainIf(java.util.function.LongPredicate keep) {
    int w = 0;
    for (int r = head; r < tail; r++) {
      if (keep.test(items[r])) {
        items[w++] = items[r];
      }
    }
    head = 0;
    tail = w;
    if (items.length > 64 && w < items.length / 4) {
      items = Arrays.copyOf(items, Math.max(8, w * 2));
    }
  }

  /** A test of one (first, second) pair. */
  @FunctionalInterface
  interface PairPredicate {
    boolean test(long first, long second);
  }

  /**
   * Keeps only the pairs (values at even and odd offsets from the head) the predicate accepts, in
   * order, in place; gives back memory only down to {@code minCapacity}, the size the owner expects
   * the list to grow back to, so a list compacted often is not reallocated each time.
   */
  void retainPairs(PairPredicate keep, int minCapacity) {
    int w = 0;
    for (int r = head; r + 1 < tail; r += 2) {
      long first = items[r];
      long second = items[r + 1];
      if (keep.test(first, second)) {
        items[w++] = first;
        items[w++] = second;
      }
    }
    head = 0;
    tail = w;
    int floor = Math.max(8, minCapacity);
    if (items.length > 2 * floor && w < items.length / 4) {
      items = Arrays.copyOf(items, Math.max(floor, w * 2));
    }
  }
}
