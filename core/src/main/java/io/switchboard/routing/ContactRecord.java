package io.switchboard.routing;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** The router's mutable state of one contact. */
final class ContactRecord {

  final String id;
  final String channel;
  java.util.Map<String, Object> attributes;
  int priority;

  /** Arrival order; with the priority it fixes the contact's place in line (kept by changes). */
  final long seq;

  final long createdAt;

  /** The escalation steps; a workflow's re-evaluation replaces them ({@link Matcher#reroute}). */
  List<Step> steps;

  /**
   * Clock millis after which a queued contact times out; Long.MAX_VALUE for never (and after a
   * transfer).
   */
  long deadline;

  /** The task queue it was routed through, or null. */
  @Nullable String queue;

  /** Newest first among equal priority, while queued: its task queue is LIFO. */
  boolean lifo;

  /** The workflow that routed it, or null. */
  @Nullable String workflow;

  /** The current requirement: the contact's own, or its last escalation step's. */
  Requirement requirement;

  /** {@link WaitingGroup#key} of the current requirement, for the statistics. */
  String groupKey;

  int step;
  ContactState state = ContactState.QUEUED;
  @Nullable WaitingGroup group;

  /** Where the contact sits in its group's {@link ContactHeap}s while queued. */
  int lineSlot;

  int arrivalSlot;
  @Nullable AgentRecord agent;
  @Nullable ReservationRecord reservation;
  long answeredAt = -1;
  long endedAt = -1;

  /** Clock millis the wrap-up ends, -1 when not in wrap-up. */
  long wrapUpUntil = -1;

  /** The order number of the first escalation timer; the other steps and maximum wait follow. */
  long timerSeq;

  long wrapUpTimerSeq;

  /** The order in which the contact finished; 0 while live. */
  long retireSeq;

  /** {@link RouterStore}'s mark: whether the call in progress changed the record. */
  byte storeMark;

  /** How many of its refused offers' rests are in force ({@link ReservationRecord#resting}). */
  int rests;

  /** Counted in its group's {@link WaitingGroup#resting} while queued. */
  boolean restCounted;

  final List<ReservationRecord> reservations = new ArrayList<>(1);

  /**
   * An escalation step, parsed: after {@code afterMillis} from arrival, the requirement, and (when
   * not null) the task queue and the priority; {@code skip}: on to the next step at once if no
   * agent takes the contact on entry.
   */
  record Step(
      long afterMillis,
      Requirement requirement,
      @Nullable String queue,
      @Nullable Integer priority,
      boolean skip) {
    Step(long afterMillis, Requirement requirement) {
      this(afterMillis, requirement, null, null, false);
    }
  }

  ContactRecord(
      String id,
      String channel,
      java.util.Map<String, Object> attributes,
      int priority,
      long seq,
      long createdAt,
      Requirement requirement,
      List<Step> steps,
      long deadline) {
    this.id = id;
    this.channel = channel;
    // immutable once, so that every view (which copies into an immutable map) shares it
    this.attributes = java.util.Map.copyOf(attributes);
    this.priority = priority;
    this.seq = seq;
    this.createdAt = createdAt;
    requirement(requirement);
    this.steps = steps;
    this.deadline = deadline;
  }

  /**
   * Whether the contact is not to be offered to {@code agent} now: the agent refused it (rejected
   * it or let the offer time out) and the rest period after that has not ended.
   */
  boolean restsFrom(AgentRecord agent) {
    if (rests == 0) {
      return false;
    }
    for (int i = reservations.size() - 1; i >= 0; i--) {
      ReservationRecord r = reservations.get(i);
      if (r.agent == agent && r.resting) {
        return true;
      }
    }
    return false;
  }

  void requirement(Requirement requirement) {
    this.requirement = requirement;
    this.groupKey = WaitingGroup.key(channel, requirement);
  }

  /**
   * The order of service: higher priority first; among equal priority, contacts of FIFO order
   * (every contact outside a LIFO task queue) by arrival, then those of LIFO queues newest first
   * ({@link ContactHeap#serviceKey}).
   */
  static int compareOrder(ContactRecord a, ContactRecord b) {
    return Long.compare(ContactHeap.serviceKey(a), ContactHeap.serviceKey(b));
  }

  Contact view() {
    return new Contact(
        id,
        channel,
        attributes,
        requirement.normalized,
        step,
        priority,
        state,
        Instant.ofEpochMilli(createdAt),
        Optional.ofNullable(agent).map(a -> a.id),
        Optional.ofNullable(reservation).map(r -> r.id),
        answeredAt < 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(answeredAt)),
        endedAt < 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(endedAt)),
        Optional.ofNullable(queue),
        Optional.ofNullable(workflow));
  }
}
