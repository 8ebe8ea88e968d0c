package io.switchboard.routing;

import io.switchboard.internal.LongObjectMap;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The router's contacts and their reservations: live contacts by id, the waiting line of the queued
 * ones ({@link WaitingLine}), and the bounded history of finished ones, which keeps a contact and
 * its reservations readable until {@code contactHistory} later contacts have finished.
 */
final class ContactBook {

  private final CallContext call;
  private final Map<String, ContactRecord> contacts = new HashMap<>();

  /** Finished contacts in the order they finished, oldest first. */
  private final ArrayDeque<ContactRecord> finished = new ArrayDeque<>();

  /**
   * Reservations by number: an id is {@code res-<number>}, and keying by the number spares the
   * history's eviction, which drops reservations made long ago, a string hash and comparison.
   */
  private final LongObjectMap<ReservationRecord> reservations = new LongObjectMap<>();

  final WaitingLine line = new WaitingLine();

  /** The last arrival number given. */
  long seq;

  /** The last finishing order number given. */
  long retireSeq;

  /** The last reservation number given. */
  long reservationSeq;

  ContactBook(CallContext call) {
    this.call = call;
  }

  /** The contact with this id, live or in the history; fails with CONTACT_NOT_FOUND. */
  ContactRecord get(String contactId) {
    Objects.requireNonNull(contactId, "contactId");
    ContactRecord contact = contacts.get(contactId);
    if (contact == null) {
      throw RoutingException.contactNotFound(contactId);
    }
    return contact;
  }

  /** Fails with CONTACT_ALREADY_EXISTS if the id is taken, by a live or a finished contact. */
  void checkNew(String contactId) {
    if (contacts.containsKey(contactId)) {
      throw new RoutingException(
          RoutingErrorCode.CONTACT_ALREADY_EXISTS, "contact '" + contactId + "' exists already");
    }
  }

  void add(ContactRecord contact) {
    contacts.put(contact.id, contact);
    call.touch(contact);
  }

  /** How many live contacts were routed through {@code queue}: one pass over the contacts. */
  int live(String queue) {
    int n = 0;
    for (ContactRecord c : contacts.values()) {
      if (queue.equals(c.queue) && !c.state.isFinal()) {
        n++;
      }
    }
    return n;
  }

  /** Moves a finished contact to the bounded history; the oldest finished one drops out. */
  void retire(ContactRecord contact) {
    contact.retireSeq = ++retireSeq;
    call.touch(contact);
    finished.addLast(contact);
    while (finished.size() > call.settings.contactHistory()) {
      ContactRecord oldest = finished.pollFirst();
      contacts.remove(oldest.id);
      for (ReservationRecord r : oldest.reservations) {
        reservations.remove(r.seq);
      }
      if (call.store != null) {
        call.store.contactDropped(oldest);
      }
    }
  }

  /** The reservation with this id; fails with RESERVATION_NOT_FOUND. */
  ReservationRecord reservation(String reservationId) {
    Objects.requireNonNull(reservationId, "reservationId");
    ReservationRecord offer = reservations.get(number(reservationId));
    if (offer == null || !offer.id.equals(reservationId)) {
      throw RoutingException.reservationNotFound(reservationId);
    }
    return offer;
  }

  /** The number in {@code res-<number>}, or 0 (no reservation has it) for any other text. */
  private static long number(String reservationId) {
    int n = reservationId.length();
    if (!reservationId.startsWith("res-") || n == 4 || n > 4 + 18) {
      return 0;
    }
    long number = 0;
    for (int i = 4; i < n; i++) {
      char c = reservationId.charAt(i);
      if (c < '0' || c > '9') {
        return 0;
      }
      number = number * 10 + (c - '0');
    }
    return number;
  }

  /** A new pending reservation of a queued contact for an agent, expiring after the timeout. */
  ReservationRecord newReservation(ContactRecord contact, AgentRecord agent) {
    long n = ++reservationSeq;
    ReservationRecord offer =
        new ReservationRecord(
            "res-" + n, n, contact, agent, call.now, call.now + call.settings.offerTimeoutMillis());
    reservations.put(n, offer);
    contact.reservations.add(offer);
    call.touch(offer);
    return offer;
  }

  /**
   * Views of the queued contacts, group by group (by key; groups of several task queues with the
   * same key as one), each group in order of service.
   */
  List<Contact> waiting() {
    List<ContactRecord> all = new ArrayList<>(line.size());
    line.groups().forEach(g -> g.forEach(all::add));
    all.sort(LISTING);
    List<Contact> views = new ArrayList<>(all.size());
    all.forEach(c -> views.add(c.view()));
    return views;
  }

  private static final Comparator<ContactRecord> LISTING =
      Comparator.comparing((ContactRecord c) -> waitingGroup(c).key)
          .thenComparing(ContactRecord::compareOrder);

  /** The group of a contact in the line (every queued contact has one). */
  private static WaitingGroup waitingGroup(ContactRecord c) {
    return Objects.requireNonNull(c.group, "a waiting contact is in a group");
  }

  /**
   * A page of the queued contacts in the order of {@link #waiting()}: by group key, then order of
   * service (priority, arrival), after the place {@code after} names (null: from the first).
   */
  ListPage<Contact> waitingPage(@Nullable Place after, int limit) {
    Paging.Picker<ContactRecord> picker = new Paging.Picker<>(LISTING, limit);
    for (WaitingGroup g : line.groups()) {
      int byKey = after == null ? 1 : g.key.compareTo(after.groupKey);
      if (byKey > 0) {
        g.forEach(picker::offer);
      } else if (byKey == 0) {
        g.forEach(
            c -> {
              if (Objects.requireNonNull(after).isBefore(c)) {
                picker.offer(c);
              }
            });
      }
    }
    return picker.page("contacts", Place::key, ContactRecord::view);
  }

  /**
   * A waiting contact's place in the listing: its group, priority and arrival (negative for a
   * contact of a LIFO queue, whose order runs the other way).
   */
  record Place(String groupKey, int priority, long seq) {

    static String key(ContactRecord c) {
      return c.priority + "/" + (c.lifo ? -c.seq : c.seq) + "/" + waitingGroup(c).key;
    }

    /** The place a cursor's key names; anything else is a bad cursor. */
    static Place of(String key, String cursor) {
      int first = key.indexOf('/');
      int second = first < 0 ? -1 : key.indexOf('/', first + 1);
      if (second < 0) {
        throw Paging.badCursor("contacts", cursor);
      }
      try {
        return new Place(
            key.substring(second + 1),
            Integer.parseInt(key.substring(0, first)),
            Long.parseLong(key.substring(first + 1, second)));
      } catch (NumberFormatException e) {
        throw Paging.badCursor("contacts", cursor);
      }
    }

    /** Whether {@code c}, of this place's group, comes after this place in order of service. */
    boolean isBefore(ContactRecord c) {
      if (c.priority != priority) {
        return c.priority < priority;
      }
      if (c.lifo != seq < 0) {
        return c.lifo; // FIFO contacts before LIFO ones ({@link ContactHeap#serviceKey})
      }
      return c.lifo ? c.seq < -seq : c.seq > seq;
    }
  }

  Collection<ContactRecord> all() {
    return contacts.values();
  }

  /** On recovery: the stored records, and the finished contacts in the order they finished. */
  void restore(
      Map<String, ContactRecord> recovered,
      Map<String, ReservationRecord> recoveredReservations,
      List<ContactRecord> finishedInOrder) {
    contacts.putAll(recovered);
    recoveredReservations.values().forEach(r -> reservations.put(r.seq, r));
    finished.addAll(finishedInOrder);
  }
}
