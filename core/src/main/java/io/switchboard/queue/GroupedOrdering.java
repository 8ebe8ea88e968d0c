package io.switchboard.queue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The SQS FIFO rules (seed 003) for grouped queues. Each message group is a line in send order; a
 * group is <em>ready</em> when its head (its oldest message) is available. Ready groups sit in a
 * tree ordered by their head's place ({@link #READY_ORDER}), so a receive:
 *
 * <ol>
 *   <li>takes the ready group whose head is best;
 *   <li>takes as many of the following available messages of that group as fit, up to its first
 *       message in flight or delayed;
 *   <li>repeats while the batch is not full.
 * </ol>
 *
 * A filter sees group heads only, so order within a group is never broken. A group whose head is in
 * flight is blocked; when the head comes back (visibility 0, its lease's end) the group reopens up
 * to its first message still in flight, as Amazon SQS does ({@code docs/design.md}, "Queue
 * semantics").
 *
 * <p>With a limit per key (the queue's {@code keyLimit}: {@code docs/design.md}, "Limits per key")
 * a receive takes at most the limit less the group's messages in flight, and a group holding that
 * many in flight is <em>held</em>: out of the ready set (so no receive walks it) until one of them
 * settles, though its head be available.
 *
 * <p>With a hot window ({@link HotWindow}, docs/design.md, "Message groups over cold messages") a
 * group's line in the heap may be a <em>prefix</em> of its line in the store: every message up to
 * its <em>hot end</em> ({@link Group#within}) is in the heap, the rest is cold (messages after the
 * end that are in the heap, delayed ones or one read by id, are not taken). A receive whose batch
 * reaches the end of a group with cold messages reads on in the store first ({@link Cold#extend});
 * a group whose line in the heap holds nothing up to its end is <em>starved</em> ({@link #starved})
 * until the window reads its next page.
 */
final class GroupedOrdering extends Ordering {

  /** One message group. Its ready-set key is copied from the head when it joins the set. */
  static final class Group {
    final String id;
    final ArrayDeque<StoredMessage> line = new ArrayDeque<>(4);
    boolean ready;

    /** Its head is available but it is at its limit per key (in {@link #held}, not in ready). */
    boolean held;

    /** Its messages in flight. */
    int inFlight;

    int readyPriority;
    boolean readyReceived;
    long readyPlace;
    long readySeq;

    /**
     * The place in the group's line (seq, serial) up to which the heap holds every message of the
     * group; {@code endSeq} Long.MAX_VALUE: all of it (nothing of the group is cold).
     */
    long endSeq = Long.MAX_VALUE;

    long endSerial = Long.MAX_VALUE;

    Group(String id) {
      this.id = id;
    }

    /** Whether the heap holds every message of the group. */
    boolean whole() {
      return endSeq == Long.MAX_VALUE;
    }

    /** Whether {@code m} lies at or before the group's hot end. */
    boolean within(StoredMessage m) {
      return endSeq == Long.MAX_VALUE
          || m.seq < endSeq
          || (m.seq == endSeq && m.serial <= endSerial);
    }
  }

  /** The store's side of a windowed grouped queue ({@link HotWindow}). */
  interface Cold {
    /**
     * Reads the messages of {@code g}'s line after its hot end into the heap, at least {@code
     * wanted} when the store holds that many, and moves the end ({@link #hotEnd}, {@link #whole}).
     */
    void extend(Group g, int wanted);
  }

  /** Order within a group's line: seq, then serial (the store's {@code G} order). */
  private static final Comparator<StoredMessage> LINE_ORDER =
      Comparator.<StoredMessage>comparingLong(m -> m.seq).thenComparingLong(m -> m.serial);

  /**
   * Priority first (higher first); then the head's place in time: its send time if it was never
   * received, else the time it was last received, so a group handed back waits behind the groups
   * that were waiting when it was taken and ahead of those sent after (at the same instant a head
   * never received goes first); then send order. Amazon SQS serves groups never received before
   * groups handed back ({@code docs/decisions.md}, "FIFO groups handed back wait their turn").
   */
  private static final Comparator<Group> READY_ORDER =
      (a, b) -> {
        int c = Integer.compare(b.readyPriority, a.readyPriority);
        if (c != 0) {
          return c;
        }
        c = Long.compare(a.readyPlace, b.readyPlace);
        if (c != 0) {
          return c;
        }
        c = Boolean.compare(a.readyReceived, b.readyReceived);
        if (c != 0) {
          return c;
        }
        c = Long.compare(a.readySeq, b.readySeq);
        return c != 0 ? c : a.id.compareTo(b.id);
      };

  /**
   * {@link #READY_ORDER} over ready group heads (and {@link Scan#positionOf} copies of them): the
   * order of the selector index, so an indexed receive takes groups as a scanning one does.
   */
  private static final Comparator<StoredMessage> HEAD_ORDER =
      (a, b) -> {
        int c = Integer.compare(b.priority, a.priority);
        if (c != 0) {
          return c;
        }
        c = Long.compare(place(a), place(b));
        if (c != 0) {
          return c;
        }
        c = Boolean.compare(a.receiveCount > 0, b.receiveCount > 0);
        if (c != 0) {
          return c;
        }
        c = Long.compare(a.seq, b.seq);
        return c != 0 ? c : Long.compare(a.serial, b.serial);
      };

  /** A head's place in time: when it was last received, or sent if it never was. */
  private static long place(StoredMessage head) {
    return head.receiveCount > 0 ? head.leasedAt : head.sentAt;
  }

  private final Map<String, Group> groups = new HashMap<>();
  private final TreeSet<Group> ready = new TreeSet<>(READY_ORDER);

  /** Groups whose head is available, held by the limit per key, in {@link #READY_ORDER}. */
  private final TreeSet<Group> held = new TreeSet<>(READY_ORDER);

  /** The most messages of one group in flight; 0: no limit. */
  private int keyLimit;

  private final Comparator<StoredMessage> messageOrder = comparator(Order.FIFO);

  /**
   * Every available message (heads or not) in delivery order: a browse page goes on from its cursor
   * here, reading what it shows, instead of passing over the queue (docs/operations.md, "Bounded
   * work per request").
   */
  private final TreeSet<StoredMessage> availableInOrder = new TreeSet<>(messageOrder);

  private final List<StoredMessage> newlyEligible;
  private final HoldWork work;

  /** Over the heads of ready groups only, so a selector sees group heads only. */
  private final @Nullable PartitionIndex index;

  /** The store's side when the queue is windowed; null: the heap holds every message. */
  private @Nullable Cold cold;

  /** Groups with cold messages and none in the heap up to their hot end (identity set). */
  private final Set<Group> starved = new java.util.LinkedHashSet<>();

  GroupedOrdering(Set<String> indexed, List<StoredMessage> newlyEligible, HoldWork work) {
    this.newlyEligible = newlyEligible;
    this.work = work;
    this.index = indexed.isEmpty() ? null : new PartitionIndex(indexed, HEAD_ORDER, work);
  }

  /** The interned group id for a new message, so every message of a group shares one string. */
  String canonicalGroupId(String groupId) {
    Group g = groups.get(groupId);
    return g == null ? groupId : g.id;
  }

  /** Sets the store's side of a windowed queue. */
  void cold(Cold cold) {
    this.cold = cold;
  }

  @Override
  void added(StoredMessage m) {
    Group g = groups.computeIfAbsent(m.groupId, Group::new);
    StoredMessage head = g.line.peekFirst();
    if (g.whole()) {
      g.line.addLast(m);
    } else {
      insertInLine(g.line, m); // read back from the store: it may sort before messages held
    }
    if (m.state == StoredMessage.AVAILABLE) {
      availableInOrder.add(m);
    } else if (m.state == StoredMessage.IN_FLIGHT) {
      g.inFlight++; // only when rebuilding a queue that has leases
    }
    if (head != null && g.line.peekFirst() == head && m.state != StoredMessage.IN_FLIGHT) {
      return; // behind the head: the group is filed as it was (a page read during a take)
    }
    refresh(g);
  }

  private static void insertInLine(ArrayDeque<StoredMessage> line, StoredMessage m) {
    StoredMessage last = line.peekLast();
    if (last == null || LINE_ORDER.compare(last, m) < 0) {
      line.addLast(m);
      return;
    }
    StoredMessage[] all = line.toArray(new StoredMessage[0]);
    line.clear();
    boolean placed = false;
    for (StoredMessage x : all) {
      if (!placed && LINE_ORDER.compare(m, x) < 0) {
        line.addLast(m);
        placed = true;
      }
      line.addLast(x);
    }
    if (!placed) {
      line.addLast(m);
    }
  }

  /** The group of {@code m} while it has messages in the heap or is starved; else null. */
  @Nullable Group groupOf(StoredMessage m) {
    return m.groupId == null ? null : groups.get(m.groupId);
  }

  /** Groups with cold messages and none held up to their end: the window reads their next page. */
  List<Group> starved() {
    return starved.isEmpty() ? List.of() : List.copyOf(starved);
  }

  /** Groups with messages in the heap or starved (the window shrinks those it touched). */
  java.util.Collection<Group> groups() {
    return groups.values();
  }

  /** Moves {@code g}'s hot end to (seq, serial), after a read of its line. */
  void hotEnd(Group g, long seq, long serial) {
    g.endSeq = seq;
    g.endSerial = serial;
    if (!g.ready && !g.held) {
      refresh(g);
    }
  }

  /** The heap now holds every message of {@code g}. */
  void whole(Group g) {
    hotEnd(g, Long.MAX_VALUE, Long.MAX_VALUE);
  }

  /**
   * Recovery held the first message of every group and perhaps some after it: each group's hot end
   * is its first message, and a receive reads on from there.
   */
  void restoredEnds() {
    for (Group g : List.copyOf(groups.values())) {
      StoredMessage first = g.line.peekFirst();
      if (first != null) {
        g.endSeq = first.seq;
        g.endSerial = first.serial;
        refresh(g);
      }
    }
  }

  @Override
  void stateChanged(StoredMessage m, byte from) {
    Group g = Objects.requireNonNull(groups.get(m.groupId));
    if (from == StoredMessage.AVAILABLE) {
      availableInOrder.remove(m);
    } else if (from == StoredMessage.IN_FLIGHT) {
      g.inFlight--;
    }
    if (m.state == StoredMessage.AVAILABLE) {
      availableInOrder.add(m);
    } else if (m.state == StoredMessage.IN_FLIGHT) {
      g.inFlight++;
    }
    refresh(g);
  }

  @Override
  void removed(StoredMessage m) {
    Group g = groups.get(m.groupId);
    if (g == null) {
      return;
    }
    unready(g);
    g.line.removeFirstOccurrence(m);
    if (m.state == StoredMessage.AVAILABLE) {
      availableInOrder.remove(m);
    } else if (m.state == StoredMessage.IN_FLIGHT) {
      g.inFlight--;
    }
    refresh(g);
  }

  @Override
  void take(
      int max,
      @Nullable MessageFilter filter,
      long now,
      List<StoredMessage> out,
      @Nullable Scan scan,
      AnswerBudget budget) {
    Iterable<StoredMessage> heads =
        index != null && filter instanceof SelectorFilter s
            ? index.candidates(s.selector(), Objects.requireNonNull(scan).after)
            : null;
    List<Group> chosen =
        heads != null
            ? chooseByIndex(
                heads, max, Objects.requireNonNull(filter), now, Objects.requireNonNull(scan))
            : chooseByGroup(max, filter, now, scan);
    skippedKey = false;
    for (Group g : chosen) {
      takeFrom(g, max, out, budget);
    }
    if (!held.isEmpty() && !skippedKey) {
      Group last = chosen.isEmpty() ? null : chosen.get(chosen.size() - 1);
      boolean endedShort = out.size() < max;
      for (Group h : held) { // at most (in flight / limit) groups
        if (!endedShort && (last == null || READY_ORDER.compare(h, last) > 0)) {
          break;
        }
        if (filter == null || filter.test(Objects.requireNonNull(h.line.peekFirst()), now)) {
          skippedKey = true; // a group at its limit had a message it would have been offered
          break;
        }
      }
    }
  }

  /** How many more of {@code g}'s messages may go in flight now. */
  private int room(Group g) {
    return keyLimit == 0 ? Integer.MAX_VALUE : Math.max(0, keyLimit - g.inFlight);
  }

  /** Rule 1 over the indexed heads that may match, from where the scan stopped. */
  private List<Group> chooseByIndex(
      Iterable<StoredMessage> heads, int max, MessageFilter filter, long now, Scan scan) {
    List<Group> chosen = new ArrayList<>();
    int room = max;
    java.util.Iterator<StoredMessage> it = heads.iterator();
    while (room > 0 && it.hasNext()) {
      StoredMessage head = it.next();
      if (filter.test(head, now)) {
        Group g = Objects.requireNonNull(groups.get(head.groupId));
        chosen.add(g);
        room -= availableRun(g, Math.min(room, room(g)));
      }
      if (scan.charge(head)) {
        break;
      }
    }
    if (room == 0 || !it.hasNext()) {
      scan.finish();
    }
    return chosen;
  }

  /** Rule 1 over the ready groups in order, from the group where the scan stopped. */
  private List<Group> chooseByGroup(
      int max, @Nullable MessageFilter filter, long now, @Nullable Scan scan) {
    List<Group> chosen = new ArrayList<>();
    int room = max;
    java.util.Iterator<Group> it =
        filter == null || Objects.requireNonNull(scan).afterGroup == null
            ? ready.iterator()
            : ready.tailSet(Objects.requireNonNull(scan.afterGroup), false).iterator();
    while (room > 0 && it.hasNext()) {
      Group g = it.next();
      StoredMessage head = g.line.peekFirst();
      if (filter == null) {
        work.examined(1);
      }
      if (filter == null || filter.test(head, now)) {
        chosen.add(g);
        room -= availableRun(g, Math.min(room, room(g)));
      }
      if (filter != null && Objects.requireNonNull(scan).charge(head)) {
        scan.afterGroup = positionOf(g);
        break;
      }
    }
    if (filter != null && (room == 0 || !it.hasNext())) {
      Objects.requireNonNull(scan).finish();
    }
    return chosen;
  }

  /** A copy of a ready group's place in {@link #ready}. */
  private static Group positionOf(Group g) {
    Group probe = new Group(g.id);
    probe.readyPriority = g.readyPriority;
    probe.readyReceived = g.readyReceived;
    probe.readyPlace = g.readyPlace;
    probe.readySeq = g.readySeq;
    return probe;
  }

  /**
   * How many available messages the group's line starts with, counting up to {@code room}; when the
   * run reaches the group's hot end with cold messages after it, the next of its line are read from
   * the store first.
   */
  private int availableRun(Group g, int room) {
    while (true) {
      int n = 0;
      boolean atEnd = true;
      for (StoredMessage m : g.line) {
        if (n == room) {
          atEnd = false;
          break;
        }
        if (!g.within(m)) {
          break;
        }
        if (m.state != StoredMessage.AVAILABLE) {
          atEnd = false;
          break;
        }
        n++;
      }
      Cold c = cold;
      long endSeq = g.endSeq;
      long endSerial = g.endSerial;
      if (n == room || !atEnd || g.whole() || c == null) {
        work.examined(n);
        return n;
      }
      c.extend(g, room - n);
      if (g.endSeq == endSeq && g.endSerial == endSerial) {
        work.examined(n);
        return n;
      }
    }
  }

  /**
   * Rule 2: the head, then as many following available messages of its group as fit (in {@code max}
   * and in the answer's {@code budget}), up to the group's first message not available. A group
   * whose head does not fit stays ready, untouched.
   */
  private void takeFrom(Group g, int max, List<StoredMessage> out, AnswerBudget budget) {
    boolean first = true;
    int room = room(g);
    int taken = 0;
    for (StoredMessage m : g.line) {
      if (out.size() >= max
          || m.state != StoredMessage.AVAILABLE
          || !g.within(m)
          || !budget.fits(m)) {
        break;
      }
      if (taken == room) {
        skippedKey = true; // the group's limit cut its run short
        break;
      }
      if (first) {
        unready(g);
        first = false;
      }
      out.add(m);
      availableInOrder.remove(m);
      taken++;
      work.examined(1);
    }
    g.inFlight += taken; // the caller leases each one
  }

  @Override
  void reorder(StoredMessage m, Runnable change) {
    Group g = Objects.requireNonNull(groups.get(m.groupId));
    unready(g);
    boolean available = availableInOrder.remove(m);
    change.run();
    if (available) {
      availableInOrder.add(m);
    }
    refresh(g);
  }

  @Override
  long eligibleCount() {
    return ready.size();
  }

  @Override
  boolean hasEligible() {
    return !ready.isEmpty();
  }

  @Override
  boolean isEligible(StoredMessage m) {
    Group g = groups.get(m.groupId);
    return g != null && g.ready && g.line.peekFirst() == m;
  }

  /**
   * Every available message (not only heads) after {@code after}, in order, from {@link
   * #availableInOrder}: a page reads what it shows (and what its filter tests), however deep the
   * queue.
   */
  @Override
  Iterable<StoredMessage> candidates(
      @Nullable StoredMessage after, @Nullable MessageFilter filter) {
    return after == null ? availableInOrder : availableInOrder.tailSet(after, false);
  }

  @Override
  boolean anyHeld() {
    return !held.isEmpty();
  }

  /** Sets the limit per group; each group is filed again (ready or held) under it. */
  @Override
  void keyLimit(int limit) {
    keyLimit = limit;
    for (Group g : List.copyOf(groups.values())) {
      refresh(g);
    }
  }

  @Override
  void clear() {
    groups.clear();
    ready.clear();
    held.clear();
    starved.clear();
    availableInOrder.clear();
    if (index != null) {
      index.clear();
    }
  }

  int groupCount() {
    return groups.size();
  }

  private void unready(Group g) {
    if (g.held) {
      held.remove(g);
      g.held = false;
    }
    if (g.ready) {
      ready.remove(g);
      g.ready = false;
      if (index != null) {
        index.remove(g.line.peekFirst());
      }
    }
  }

  private void refresh(Group g) {
    unready(g);
    StoredMessage head = g.line.peekFirst();
    if (head == null || !g.within(head)) {
      if (g.whole()) { // the line holds every message of the group, in flight or not
        starved.remove(g);
        groups.remove(g.id);
      } else {
        starved.add(g); // its next messages are only in the store
      }
      return;
    }
    starved.remove(g);
    if (head.state == StoredMessage.AVAILABLE) {
      g.readyPriority = head.priority;
      g.readyReceived = head.receiveCount > 0;
      g.readyPlace = place(head);
      g.readySeq = head.seq;
      if (keyLimit > 0 && g.inFlight >= keyLimit) {
        g.held = true; // its head was handed back while the limit's worth of it is in flight
        held.add(g);
        return;
      }
      g.ready = true;
      ready.add(g);
      if (index != null) {
        index.add(head);
      }
      newlyEligible.add(head);
    }
  }
}
