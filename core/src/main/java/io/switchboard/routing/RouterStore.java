package io.switchboard.routing;

import io.switchboard.routing.spi.RouterCounters;
import io.switchboard.routing.spi.RouterEntry;
import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.routing.spi.StoredAgent;
import io.switchboard.routing.spi.StoredContact;
import io.switchboard.routing.spi.StoredReservation;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongFunction;

/**
 * The router's side of its {@link RouterJournal}: the router ({@link CallContext#touch}) marks
 * every record a call changes, and at the end of the call, still under the lock, the marked records
 * become one batch of puts (then deletes) with the counters. Recording whole records rather than
 * the change itself keeps the journal format independent of the matching logic: a record's stored
 * form is everything about it that recovery cannot derive.
 */
final class RouterStore {

  /**
   * Event ids are reserved durably this many at a time, before they are handed out, so ids never
   * repeat after a restart even when the last changes before a crash were not yet stored.
   */
  static final long EVENT_ID_BLOCK = 1 << 20;

  private final RouterJournal journal;
  // The records changed in the call in progress, in the order of their first change; a record's
  // storeMark says it is listed (MARKED) or was listed and then deleted (DROPPED), so marking is a
  // field test rather than a hash-set insertion.
  private final List<AgentRecord> agents = new ArrayList<>();
  private final List<ContactRecord> contacts = new ArrayList<>();
  private final List<ReservationRecord> reservations = new ArrayList<>();
  private final List<RouterEntry> deletes = new ArrayList<>();
  private long eventIdLimit;

  RouterStore(RouterJournal journal, long eventIdLimit) {
    this.journal = journal;
    this.eventIdLimit = eventIdLimit;
  }

  RouterJournal journal() {
    return journal;
  }

  /** Not listed. */
  static final byte UNMARKED = 0;

  /** Listed: its put goes into the batch. */
  static final byte MARKED = 1;

  /** Listed, then deleted in the same call: no put. */
  static final byte DROPPED = 2;

  void touch(AgentRecord agent) {
    if (agent.storeMark == UNMARKED) {
      agents.add(agent);
    }
    agent.storeMark = MARKED;
  }

  void touch(ContactRecord contact) {
    if (contact.storeMark == UNMARKED) {
      contacts.add(contact);
    }
    contact.storeMark = MARKED;
  }

  void touch(ReservationRecord reservation) {
    if (reservation.storeMark == UNMARKED) {
      reservations.add(reservation);
    }
    reservation.storeMark = MARKED;
  }

  void agentRemoved(AgentRecord agent) {
    if (agent.storeMark == MARKED) {
      agent.storeMark = DROPPED;
    }
    deletes.add(new RouterEntry.AgentDelete(agent.id));
  }

  /** A finished contact left the history, and its reservations with it. */
  void contactDropped(ContactRecord contact) {
    if (contact.storeMark == MARKED) {
      contact.storeMark = DROPPED;
    }
    deletes.add(new RouterEntry.ContactDelete(contact.id));
    for (ReservationRecord r : contact.reservations) {
      if (r.storeMark == MARKED) {
        r.storeMark = DROPPED;
      }
      deletes.add(new RouterEntry.ReservationDelete(r.id));
    }
  }

  /**
   * Before a call hands out event ids: if fewer than half a block is left, reserves the next block
   * and waits until the reservation is stored.
   */
  void reserveEventIds(long lastEventId, LongFunction<RouterCounters> counters) {
    if (lastEventId + EVENT_ID_BLOCK / 2 > eventIdLimit) {
      eventIdLimit = lastEventId + EVENT_ID_BLOCK;
      journal
          .appendDurable(List.of(new RouterEntry.CountersPut(counters.apply(eventIdLimit))))
          .await();
    }
  }

  /**
   * Under the lock, at the end of a call: appends what the call changed as one batch, durably if
   * {@code durable}, with the counters ({@code counters} makes them, given the event-id limit, only
   * when there is something to write). Returns the ticket to await once the lock is released.
   */
  RouterJournal.Ticket flush(
      LongFunction<RouterCounters> counters, IntervalStats intervals, long now, boolean durable) {
    if (agents.isEmpty()
        && contacts.isEmpty()
        && reservations.isEmpty()
        && deletes.isEmpty()
        && !intervals.changed(now)) {
      return RouterJournal.DONE;
    }
    List<RouterEntry> batch =
        new ArrayList<>(agents.size() + contacts.size() + reservations.size() + deletes.size() + 1);
    for (AgentRecord a : agents) {
      if (a.storeMark == MARKED) {
        batch.add(new RouterEntry.AgentPut(stored(a)));
      }
      a.storeMark = UNMARKED;
    }
    for (ContactRecord c : contacts) {
      if (c.storeMark == MARKED) {
        batch.add(new RouterEntry.ContactPut(stored(c)));
      }
      c.storeMark = UNMARKED;
    }
    for (ReservationRecord r : reservations) {
      if (r.storeMark == MARKED) {
        batch.add(new RouterEntry.ReservationPut(stored(r)));
      }
      r.storeMark = UNMARKED;
    }
    batch.addAll(deletes);
    intervals.flush(now, batch);
    batch.add(new RouterEntry.CountersPut(counters.apply(eventIdLimit)));
    agents.clear();
    contacts.clear();
    reservations.clear();
    deletes.clear();
    if (durable) {
      return journal.appendDurable(batch);
    }
    journal.append(batch);
    return RouterJournal.DONE;
  }

  static StoredAgent stored(AgentRecord a) {
    return new StoredAgent(
        a.id,
        a.serial,
        a.attributes,
        a.capacity,
        a.presence,
        a.idleSince,
        a.idleSeq,
        a.misses,
        a.activity,
        a.activitySince,
        a.activityMillis);
  }

  static StoredContact stored(ContactRecord c) {
    List<StoredContact.Step> steps = List.of();
    if (!c.steps.isEmpty()) {
      StoredContact.Step[] stored = new StoredContact.Step[c.steps.size()];
      for (int i = 0; i < stored.length; i++) {
        ContactRecord.Step s = c.steps.get(i);
        stored[i] =
            new StoredContact.Step(
                s.afterMillis(),
                s.requirement().normalized,
                Optional.ofNullable(s.queue()),
                Optional.ofNullable(s.priority()),
                s.skip());
      }
      steps = List.of(stored);
    }
    return new StoredContact(
        c.id,
        c.channel,
        c.attributes,
        c.priority,
        c.seq,
        c.createdAt,
        steps,
        c.deadline,
        c.requirement.normalized,
        c.step,
        c.state,
        Optional.ofNullable(c.agent).map(a -> a.id),
        Optional.ofNullable(c.reservation).map(r -> r.id),
        c.answeredAt,
        c.endedAt,
        c.wrapUpUntil,
        c.timerSeq,
        c.wrapUpTimerSeq,
        c.retireSeq,
        Optional.ofNullable(c.queue),
        Optional.ofNullable(c.workflow));
  }

  static StoredReservation stored(ReservationRecord r) {
    return new StoredReservation(
        r.id,
        r.seq,
        r.contact.id,
        r.agent.id,
        r.offeredAt,
        r.expiresAt,
        r.state,
        r.timerSeq,
        r.restUntil,
        r.restTimerSeq);
  }
}
