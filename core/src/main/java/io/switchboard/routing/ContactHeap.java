package io.switchboard.routing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A binary min-heap of contacts that knows where each contact sits, so any contact can be removed
 * in {@code O(log n)}: by order of service ({@link ContactRecord#compareOrder}) or by arrival
 * alone. Contacts mostly arrive in order at the back of their priority, and a new contact then
 * stays where it is put: adding is one comparison with its parent, where a balanced tree walks and
 * rebalances a path of nodes spread over the heap. Taking the head is {@code O(log n)} over one
 * array.
 *
 * <p>Each contact's order is kept beside it as one {@code long} ({@link #serviceKey}), in an array
 * parallel to the contacts, so sifting compares neighbouring array slots instead of loading each
 * contact record: a group of thousands of contacts costs a few cache lines per operation, not one
 * per level. Each contact records its slot in this heap ({@link ContactRecord#lineSlot} or {@link
 * ContactRecord#arrivalSlot}), so a contact sits in at most one heap of each kind.
 */
final class ContactHeap {

  private final boolean byArrival;
  private ContactRecord[] heap = new ContactRecord[2];
  private long[] keys = new long[2];
  private int size;

  private ContactHeap(boolean byArrival) {
    this.byArrival = byArrival;
  }

  /** Highest priority first, then earliest arrival. */
  static ContactHeap byOrderOfService() {
    return new ContactHeap(false);
  }

  /** Earliest arrival first, whatever the priority. */
  static ContactHeap byArrival() {
    return new ContactHeap(true);
  }

  /**
   * The order of service as one number, smaller first: priority (-1000..1000, higher first) in the
   * top bits; below it, for a contact of FIFO order its arrival number, and for one of a LIFO task
   * queue ({@link ContactRecord#lifo}) bit 51 and its arrival number counted down, so that at equal
   * priority FIFO contacts come first by arrival and LIFO ones after them, newest first. Arrival
   * numbers stay below 2^51 (one per contact ever created).
   */
  static long serviceKey(ContactRecord c) {
    long priority = (long) (Checks.MAX_PRIORITY - c.priority) << 52;
    return c.lifo ? priority | LIFO | (LIFO - 1 - c.seq) : priority | c.seq;
  }

  private static final long LIFO = 1L << 51;

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** The first contact, or null when empty. */
  @Nullable ContactRecord first() {
    return size == 0 ? null : heap[0];
  }

  void add(ContactRecord contact) {
    if (size == heap.length) {
      resize(size * 2);
    }
    siftUp(size++, contact, byArrival ? contact.seq : serviceKey(contact));
  }

  void remove(ContactRecord contact) {
    int slot = byArrival ? contact.arrivalSlot : contact.lineSlot;
    int last = --size;
    ContactRecord moved = heap[last];
    long movedKey = keys[last];
    heap[last] = null;
    if (moved != contact) {
      siftDown(slot, moved, movedKey);
      if (heap[slot] == moved) {
        siftUp(slot, moved, movedKey);
      }
    }
    if (heap.length > 16 && size * 4 < heap.length) {
      resize(heap.length / 2);
    }
  }

  /**
   * The first contact in order that {@code wanted} accepts, or null: a best-first walk of the heap
   * (a parent comes before its children), so it visits only the contacts before that one and their
   * children.
   */
  @Nullable ContactRecord firstWhere(java.util.function.Predicate<ContactRecord> wanted) {
    if (size == 0) {
      return null;
    }
    java.util.PriorityQueue<Integer> frontier =
        new java.util.PriorityQueue<>((a, b) -> Long.compare(keys[a], keys[b]));
    frontier.add(0);
    while (!frontier.isEmpty()) {
      int slot = frontier.poll();
      if (wanted.test(heap[slot])) {
        return heap[slot];
      }
      int child = 2 * slot + 1;
      if (child < size) {
        frontier.add(child);
      }
      if (child + 1 < size) {
        frontier.add(child + 1);
      }
    }
    return null;
  }

  /** Each contact, in heap order (no sort). */
  void forEach(java.util.function.Consumer<ContactRecord> action) {
    for (int i = 0; i < size; i++) {
      action.accept(heap[i]);
    }
  }

  /** Every contact, sorted: for listings, not for the hot path. */
  List<ContactRecord> sorted() {
    List<ContactRecord> all = new ArrayList<>(Arrays.asList(heap).subList(0, size));
    all.sort(
        byArrival
            ? Comparator.comparingLong((ContactRecord c) -> c.seq)
            : ContactRecord::compareOrder);
    return all;
  }

  private void resize(int capacity) {
    heap = Arrays.copyOf(heap, capacity);
    keys = Arrays.copyOf(keys, capacity);
  }

  private void siftUp(int slot, ContactRecord contact, long key) {
    while (slot > 0) {
      int parent = (slot - 1) >>> 1;
      if (key >= keys[parent]) {
        break;
      }
      place(slot, heap[parent], keys[parent]);
      slot = parent;
    }
    place(slot, contact, key);
  }

  private void siftDown(int slot, ContactRecord contact, long key) {
    int half = size >>> 1;
    while (slot < half) {
      int child = 2 * slot + 1;
      int right = child + 1;
      if (right < size && keys[right] < keys[child]) {
        child = right;
      }
      if (key <= keys[child]) {
        break;
      }
      place(slot, heap[child], keys[child]);
      slot = child;
    }
    place(slot, contact, key);
  }

  private void place(int slot, ContactRecord contact, long key) {
    heap[slot] = contact;
    keys[slot] = key;
    if (byArrival) {
      contact.arrivalSlot = slot;
    } else {
      contact.lineSlot = slot;
    }
  }
}
