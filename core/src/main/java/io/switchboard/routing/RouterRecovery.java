package io.switchboard.routing;

import io.switchboard.routing.spi.RouterSnapshot;
import io.switchboard.routing.spi.StoredAgent;
import io.switchboard.routing.spi.StoredContact;
import io.switchboard.routing.spi.StoredReservation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Rebuilds a router's records from a {@link RouterSnapshot}: agents, contacts and reservations
 * linked again, and what is derived rather than stored (an agent's load, pending offers, assigned
 * contacts and wrap-ups) computed from the contacts and reservations that name it. {@link
 * MemoryRouter} then indexes the records and schedules the timers they imply.
 */
final class RouterRecovery {

  private static final Set<ContactState> FINISHED =
      EnumSet.of(
          ContactState.COMPLETED,
          ContactState.ABANDONED,
          ContactState.TIMED_OUT,
          ContactState.CANCELLED);

  final Map<String, AgentRecord> agents = new HashMap<>();
  final Map<String, ContactRecord> contacts = new HashMap<>();
  final Map<String, ReservationRecord> reservations = new HashMap<>();

  /** Finished contacts in the order they finished: the history's order. */
  final List<ContactRecord> finished = new ArrayList<>();

  /** Agents that were removed but are still named by finished contacts or their reservations. */
  private final Map<String, AgentRecord> removed = new HashMap<>();

  /** Parses each stored requirement text once (it was accepted when stored, so it parses). */
  private final Requirements requirements;

  RouterRecovery(RouterSnapshot snapshot, Requirements requirements) {
    this.requirements = requirements;
    for (StoredAgent a : snapshot.agents()) {
      AgentRecord agent =
          new AgentRecord(a.id(), a.serial(), a.attributes(), a.capacity(), a.presence());
      agent.idleSince = a.idleSince();
      agent.idleSeq = a.idleSeq();
      agent.misses = a.misses();
      agent.activity = a.activity() != null ? a.activity() : Activity.label(a.presence());
      agent.activitySince = a.activitySince();
      agent.activityMillis.putAll(a.activityMillis());
      agents.put(agent.id, agent);
    }
    Map<String, StoredContact> storedContacts = new HashMap<>();
    for (StoredContact c : snapshot.contacts()) {
      storedContacts.put(c.id(), c);
      contacts.put(c.id(), contact(c));
    }
    List<StoredReservation> byCreation = new ArrayList<>(snapshot.reservations());
    byCreation.sort(Comparator.comparingLong(StoredReservation::seq));
    for (StoredReservation r : byCreation) {
      ContactRecord contact = contacts.get(r.contactId());
      if (contact == null) {
        continue; // its contact left the history in a batch that was stored only in part
      }
      ReservationRecord offer =
          new ReservationRecord(
              r.id(), r.seq(), contact, agent(r.agentId()), r.offeredAt(), r.expiresAt());
      offer.state = r.state();
      offer.timerSeq = r.timerSeq();
      offer.restUntil = r.restUntil();
      offer.restTimerSeq = r.restTimerSeq();
      offer.resting = r.restTimerSeq() > 0;
      reservations.put(offer.id, offer);
      contact.reservations.add(offer);
      if (offer.state == ReservationState.PENDING) {
        offer.agent.pending.add(offer);
        offer.agent.hold(contact);
      }
    }
    for (ContactRecord contact : contacts.values()) {
      StoredContact c = Objects.requireNonNull(storedContacts.get(contact.id));
      contact.agent = c.agentId().map(this::agent).orElse(null);
      contact.reservation = c.reservationId().map(reservations::get).orElse(null);
      if (contact.state == ContactState.ASSIGNED || contact.state == ContactState.WRAP_UP) {
        AgentRecord agent = Objects.requireNonNull(contact.agent, "an assigned contact's agent");
        agent.active.add(contact);
        agent.hold(contact);
        if (contact.state == ContactState.WRAP_UP) {
          agent.wrapUps++;
        }
      }
      if (FINISHED.contains(contact.state)) {
        finished.add(contact);
      }
    }
    finished.sort(Comparator.comparingLong(c -> c.retireSeq));
  }

  private Requirement parse(Optional<String> text) {
    return requirements.parse("stored requirement", text);
  }

  private ContactRecord contact(StoredContact c) {
    List<ContactRecord.Step> steps =
        c.steps().stream()
            .map(
                s ->
                    new ContactRecord.Step(
                        s.afterMillis(),
                        parse(s.requirement()),
                        s.queue().orElse(null),
                        s.priority().orElse(null),
                        s.skipIfNoneAvailable()))
            .toList();
    ContactRecord contact =
        new ContactRecord(
            c.id(),
            c.channel(),
            c.attributes(),
            c.priority(),
            c.seq(),
            c.createdAt(),
            parse(c.requirement()),
            steps,
            c.deadline());
    contact.step = c.step();
    contact.queue = c.queue().orElse(null);
    contact.workflow = c.workflow().orElse(null);
    contact.state = c.state();
    contact.answeredAt = c.answeredAt();
    contact.endedAt = c.endedAt();
    contact.wrapUpUntil = c.wrapUpUntil();
    contact.timerSeq = c.timerSeq();
    contact.wrapUpTimerSeq = c.wrapUpTimerSeq();
    contact.retireSeq = c.retireSeq();
    return contact;
  }

  /** The agent with this id, or a stand-in for one removed since (it only lends its id). */
  private AgentRecord agent(String id) {
    AgentRecord agent = agents.get(id);
    return agent != null
        ? agent
        : removed.computeIfAbsent(
            id, i -> new AgentRecord(i, 0, Map.of(), Map.of(), Presence.offline()));
  }
}
