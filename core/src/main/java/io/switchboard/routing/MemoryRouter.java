package io.switchboard.routing;

import io.switchboard.routing.spi.RouterCounters;
import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.routing.spi.RouterSnapshot;
import io.switchboard.selector.Selector;
import io.switchboard.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The in-memory router. One lock guards everything: every call takes it, fires the timers that fell
 * due, validates, changes state, matches, and releases it; listeners get the events after. A single
 * lock is the simplest way to make "one contact, one agent" and work conservation hold under any
 * concurrency, and a routing decision costs microseconds, so it is not the bottleneck yet (see
 * {@code docs/routing.md}).
 *
 * <p><b>Matching</b> keeps one invariant between calls: no eligible agent matches a queued contact.
 * Each change that could break it is followed at once by the step that restores it:
 *
 * <ul>
 *   <li>a contact enters the line (arrives, returns from an offer, escalates): if its group had
 *       contacts already, the invariant says no eligible agent matches the group, so it waits;
 *       otherwise it goes to the first matching agent in strategy order ({@link #settleContact});
 *   <li>an agent becomes eligible (or changes attributes or capacity): it takes the best head among
 *       the groups it matches, again and again while it stays eligible ({@link #settleAgent}).
 * </ul>
 *
 * Each step runs while the invariant holds for everyone else, which gives "no skipping": the agent
 * chosen for a contact matches no contact waiting ahead of it. When one call does several things (a
 * rejected offer returns the contact and frees the agent), the contact is settled before the
 * agent's slot is released, so the contact goes to another agent if one matches, and the rejecting
 * agent gets it back only when nobody else can take it.
 *
 * <p><b>State changes</b> go through a few methods ({@link #changeAgent}, {@link #offer}, {@link
 * #closeOffer}, {@link #requeue}, {@link #retire}) and each emits its event, so the event sequence
 * is a complete log of the changes. The same methods mark the records they change for the journal,
 * if there is one ({@link RouterStore}): at the end of each call the marked records are written as
 * one batch, and a call that changes something returns once its batch is durable. A router with a
 * journal recovers from it when built ({@link #recover}).
 */
final class MemoryRouter implements Router {

  private static final long MAX_TIMER_PARK_NANOS = Duration.ofMinutes(1).toNanos();

  private final RouterSettings settings;
  private final Clock clock;
  private final ReentrantLock lock = new ReentrantLock();
  private final Map<String, AgentRecord> agents = new HashMap<>();
  private final Map<String, ContactRecord> contacts = new HashMap<>();
  private final LinkedHashMap<String, ContactRecord> finished = new LinkedHashMap<>();
  private final Map<String, ReservationRecord> reservations = new HashMap<>();
  private final WaitingLine line = new WaitingLine();
  private final Requirements requirements = new Requirements();
  private final EligibleAgents eligible;
  private final Timers timers = new Timers();
  private final EventLog events;
  private final LiveStats stats;
  private final Thread timerThread;

  /** The journal's side, or null for a router that keeps nothing. */
  private final RouterStore store;

  private long retireSeq;
  private long agentSerial;
  private long contactSeq;
  private long idleSeq;
  private long reservationSeq;
  private volatile long timerThreadWakeAt = Long.MAX_VALUE;
  private volatile boolean closed;
  private volatile String failure;

  /** The clock time of the call in progress; every change in it happens "now". */
  private long now;

  MemoryRouter(RouterSettings settings, RouterJournal journal) {
    this.settings = settings;
    this.clock = settings.clock();
    this.eligible = new EligibleAgents(settings.strategy());
    this.events = new EventLog(settings.eventHistory());
    this.stats = new LiveStats(settings.serviceLevelMillis(), settings.windowMillis());
    if (journal == null) {
      this.store = null;
    } else {
      RouterSnapshot snapshot = journal.load();
      this.store = new RouterStore(journal, snapshot.counters().eventIdLimit());
      recover(snapshot);
    }
    clock.onAdvance(this::clockAdvanced);
    boolean movesByItself = clock.parkNanosUntil(clock.millis() + 1) != Long.MAX_VALUE;
    timerThread =
        movesByItself
            ? Thread.ofPlatform().daemon().name("switchboard-routing-timers").start(this::timerLoop)
            : null;
  }

  // ---- recovery --------------------------------------------------------------------------

  /**
   * Rebuilds the state the journal holds: records, the waiting line, the eligible-agent index, and
   * the timers the state implies, each with its original order number so timers due at the same
   * time fire in the original order. Timers that fell due while the router was down fire at the
   * first call or clock tick, as any late timer does.
   */
  private void recover(RouterSnapshot snapshot) {
    RouterCounters c = snapshot.counters();
    agentSerial = c.agentSerial();
    contactSeq = c.contactSeq();
    idleSeq = c.idleSeq();
    reservationSeq = c.reservationSeq();
    retireSeq = c.retireSeq();
    timers.continueAfter(c.timerSeq());
    events.continueAfter(c.eventIdLimit());
    RouterRecovery rebuilt = new RouterRecovery(snapshot, requirements);
    agents.putAll(rebuilt.agents);
    contacts.putAll(rebuilt.contacts);
    reservations.putAll(rebuilt.reservations);
    rebuilt.finished.forEach(f -> finished.put(f.id, f));
    for (AgentRecord agent : agents.values()) {
      agent.rank = eligible.rank(agent);
      eligible.add(agent);
    }
    for (ReservationRecord offer : reservations.values()) {
      if (offer.state == ReservationState.PENDING && offer.timerSeq > 0) {
        timers.restore(offer.expiresAt, offer.timerSeq, Timers.Kind.OFFER_TIMEOUT, offer, 0);
      }
    }
    for (ContactRecord contact : contacts.values()) {
      switch (contact.state) {
        case QUEUED, OFFERED -> {
          if (contact.state == ContactState.QUEUED) {
            line.add(contact);
          }
          int steps = contact.steps.size();
          for (int i = contact.step; i < steps; i++) {
            long due = contact.createdAt + contact.steps.get(i).afterMillis();
            timers.restore(due, contact.timerSeq + i, Timers.Kind.ESCALATION, contact, i + 1);
          }
          if (contact.deadline != Long.MAX_VALUE) {
            timers.restore(
                contact.deadline, contact.timerSeq + steps, Timers.Kind.MAX_WAIT, contact, 0);
          }
        }
        case WRAP_UP ->
            timers.restore(
                contact.wrapUpUntil, contact.wrapUpTimerSeq, Timers.Kind.WRAP_UP_END, contact, 0);
        default -> {
          // assigned: no timer; finished: history only
        }
      }
    }
    store.reserveEventIds(events.lastId(), counters());
  }

  // ---- the call frame --------------------------------------------------------------------

  /** A call that only reads (timers that fell due may still change things, journaled async). */
  private <T> T locked(Supplier<T> action) {
    return call(action, false);
  }

  /**
   * A call that changes state: with a journal it returns only once its changes are durable (see
   * {@code docs/decisions.md}, routing durability).
   */
  private <T> T changing(Supplier<T> action) {
    return call(action, true);
  }

  private <T> T call(Supplier<T> action, boolean durable) {
    RouterJournal.Ticket ticket = RouterJournal.DONE;
    T result;
    lock.lock();
    try {
      if (closed) {
        throw new RoutingException(
            RoutingErrorCode.UNAVAILABLE, failure == null ? "the router is closed" : failure);
      }
      now = Math.max(now, clock.millis());
      if (store != null) {
        store.reserveEventIds(events.lastId(), counters());
      }
      try {
        fireDueTimers();
        result = action.get();
      } finally {
        eligible.putBack();
        if (store != null) {
          ticket = store.flush(counters(), durable);
        }
      }
    } catch (RoutingException e) {
      if (e.code() == RoutingErrorCode.UNAVAILABLE && store != null && !closed) {
        fail(e);
      }
      throw e;
    } finally {
      lock.unlock();
    }
    try {
      ticket.await();
    } catch (RoutingException e) {
      lock.lock();
      try {
        fail(e);
      } finally {
        lock.unlock();
      }
      throw e;
    } finally {
      events.deliver();
    }
    return result;
  }

  /**
   * The store refused a write: the memory state is now ahead of the store, so the router stops
   * (every later call fails with UNAVAILABLE) and a restart recovers from what was stored.
   */
  private void fail(RoutingException cause) {
    failure =
        "the routing store failed ("
            + cause.getMessage()
            + "); the router stopped, restart the server to recover what was stored";
    closed = true;
    if (timerThread != null) {
      LockSupport.unpark(timerThread);
    }
  }

  private RouterCounters counters() {
    return new RouterCounters(
        agentSerial,
        contactSeq,
        idleSeq,
        reservationSeq,
        timers.seq(),
        retireSeq,
        0 /* the store sets its own limit */);
  }

  private void touch(AgentRecord agent) {
    if (store != null) {
      store.touch(agent);
    }
  }

  private void touch(ContactRecord contact) {
    if (store != null) {
      store.touch(contact);
    }
  }

  private void touch(ReservationRecord reservation) {
    if (store != null) {
      store.touch(reservation);
    }
  }

  /** A manual clock jumped: fire what fell due, as the start of any call would. */
  private void clockAdvanced() {
    if (!closed) {
      try {
        locked(() -> null);
      } catch (RoutingException closedMeanwhile) {
        // closed between the check and the lock: nothing to fire any more
      }
    }
  }

  private void timerLoop() {
    while (!closed) {
      long next;
      try {
        next = locked(timers::nextDue);
      } catch (RoutingException closedNow) {
        return;
      }
      timerThreadWakeAt = next;
      LockSupport.parkNanos(this, Math.min(clock.parkNanosUntil(next), MAX_TIMER_PARK_NANOS));
    }
  }

  private long schedule(long due, Timers.Kind kind, Object target, int step) {
    long seq = timers.schedule(due, kind, target, step);
    if (timerThread != null && due < timerThreadWakeAt) {
      timerThreadWakeAt = due;
      LockSupport.unpark(timerThread);
    }
    return seq;
  }

  private void emit(EventLog.EventFactory factory) {
    events.append(now, factory);
  }

  private Instant at(long millis) {
    return Instant.ofEpochMilli(millis);
  }

  // ---- agents ----------------------------------------------------------------------------

  @Override
  public Agent createAgent(NewAgent spec) {
    Checks.id("agent id", spec.id());
    Map<String, Integer> capacity = Checks.capacity(spec.capacity());
    return changing(
        () -> {
          if (agents.containsKey(spec.id())) {
            throw new RoutingException(
                RoutingErrorCode.AGENT_ALREADY_EXISTS, "agent '" + spec.id() + "' exists already");
          }
          AgentRecord agent =
              new AgentRecord(
                  spec.id(), ++agentSerial, spec.attributes(), capacity, Presence.offline());
          agent.idleSince = now;
          agent.idleSeq = ++idleSeq;
          agents.put(agent.id, agent);
          changeAgent(agent, () -> agent.presence = spec.presence());
          emit((id, at) -> new RoutingEvent.AgentCreated(id, at, agent.view()));
          settleAgent(agent);
          return agent.view();
        });
  }

  @Override
  public Agent updateAttributes(String agentId, Map<String, ?> attributes) {
    Map<String, Object> copy = Checks.copyAttributes(attributes);
    return changing(
        () -> {
          AgentRecord agent = agentRecord(agentId);
          changeAgent(agent, () -> agent.attributes(copy));
          emit((id, at) -> new RoutingEvent.AgentUpdated(id, at, agent.view()));
          settleAgent(agent);
          return agent.view();
        });
  }

  @Override
  public Agent updateCapacity(String agentId, Map<String, Integer> capacity) {
    Map<String, Integer> copy = Checks.capacity(capacity);
    return changing(
        () -> {
          AgentRecord agent = agentRecord(agentId);
          changeAgent(agent, () -> agent.capacity = copy);
          emit((id, at) -> new RoutingEvent.AgentUpdated(id, at, agent.view()));
          settleAgent(agent);
          return agent.view();
        });
  }

  @Override
  public Agent presence(String agentId, Presence presence) {
    java.util.Objects.requireNonNull(presence, "presence");
    return changing(
        () -> {
          AgentRecord agent = agentRecord(agentId);
          if (!agent.presence.equals(presence)) {
            setPresence(agent, presence, "agent " + presence);
          }
          return agent.view();
        });
  }

  /** Changes presence; leaving "available" withdraws the agent's pending offers. */
  private void setPresence(AgentRecord agent, Presence presence, String cancelReason) {
    changeAgent(
        agent,
        () -> {
          agent.presence = presence;
          if (presence.isAvailable()) {
            agent.misses = 0;
          }
        });
    emit((id, at) -> new RoutingEvent.AgentPresenceChanged(id, at, agent.id, presence));
    if (presence.isAvailable()) {
      settleAgent(agent);
    } else {
      withdrawOffers(agent, cancelReason);
    }
  }

  /** Cancels an agent that cannot take work any more's pending offers, oldest first. */
  private void withdrawOffers(AgentRecord agent, String reason) {
    for (ReservationRecord offer : List.copyOf(agent.pending)) {
      closeOffer(offer, ReservationState.CANCELLED, reason);
      requeue(offer.contact);
      releaseSlot(agent, offer.contact);
    }
  }

  @Override
  public Agent agent(String agentId) {
    return locked(() -> agentRecord(agentId).view());
  }

  @Override
  public List<Agent> agents() {
    return locked(() -> sortedAgents(a -> true));
  }

  @Override
  public List<Agent> agents(String selector) {
    Selector filter = Checks.requirement("selector", selector);
    return locked(() -> sortedAgents(a -> filter.matches(a.view)));
  }

  private List<Agent> sortedAgents(java.util.function.Predicate<AgentRecord> filter) {
    return agents.values().stream()
        .filter(filter)
        .sorted(Comparator.comparing(a -> a.id))
        .map(AgentRecord::view)
        .toList();
  }

  @Override
  public void removeAgent(String agentId) {
    changing(
        () -> {
          AgentRecord agent = agentRecord(agentId);
          if (!agent.active.isEmpty()) {
            throw RoutingException.state(
                "agent '"
                    + agentId
                    + "' has "
                    + agent.active.size()
                    + " assigned or wrap-up contacts; complete them before removing the agent");
          }
          if (agent.presence.isAvailable()) {
            changeAgent(agent, () -> agent.presence = Presence.offline());
          }
          withdrawOffers(agent, "agent removed");
          agent.removed = true;
          eligible.takeOut(agent);
          agents.remove(agentId);
          if (store != null) {
            store.agentRemoved(agent);
          }
          emit((id, at) -> new RoutingEvent.AgentRemoved(id, at, agentId));
          return null;
        });
  }

  private AgentRecord agentRecord(String agentId) {
    java.util.Objects.requireNonNull(agentId, "agentId");
    AgentRecord agent = agents.get(agentId);
    if (agent == null) {
      throw new RoutingException(
          RoutingErrorCode.AGENT_NOT_FOUND, "agent '" + agentId + "' does not exist");
    }
    return agent;
  }

  /**
   * The one way to change what an agent's place in {@link EligibleAgents} depends on: out of the
   * index, change, idle-since if it just became idle; the index files it again when next read or at
   * the end of the call.
   */
  private void changeAgent(AgentRecord agent, Runnable change) {
    eligible.takeOut(agent);
    touch(agent);
    boolean wasIdle = agent.idle();
    change.run();
    agent.rank = eligible.rank(agent);
    if (!wasIdle && agent.idle()) {
      agent.idleSince = now;
      agent.idleSeq = ++idleSeq;
    }
  }

  // ---- contacts --------------------------------------------------------------------------

  @Override
  public Contact createContact(NewContact spec) {
    ContactRecord.Step[] steps = validate(spec);
    Requirement requirement = requirements.parse("requirements", spec.requirements());
    long maxWait =
        spec.maxWait()
            .map(d -> Checks.duration("maxWait", d, Duration.ofMillis(1), Checks.MAX_CONTACT_TIME))
            .orElse(-1L);
    return changing(
        () -> {
          if (contacts.containsKey(spec.id())) {
            throw new RoutingException(
                RoutingErrorCode.CONTACT_ALREADY_EXISTS,
                "contact '" + spec.id() + "' exists already");
          }
          ContactRecord contact =
              new ContactRecord(
                  spec.id(),
                  spec.channel(),
                  spec.attributes(),
                  spec.priority(),
                  ++contactSeq,
                  now,
                  requirement,
                  List.of(steps),
                  maxWait < 0 ? Long.MAX_VALUE : now + maxWait);
          contacts.put(contact.id, contact);
          touch(contact);
          contact.timerSeq = timers.seq() + 1;
          emit((id, at) -> new RoutingEvent.ContactQueued(id, at, contact.view()));
          for (int i = 0; i < steps.length; i++) {
            schedule(now + steps[i].afterMillis(), Timers.Kind.ESCALATION, contact, i + 1);
          }
          if (maxWait >= 0) {
            schedule(contact.deadline, Timers.Kind.MAX_WAIT, contact, 0);
          }
          settleContact(contact, line.add(contact));
          return contact.view();
        });
  }

  private ContactRecord.Step[] validate(NewContact spec) {
    Checks.id("contact id", spec.id());
    Checks.channel("channel", spec.channel());
    Checks.range("priority", spec.priority(), Checks.MIN_PRIORITY, Checks.MAX_PRIORITY);
    List<Escalation> escalations = spec.escalations();
    if (escalations.size() > Checks.MAX_ESCALATIONS) {
      throw RoutingException.invalid(
          "escalations must be at most "
              + Checks.MAX_ESCALATIONS
              + " steps, got "
              + escalations.size());
    }
    ContactRecord.Step[] steps = new ContactRecord.Step[escalations.size()];
    long previous = 0;
    for (int i = 0; i < steps.length; i++) {
      Escalation e = escalations.get(i);
      String field = "escalations[" + i + "]";
      long after =
          Checks.duration(
              field + ".after", e.after(), Duration.ofMillis(1), Checks.MAX_CONTACT_TIME);
      if (after <= previous) {
        throw RoutingException.invalid(
            field
                + ".after must be later than the step before ("
                + previous
                + " ms), got "
                + after
                + " ms");
      }
      previous = after;
      steps[i] =
          new ContactRecord.Step(
              after, requirements.parse(field + ".requirements", e.requirements()));
    }
    return steps;
  }

  @Override
  public Contact contact(String contactId) {
    return locked(() -> contactRecord(contactId).view());
  }

  @Override
  public List<Contact> waiting() {
    return locked(
        () -> {
          List<Contact> all = new ArrayList<>(line.size());
          line.groups().stream()
              .sorted(Comparator.comparing(g -> g.key))
              .forEach(g -> g.line.forEach(c -> all.add(c.view())));
          return all;
        });
  }

  @Override
  public Contact abandon(String contactId) {
    return changing(
        () -> {
          ContactRecord contact = contactRecord(contactId);
          switch (contact.state) {
            case QUEUED -> line.remove(contact);
            case OFFERED ->
                closeOffer(contact.reservation, ReservationState.CANCELLED, "abandoned");
            default ->
                throw RoutingException.state(
                    "contact '"
                        + contactId
                        + "' is "
                        + contact.state.name().toLowerCase()
                        + "; only a queued or offered contact can be abandoned");
          }
          AgentRecord offeredTo = contact.agent;
          contact.agent = null;
          contact.reservation = null;
          end(contact, ContactState.ABANDONED, LiveStats.Outcome.ABANDONED);
          if (offeredTo != null) {
            releaseSlot(offeredTo, contact);
          }
          return contact.view();
        });
  }

  @Override
  public Contact complete(String contactId) {
    return complete(contactId, Optional.empty());
  }

  @Override
  public Contact complete(String contactId, Duration wrapUp) {
    Checks.duration("wrapUp", wrapUp, Duration.ZERO, Checks.MAX_WRAP_UP);
    return complete(contactId, Optional.of(wrapUp));
  }

  private Contact complete(String contactId, Optional<Duration> wrapUp) {
    return changing(
        () -> {
          ContactRecord contact = contactRecord(contactId);
          if (contact.state != ContactState.ASSIGNED) {
            throw RoutingException.state(
                "contact '"
                    + contactId
                    + "' is "
                    + contact.state.name().toLowerCase()
                    + "; only an assigned contact can be completed");
          }
          long wrapMillis =
              wrapUp.map(Duration::toMillis).orElse(settings.wrapUpMillis(contact.channel));
          if (wrapMillis == 0) {
            finishCompleted(contact);
          } else {
            AgentRecord agent = contact.agent;
            contact.state = ContactState.WRAP_UP;
            touch(contact);
            changeAgent(agent, () -> agent.wrapUps++);
            long until = now + wrapMillis;
            contact.wrapUpUntil = until;
            emit(
                (id, at) ->
                    new RoutingEvent.ContactWrapUp(id, at, contact.id, agent.id, at(until)));
            contact.wrapUpTimerSeq = schedule(until, Timers.Kind.WRAP_UP_END, contact, 0);
          }
          return contact.view();
        });
  }

  private void finishCompleted(ContactRecord contact) {
    AgentRecord agent = contact.agent;
    boolean wasWrapUp = contact.state == ContactState.WRAP_UP;
    contact.state = ContactState.COMPLETED;
    contact.endedAt = now;
    contact.wrapUpUntil = -1;
    touch(contact);
    changeAgent(
        agent,
        () -> {
          if (wasWrapUp) {
            agent.wrapUps--;
          }
          agent.active.remove(contact);
          agent.addLoad(contact.channel, -1);
        });
    emit((id, at) -> new RoutingEvent.ContactCompleted(id, at, contact.id, agent.id));
    retire(contact);
    settleAgent(agent);
  }

  private ContactRecord contactRecord(String contactId) {
    java.util.Objects.requireNonNull(contactId, "contactId");
    ContactRecord contact = contacts.get(contactId);
    if (contact == null) {
      throw new RoutingException(
          RoutingErrorCode.CONTACT_NOT_FOUND, "contact '" + contactId + "' does not exist");
    }
    return contact;
  }

  /** A queued or offered contact leaves for good without an agent: abandoned or timed out. */
  private void end(ContactRecord contact, ContactState state, LiveStats.Outcome outcome) {
    touch(contact);
    contact.state = state;
    contact.endedAt = now;
    stats.record(groupKey(contact), now, outcome, now - contact.createdAt);
    if (state == ContactState.ABANDONED) {
      emit((id, at) -> new RoutingEvent.ContactAbandoned(id, at, contact.id));
    } else {
      emit((id, at) -> new RoutingEvent.ContactTimedOut(id, at, contact.id));
    }
    retire(contact);
  }

  /** Moves a finished contact to the bounded history; the oldest finished one drops out. */
  private void retire(ContactRecord contact) {
    contact.retireSeq = ++retireSeq;
    touch(contact);
    finished.put(contact.id, contact);
    while (finished.size() > settings.contactHistory()) {
      ContactRecord oldest = finished.pollFirstEntry().getValue();
      contacts.remove(oldest.id);
      oldest.reservations.forEach(r -> reservations.remove(r.id));
      if (store != null) {
        store.contactDropped(oldest);
      }
    }
  }

  private static String groupKey(ContactRecord contact) {
    return contact.groupKey;
  }

  // ---- reservations ----------------------------------------------------------------------

  @Override
  public Reservation reservation(String reservationId) {
    return locked(() -> reservationRecord(reservationId).view());
  }

  @Override
  public List<Reservation> pendingReservations(String agentId) {
    return locked(
        () -> agentRecord(agentId).pending.stream().map(ReservationRecord::view).toList());
  }

  @Override
  public Contact accept(String reservationId) {
    return changing(
        () -> {
          ReservationRecord offer = pendingReservation(reservationId, "accepted");
          acceptOffer(offer);
          return offer.contact.view();
        });
  }

  @Override
  public Contact reject(String reservationId) {
    return changing(
        () -> {
          ReservationRecord offer = pendingReservation(reservationId, "rejected");
          closeOffer(offer, ReservationState.REJECTED, "rejected");
          requeue(offer.contact);
          releaseSlot(offer.agent, offer.contact);
          return offer.contact.view();
        });
  }

  private ReservationRecord reservationRecord(String reservationId) {
    java.util.Objects.requireNonNull(reservationId, "reservationId");
    ReservationRecord offer = reservations.get(reservationId);
    if (offer == null) {
      throw new RoutingException(
          RoutingErrorCode.RESERVATION_NOT_FOUND,
          "reservation '" + reservationId + "' does not exist");
    }
    return offer;
  }

  private ReservationRecord pendingReservation(String reservationId, String verb) {
    ReservationRecord offer = reservationRecord(reservationId);
    switch (offer.state) {
      case PENDING -> {
        return offer;
      }
      case TIMED_OUT, CANCELLED ->
          throw new RoutingException(
              RoutingErrorCode.RESERVATION_EXPIRED,
              "reservation '"
                  + reservationId
                  + "' "
                  + (offer.state == ReservationState.TIMED_OUT
                      ? "timed out at " + at(offer.expiresAt)
                      : "was cancelled")
                  + " and cannot be "
                  + verb
                  + " any more");
      default ->
          throw RoutingException.state(
              "reservation '"
                  + reservationId
                  + "' was already "
                  + offer.state.name().toLowerCase()
                  + " and cannot be "
                  + verb);
    }
  }

  /** Offers a queued contact to an eligible agent; the offer holds a slot of the agent's. */
  private void offer(ContactRecord contact, AgentRecord agent) {
    line.remove(contact);
    long seq = ++reservationSeq;
    ReservationRecord offer =
        new ReservationRecord(
            "res-" + seq, seq, contact, agent, now, now + settings.offerTimeoutMillis());
    reservations.put(offer.id, offer);
    touch(offer);
    touch(contact);
    contact.reservations.add(offer);
    contact.reservation = offer;
    contact.agent = agent;
    contact.state = ContactState.OFFERED;
    changeAgent(
        agent,
        () -> {
          agent.addLoad(contact.channel, 1);
          agent.pending.add(offer);
        });
    emit((id, at) -> new RoutingEvent.ReservationOffered(id, at, offer.view()));
    if (settings.autoAccept().contains(contact.channel)) {
      acceptOffer(offer);
    } else {
      offer.timerSeq = schedule(offer.expiresAt, Timers.Kind.OFFER_TIMEOUT, offer, 0);
    }
  }

  private void acceptOffer(ReservationRecord offer) {
    ContactRecord contact = offer.contact;
    AgentRecord agent = offer.agent;
    offer.state = ReservationState.ACCEPTED;
    touch(offer);
    touch(contact);
    touch(agent);
    agent.pending.remove(offer);
    agent.active.add(contact);
    agent.misses = 0;
    contact.state = ContactState.ASSIGNED;
    contact.answeredAt = now;
    stats.record(groupKey(contact), now, LiveStats.Outcome.ANSWERED, now - contact.createdAt);
    emit((id, at) -> new RoutingEvent.ReservationAccepted(id, at, offer.id, contact.id, agent.id));
  }

  /** Ends a pending offer (not accepted) and says so; the caller places contact and agent. */
  private void closeOffer(ReservationRecord offer, ReservationState how, String reason) {
    offer.state = how;
    touch(offer);
    offer.agent.pending.remove(offer);
    String rid = offer.id;
    String cid = offer.contact.id;
    String aid = offer.agent.id;
    switch (how) {
      case REJECTED ->
          emit((id, at) -> new RoutingEvent.ReservationRejected(id, at, rid, cid, aid));
      case TIMED_OUT ->
          emit((id, at) -> new RoutingEvent.ReservationTimedOut(id, at, rid, cid, aid));
      default ->
          emit((id, at) -> new RoutingEvent.ReservationCancelled(id, at, rid, cid, aid, reason));
    }
  }

  /**
   * A contact back from an offer returns to its original place (same priority and arrival number),
   * or times out if its maximum wait passed meanwhile.
   */
  private void requeue(ContactRecord contact) {
    touch(contact);
    contact.agent = null;
    contact.reservation = null;
    if (now >= contact.deadline) {
      end(contact, ContactState.TIMED_OUT, LiveStats.Outcome.TIMED_OUT);
      return;
    }
    contact.state = ContactState.QUEUED;
    settleContact(contact, line.add(contact));
  }

  /** Gives back the slot a contact held; the agent may take more work at once. */
  private void releaseSlot(AgentRecord agent, ContactRecord contact) {
    changeAgent(agent, () -> agent.addLoad(contact.channel, -1));
    settleAgent(agent);
  }

  // ---- matching --------------------------------------------------------------------------

  /**
   * A contact just entered its group. If the group had contacts, no eligible agent matches it (the
   * invariant), so it waits; otherwise the first matching agent in strategy order gets it.
   */
  private void settleContact(ContactRecord contact, boolean groupWasEmpty) {
    if (groupWasEmpty) {
      AgentRecord agent = eligible.best(contact.channel, contact.requirement);
      if (agent != null) {
        offer(contact, agent);
      }
    }
  }

  /** An agent may have become able to take work: it takes the best matching heads while it can. */
  private void settleAgent(AgentRecord agent) {
    ContactRecord best;
    while ((best = line.bestFor(agent)) != null) {
      offer(best, agent);
    }
  }

  // ---- timers ----------------------------------------------------------------------------

  private void fireDueTimers() {
    Timers.Timer timer;
    while ((timer = timers.pollDue(now)) != null) {
      switch (timer.kind()) {
        case OFFER_TIMEOUT -> {
          ReservationRecord offer = (ReservationRecord) timer.target();
          if (offer.state == ReservationState.PENDING) {
            offerTimedOut(offer);
          }
        }
        case ESCALATION -> {
          ContactRecord contact = (ContactRecord) timer.target();
          boolean waiting =
              contact.state == ContactState.QUEUED || contact.state == ContactState.OFFERED;
          if (waiting && contact.step < timer.step()) {
            escalate(contact, timer.step());
          }
        }
        case MAX_WAIT -> {
          ContactRecord contact = (ContactRecord) timer.target();
          if (contact.state == ContactState.QUEUED) {
            line.remove(contact);
            end(contact, ContactState.TIMED_OUT, LiveStats.Outcome.TIMED_OUT);
          }
        }
        case WRAP_UP_END -> {
          ContactRecord contact = (ContactRecord) timer.target();
          if (contact.state == ContactState.WRAP_UP) {
            finishCompleted(contact);
          }
        }
      }
    }
  }

  /**
   * A missed offer: the contact returns to its place; the agent's slot is free again, unless this
   * was its {@code missLimit}-th miss in a row, which sets it away (and withdraws its other
   * offers).
   */
  private void offerTimedOut(ReservationRecord offer) {
    AgentRecord agent = offer.agent;
    closeOffer(offer, ReservationState.TIMED_OUT, "timed out");
    requeue(offer.contact);
    agent.misses++;
    touch(agent);
    int limit = settings.missLimit();
    if (limit > 0 && agent.misses >= limit && agent.presence.isAvailable()) {
      Presence away = Presence.away("missed " + agent.misses + " offers in a row");
      changeAgent(
          agent,
          () -> {
            agent.addLoad(offer.contact.channel, -1);
            agent.presence = away;
          });
      emit((id, at) -> new RoutingEvent.AgentPresenceChanged(id, at, agent.id, away));
      withdrawOffers(agent, "agent set away after missed offers");
    } else {
      releaseSlot(agent, offer.contact);
    }
  }

  private void escalate(ContactRecord contact, int step) {
    Requirement requirement = contact.steps.get(step - 1).requirement();
    boolean queued = contact.state == ContactState.QUEUED;
    if (queued) {
      line.remove(contact);
    }
    touch(contact);
    contact.requirement(requirement);
    contact.step = step;
    emit(
        (id, at) ->
            new RoutingEvent.ContactEscalated(id, at, contact.id, step, requirement.normalized));
    if (queued) {
      settleContact(contact, line.add(contact));
    }
  }

  // ---- events and statistics -------------------------------------------------------------

  @Override
  public EventPage events(long afterId, int limit) {
    if (afterId < 0) {
      throw RoutingException.invalid("afterId must be at least 0, got " + afterId);
    }
    Checks.range("limit", limit, 1, 10_000);
    return locked(() -> events.page(afterId, limit));
  }

  @Override
  public Subscription onEvent(Consumer<? super RoutingEvent> listener) {
    java.util.Objects.requireNonNull(listener, "listener");
    return events.subscribe(listener);
  }

  @Override
  public RoutingStats stats() {
    return locked(this::snapshot);
  }

  private RoutingStats snapshot() {
    stats.trim(now);
    Map<String, WaitingGroup> live = new HashMap<>();
    line.groups().forEach(g -> live.put(g.key, g));
    java.util.TreeSet<String> keys = new java.util.TreeSet<>(live.keySet());
    keys.addAll(stats.byGroup().keySet());
    List<GroupStats> groups = new ArrayList<>();
    long longestOverall = 0;
    LiveStats.Window empty = new LiveStats.Window();
    for (String key : keys) {
      WaitingGroup group = live.get(key);
      int waiting = group == null ? 0 : group.line.size();
      long longest = group == null ? 0 : now - group.byArrival.first().createdAt;
      longestOverall = Math.max(longestOverall, longest);
      int split = key.indexOf('\u0000');
      String requirements = key.substring(split + 1);
      groups.add(
          new GroupStats(
              key.substring(0, split),
              requirements.isEmpty() ? Optional.empty() : Optional.of(requirements),
              stats.byGroup().getOrDefault(key, empty).stats(waiting, longest)));
    }
    Map<Presence.Kind, Integer> byPresence = new java.util.EnumMap<>(Presence.Kind.class);
    for (Presence.Kind kind : Presence.Kind.values()) {
      byPresence.put(kind, 0);
    }
    Map<String, long[]> use = new HashMap<>();
    for (AgentRecord agent : agents.values()) {
      byPresence.merge(agent.presence.kind(), 1, Integer::sum);
      if (agent.presence.kind() != Presence.Kind.OFFLINE) {
        agent.capacity.forEach(
            (channel, capacity) -> {
              long[] sums = use.computeIfAbsent(channel, c -> new long[2]);
              sums[0] += agent.load(channel);
              sums[1] += capacity;
            });
      }
    }
    Map<String, Double> occupancy = new HashMap<>();
    use.forEach(
        (channel, sums) -> {
          if (sums[1] > 0) {
            occupancy.put(channel, Math.min(1.0, (double) sums[0] / sums[1]));
          }
        });
    return new RoutingStats(
        at(now), stats.overall().stats(line.size(), longestOverall), groups, byPresence, occupancy);
  }

  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
    } finally {
      lock.unlock();
    }
    if (timerThread != null) {
      LockSupport.unpark(timerThread);
    }
  }
}
