package io.switchboard.routing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A binary min-heap of contacts that knows where each contact sits, so any contact can be removed
 * in {@code O(log n)}: by order of service ({@link ContactRecord#compareOrder}) or by arrival
 * alone. Contacts mostly arrive in order at the back of their priority, and a new contact then
 * stays where it is put: adding is one comparison with its parent, where a balanced tree walks and
 * rebalances a path of nodes spread over the heap. Taking the head is {@code O(log n)} over one
 * array. Each contact records its slot in this heap ({@link ContactRecord#lineSlot} or {@link
 * ContactRecord#arrivalSlot}), so a contact sits in at most one heap of each kind.
 */
final class ContactHeap {

  private final boolean byArrival;
  private ContactRecord[] heap = new ContactRecord[2];
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

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** The first contact, or null when empty. */
  ContactRecord first() {
    return size == 0 ? null : heap[0];
  }

  void add(ContactRecord contact) {
    if (size == heap.length) {
      heap = Arrays.copyOf(heap, size * 2);
    }
    siftUp(size++, contact);
  }

  void remove(ContactRecord contact) {
    int slot = slot(contact);
    ContactRecord last = heap[--size];
    heap[size] = null;
    if (last != contact) {
      siftDown(slot, last);
      if (heap[slot] == last) {
        siftUp(slot, last);
      }
    }
    if (heap.length > 16 && size * 4 < heap.length) {
      heap = Arrays.copyOf(heap, heap.length / 2);
    }
  }

  /** Every contact in heap order, sorted: for listings, not for the hot path. */
  List<ContactRecord> sorted() {
    List<ContactRecord> all = new ArrayList<>(Arrays.asList(heap).subList(0, size));
    all.sort(this::compare);
    return all;
  }

  private void siftUp(int slot, ContactRecord contact) {
    while (slot > 0) {
      int parent = (slot - 1) >>> 1;
      ContactRecord p = heap[parent];
      if (compare(contact, p) >= 0) {
        break;
      }
      place(slot, p);
      slot = parent;
    }
    place(slot, contact);
  }

  private void siftDown(int slot, ContactRecord contact) {
    int half = size >>> 1;
    while (slot < half) {
      int child = 2 * slot + 1;
      ContactRecord c = heap[child];
      int right = child + 1;
      if (right < size && compare(heap[right], c) < 0) {
        child = right;
        c = heap[child];
      }
      if (compare(contact, c) <= 0) {
        break;
      }
      place(slot, c);
      slot = child;
    }
    place(slot, contact);
  }

  private int compare(ContactRecord a, ContactRecord b) {
    return byArrival ? Long.compare(a.seq, b.seq) : ContactRecord.compareOrder(a, b);
  }

  private int slot(ContactRecord contact) {
    return byArrival ? contact.arrivalSlot : contact.lineSlot;
  }

  private void place(int slot, ContactRecord contact) {
    heap[slot] = contact;
    if (byArrival) {
      contact.arrivalSlot = slot;
    } else {
      contact.lineSlot = slot;
    }
  }
}
