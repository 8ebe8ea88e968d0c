package io.switchboard.routing;

import io.switchboard.routing.spi.RouterCounters;
import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.routing.spi.RouterSnapshot;
import io.switchboard.selector.Selector;
import io.switchboard.time.Clock;
import io.switchboard.time.Scheduler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The in-memory router. One lock guards everything: every call takes it, fires the timers that fell
 * due, validates, changes state, matches, and releases it; listeners get the events after. A single
 * lock is the simplest way to make "one contact, one agent" and work conservation hold under any
 * concurrency, and a routing decision costs microseconds, so it is not the bottleneck yet (see
 * {@code docs/routing.md}).
 *
 * <p>This class is the call frame and the API: it checks input, takes the lock, and hands the work
 * to the router's parts, which share the call's time, event log and journal marks ({@link
 * CallContext}): the agents ({@link AgentBook}), the contacts, their reservations and the waiting
 * line ({@link ContactBook}), matching and the life of an offer ({@link Matcher}), and the
 * statistics ({@link StatsSnapshot}).
 *
 * <p><b>Journal.</b> The parts mark the records they change ({@link RouterStore}); at the end of
 * each call the marked records are written as one batch, and a call that changes something returns
 * once its batch is durable. A router with a journal recovers from it when built ({@link
 * #recover}).
 */
final class MemoryRouter implements Router {

  private final RouterSettings settings;
  private final Clock clock;
  private final ReentrantLock lock = new ReentrantLock();
  private final CallContext call;
  private final AgentBook agents;
  private final ContactBook contacts;
  private final Matcher matcher;
  private final Requirements requirements = new Requirements();
  private final LongFunction<RouterCounters> counters = this::counters;
  private final Scheduler.Repeating timerDriver;
  private final IntervalStats intervals;

  /** Whether a queue name is a task queue of the workspace (set by the workspace). */

  /** The journal's side, or null for a router that keeps nothing. */
  private final @Nullable RouterStore store;

  private volatile boolean closed;
  private volatile @Nullable String failure;

  MemoryRouter(RouterSettings settings, @Nullable RouterJournal journal) {
    this.settings = settings;
    this.clock = settings.clock();
    RouterSnapshot snapshot = journal == null ? null : journal.load();
    this.store =
        journal == null
            ? null
            : new RouterStore(journal, Objects.requireNonNull(snapshot).counters().eventIdLimit());
    this.call = new CallContext(settings, store);
    this.agents = new AgentBook(call);
    this.contacts = new ContactBook(call);
    this.matcher = new Matcher(call, agents, contacts);
    this.intervals =
        new IntervalStats(
            settings.serviceLevelMillis(),
            settings.statsRetentionMillis(),
            journal == null,
            contacts::get,
            agents::get,
            call::rules);
    call.intervals = intervals;
    call.now = clock.millis();
    defineQueues(settings.taskQueues()); // before recovery: recovered contacts line up by them
    if (snapshot != null) {
      recover(snapshot);
    }
    timerDriver = clock.timers("switchboard-routing-timers", this::fireDueTimers);
    call.timerDriver = timerDriver;
    if (closed) { // the store failed in the driver's first run, before fail() could stop it
      timerDriver.close();
    }
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
    agents.serial = c.agentSerial();
    agents.idleSeq = c.idleSeq();
    contacts.seq = c.contactSeq();
    contacts.reservationSeq = c.reservationSeq();
    contacts.retireSeq = c.retireSeq();
    Timers timers = call.timers;
    timers.continueAfter(c.timerSeq());
    call.events.continueAfter(c.eventIdLimit());
    RouterRecovery rebuilt = new RouterRecovery(snapshot, requirements);
    agents.restore(rebuilt.agents.values());
    contacts.restore(rebuilt.contacts, rebuilt.reservations, rebuilt.finished);
    intervals.restore(snapshot.intervals(), rebuilt.agents.values(), rebuilt.contacts.values());
    for (ReservationRecord offer : rebuilt.reservations.values()) {
      if (offer.state == ReservationState.PENDING && offer.timerSeq > 0) {
        timers.restore(offer.expiresAt, offer.timerSeq, Timers.Kind.OFFER_TIMEOUT, offer, 0);
      }
      if (offer.resting) { // whatever the contact's state: a transfer may bring it back in line
        offer.contact.rests++;
        timers.restore(offer.restUntil, offer.restTimerSeq, Timers.Kind.REST_END, offer, 0);
      }
    }
    for (ContactRecord contact : rebuilt.contacts.values()) {
      switch (contact.state) {
        case QUEUED, OFFERED -> {
          if (contact.state == ContactState.QUEUED) {
            contacts.line.add(contact, call.rules(contact.queue));
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
    Objects.requireNonNull(store)
        .reserveEventIds(call.events.lastId(), counters); // recovering: journaled
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
    return call(null, action, durable);
  }

  /** A call; {@code first} (null: nothing) runs under the lock before the due timers fire. */
  private <T> T call(@Nullable Runnable first, Supplier<T> action, boolean durable) {
    RouterJournal.Ticket ticket = RouterJournal.DONE;
    T result;
    lock.lock();
    try {
      if (closed) {
        throw new RoutingException(
            RoutingErrorCode.UNAVAILABLE, failure == null ? "the router is closed" : failure);
      }
      call.now = Math.max(call.now, clock.millis());
      if (store != null) {
        store.reserveEventIds(call.events.lastId(), counters);
      }
      try {
        if (first != null) {
          first.run();
        }
        matcher.fireDueTimers();
        result = action.get();
      } finally {
        agents.eligible.putBack();
        if (store != null) {
          ticket = store.flush(counters, intervals, call.now, durable);
        } else {
          intervals.forgetChanges(call.now);
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
      call.events.deliver();
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
    if (timerDriver != null) { // null while recovering
      timerDriver.close();
    }
  }

  /** The counters to store, given the store's event-id limit. */
  private RouterCounters counters(long eventIdLimit) {
    return new RouterCounters(
        agents.serial,
        contacts.seq,
        agents.idleSeq,
        contacts.reservationSeq,
        call.timers.seq(),
        contacts.retireSeq,
        eventIdLimit);
  }

  /**
   * Fires what fell due, as the start of any call would, and says when the next timer falls due:
   * from the clock's timer thread, or after every advance of a manual clock.
   */
  private long fireDueTimers() {
    if (closed) {
      return Long.MAX_VALUE;
    }
    try {
      return locked(call.timers::nextDue);
    } catch (RoutingException closedMeanwhile) {
      return Long.MAX_VALUE; // closed between the check and the lock: nothing to fire any more
    }
  }

  // ---- agents ----------------------------------------------------------------------------

  @Override
  public Agent createAgent(NewAgent spec) {
    Checks.id("agent id", spec.id());
    Map<String, Integer> capacity = Checks.capacity(spec.capacity());
    return changing(
        () -> {
          AgentRecord agent = agents.create(spec, capacity);
          String activity = spec.activity().orElse(Activity.label(spec.presence()));
          agents.change(
              agent,
              () -> {
                agent.presence = spec.presence();
                agent.enterActivity(activity, call.now);
              });
          call.emit((id, at) -> new RoutingEvent.AgentCreated(id, at, agent.view()));
          matcher.settleAgent(agent);
          return agent.view();
        });
  }

  @Override
  public Agent updateAttributes(String agentId, Map<String, ?> attributes) {
    Map<String, Object> copy = Checks.copyAttributes(attributes);
    return changing(
        () -> {
          AgentRecord agent = agents.get(agentId);
          agents.change(agent, () -> agent.attributes(copy));
          call.emit((id, at) -> new RoutingEvent.AgentUpdated(id, at, agent.view()));
          matcher.settleAgent(agent);
          return agent.view();
        });
  }

  @Override
  public Agent updateCapacity(String agentId, Map<String, Integer> capacity) {
    Map<String, Integer> copy = Checks.capacity(capacity);
    return changing(
        () -> {
          AgentRecord agent = agents.get(agentId);
          agents.change(agent, () -> agent.capacity = copy);
          call.emit((id, at) -> new RoutingEvent.AgentUpdated(id, at, agent.view()));
          matcher.settleAgent(agent);
          return agent.view();
        });
  }

  @Override
  public Agent presence(String agentId, Presence presence) {
    Objects.requireNonNull(presence, "presence");
    return changing(
        () -> {
          AgentRecord agent = agents.get(agentId);
          if (!agent.presence.equals(presence)) {
            matcher.setPresence(agent, presence, Activity.label(presence), "agent " + presence);
          }
          return agent.view();
        });
  }

  @Override
  public Agent activity(String agentId, Activity activity) {
    Objects.requireNonNull(activity, "activity");
    Presence presence = activity.presence();
    return changing(
        () -> {
          AgentRecord agent = agents.get(agentId);
          if (!agent.presence.equals(presence)) {
            matcher.setPresence(agent, presence, activity.name(), "agent in " + activity.name());
          } else if (!activity.name().equals(agent.activity)) {
            call.touch(agent);
            agent.enterActivity(activity.name(), call.now);
            call.emit((id, at) -> new RoutingEvent.AgentUpdated(id, at, agent.view()));
          }
          return agent.view();
        });
  }

  @Override
  public int liveContacts(String queue) {
    Objects.requireNonNull(queue, "queue");
    return locked(() -> contacts.live(queue));
  }

  @Override
  public void taskQueues(List<TaskQueue> queues) {
    List<TaskQueue> copy = List.copyOf(queues);
    Map<String, TaskQueue> byName = new java.util.HashMap<>();
    for (TaskQueue q : copy) {
      if (byName.put(q.name(), q) != null) {
        throw RoutingException.invalid(
            "task queue names must be unique, got '" + q.name() + "' twice");
      }
    }
    // the rules first, then the timers that fell due: a router just recovered fires its overdue
    // timers (an offer timing out, a contact returning to the line) under its queues' rules
    call(() -> defineQueues(copy), () -> null, true);
  }

  /** Sets the rules of the task queues {@code queues} (the others dropped), and regroups. */
  private void defineQueues(List<TaskQueue> queues) {
    Map<String, TaskQueue> byName = new java.util.HashMap<>();
    queues.forEach(q -> byName.put(q.name(), q));
    java.util.Set<String> changed = new java.util.HashSet<>();
    call.queues.keySet().removeIf(name -> !byName.containsKey(name) && changed.add(name));
    for (TaskQueue q : queues) {
      QueueRules rules = call.queues.get(q.name());
      if (rules == null) {
        call.queues.put(q.name(), new QueueRules(q, settings.serviceLevelMillis(), call.now));
        changed.add(q.name());
      } else if (!rules.definition.equals(q)) {
        rules.define(q, settings.serviceLevelMillis());
        changed.add(q.name());
      }
      q.strategy().ifPresent(agents.eligible::use);
    }
    if (!changed.isEmpty()) {
      regroup(changed);
    }
  }

  /**
   * The waiting contacts of the task queues {@code changed} take their places under the queues'
   * rules now, and every agent takes the work it may now take (a cap raised).
   */
  private void regroup(java.util.Set<String> changed) {
    List<ContactRecord> moved = new java.util.ArrayList<>();
    for (WaitingGroup g : contacts.line.groups()) {
      if (g.queue != null && changed.contains(g.queue)) {
        g.forEach(moved::add);
      }
    }
    moved.sort(java.util.Comparator.comparingLong((ContactRecord c) -> c.seq));
    for (ContactRecord c : moved) {
      contacts.line.remove(c);
    }
    for (ContactRecord c : moved) {
      contacts.line.add(c, call.rules(c.queue));
    }
    List<AgentRecord> all = new java.util.ArrayList<>(agents.all());
    all.sort(java.util.Comparator.comparingLong((AgentRecord a) -> a.serial));
    for (AgentRecord agent : all) {
      matcher.settleAgent(agent);
    }
  }

  @Override
  public TaskQueueStats taskQueueStats(String queue) {
    Objects.requireNonNull(queue, "queue");
    return locked(
        () -> {
          QueueRules rules = call.queues.get(queue);
          if (rules == null) {
            throw new RoutingException(
                RoutingErrorCode.TASK_QUEUE_NOT_FOUND,
                "task queue '" + queue + "' does not exist in this router");
          }
          return StatsSnapshot.queue(call, contacts, rules);
        });
  }

  @Override
  public Agent agent(String agentId) {
    return locked(() -> agents.get(agentId).view());
  }

  @Override
  public List<Agent> agents() {
    return locked(() -> agents.sorted(a -> true));
  }

  @Override
  public List<Agent> agents(String selector) {
    Selector filter = Checks.requirement("selector", selector);
    return locked(() -> agents.sorted(a -> filter.matches(a.view)));
  }

  @Override
  public ListPage<Agent> agents(@Nullable String selector, ListRequest page) {
    Selector filter = selector == null ? null : Checks.requirement("selector", selector);
    String after = page.cursor().map(c -> Paging.key("agents", c)).orElse(null);
    return locked(() -> agents.page(filter, after, page.limit()));
  }

  @Override
  public void removeAgent(String agentId) {
    changing(
        () -> {
          AgentRecord agent = agents.get(agentId);
          if (!agent.active.isEmpty()) {
            throw RoutingException.state(
                "agent '"
                    + agentId
                    + "' has "
                    + agent.active.size()
                    + " assigned or wrap-up contacts; complete them before removing the agent");
          }
          if (agent.presence.isAvailable()) {
            agents.change(agent, () -> agent.presence = Presence.offline());
          }
          matcher.withdrawOffers(agent, "agent removed");
          agents.remove(agent);
          call.emit((id, at) -> new RoutingEvent.AgentRemoved(id, at, agentId));
          return null;
        });
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
          contacts.checkNew(spec.id());
          long now = call.now;
          ContactRecord contact =
              new ContactRecord(
                  spec.id(),
                  spec.channel(),
                  spec.attributes(),
                  spec.priority(),
                  ++contacts.seq,
                  now,
                  requirement,
                  List.of(steps),
                  maxWait < 0 ? Long.MAX_VALUE : now + maxWait);
          contact.queue = spec.queue().orElse(null);
          contact.workflow = spec.workflow().orElse(null);
          contacts.add(contact);
          contact.timerSeq = call.timers.seq() + 1;
          call.emit((id, at) -> new RoutingEvent.ContactQueued(id, at, contact.view()));
          for (int i = 0; i < steps.length; i++) {
            call.schedule(now + steps[i].afterMillis(), Timers.Kind.ESCALATION, contact, i + 1);
          }
          if (maxWait >= 0) {
            call.schedule(contact.deadline, Timers.Kind.MAX_WAIT, contact, 0);
          }
          matcher.enter(contact, spec.skipIfNoneAvailable());
          return contact.view();
        });
  }

  @Override
  public Contact reroute(String contactId, NewContact route) {
    Objects.requireNonNull(route, "route");
    ContactRecord.Step[] steps = validate(route);
    Map<String, Object> attributes = Checks.copyAttributes(route.attributes());
    Requirement requirement = requirements.parse("requirements", route.requirements());
    return changing(
        () -> {
          ContactRecord contact = contacts.get(contactId);
          long offset = call.now - contact.createdAt;
          List<ContactRecord.Step> shifted = new java.util.ArrayList<>(steps.length);
          for (ContactRecord.Step s : steps) {
            shifted.add(
                new ContactRecord.Step(
                    offset + s.afterMillis(), s.requirement(), s.queue(), s.priority(), s.skip()));
          }
          matcher.reroute(
              contact,
              route.priority(),
              attributes,
              requirement,
              route.queue().orElse(null),
              shifted,
              route.skipIfNoneAvailable());
          return contact.view();
        });
  }

  private ContactRecord.Step[] validate(NewContact spec) {
    Checks.id("contact id", spec.id());
    Checks.channel("channel", spec.channel());
    Checks.range("priority", spec.priority(), Checks.MIN_PRIORITY, Checks.MAX_PRIORITY);
    spec.queue().ifPresent(q -> Checks.channel("queue", q));
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
      e.queue().ifPresent(q -> Checks.channel(field + ".queue", q));
      e.priority()
          .ifPresent(
              p -> Checks.range(field + ".priority", p, Checks.MIN_PRIORITY, Checks.MAX_PRIORITY));
      steps[i] =
          new ContactRecord.Step(
              after,
              requirements.parse(field + ".requirements", e.requirements()),
              e.queue().orElse(null),
              e.priority().orElse(null),
              e.skipIfNoneAvailable());
    }
    return steps;
  }

  @Override
  public Contact contact(String contactId) {
    return locked(() -> contacts.get(contactId).view());
  }

  @Override
  public List<Contact> waiting() {
    return locked(contacts::waiting);
  }

  @Override
  public ListPage<Contact> waiting(ListRequest page) {
    ContactBook.Place after =
        page.cursor().map(c -> ContactBook.Place.of(Paging.key("contacts", c), c)).orElse(null);
    return locked(() -> contacts.waitingPage(after, page.limit()));
  }

  @Override
  public Contact abandon(String contactId) {
    return changing(
        () -> {
          ContactRecord contact = contacts.get(contactId);
          matcher.abandon(contact);
          return contact.view();
        });
  }

  @Override
  public Contact updateContact(String contactId, ContactUpdate update) {
    Objects.requireNonNull(update, "update");
    if (update.isEmpty()) {
      throw RoutingException.invalid(
          "give a priority, attributes or requirements to change contact '" + contactId + "'");
    }
    Integer priority = null;
    if (update.priority().isPresent()) {
      priority =
          Checks.range(
              "priority", update.priority().getAsInt(), Checks.MIN_PRIORITY, Checks.MAX_PRIORITY);
    }
    Map<String, Object> attributes = update.attributes().map(Checks::copyAttributes).orElse(null);
    Requirement requirement =
        update
            .requirements()
            .map(r -> r.isBlank() ? Requirement.ANY : requirements.parse("requirements", r))
            .orElse(null);
    Integer p = priority;
    return changing(
        () -> {
          ContactRecord contact = contacts.get(contactId);
          matcher.change(contact, p, attributes, requirement);
          return contact.view();
        });
  }

  @Override
  public Contact cancel(String contactId, String reason) {
    Objects.requireNonNull(reason, "reason");
    if (reason.length() > Checks.MAX_REASON) {
      throw RoutingException.invalid(
          "reason must be at most " + Checks.MAX_REASON + " characters, got " + reason.length());
    }
    return changing(
        () -> {
          ContactRecord contact = contacts.get(contactId);
          matcher.cancel(contact, reason);
          return contact.view();
        });
  }

  @Override
  public Contact transfer(String contactId, String queue, Optional<String> requirements) {
    Checks.channel("queue", queue);
    Requirement requirement = this.requirements.parse("requirements", requirements);
    return changing(
        () -> {
          ContactRecord contact = contacts.get(contactId);
          matcher.transferToQueue(contact, queue, requirement);
          return contact.view();
        });
  }

  @Override
  public Contact transferToAgent(String contactId, String agentId) {
    Objects.requireNonNull(agentId, "agentId");
    return changing(
        () -> {
          ContactRecord contact = contacts.get(contactId);
          Matcher.checkAssigned(contact);
          AgentRecord to = agents.get(agentId);
          matcher.transferToAgent(contact, to);
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
          ContactRecord contact = contacts.get(contactId);
          if (contact.state != ContactState.ASSIGNED) {
            throw RoutingException.state(
                "contact '"
                    + contactId
                    + "' is "
                    + contact.state.name().toLowerCase(java.util.Locale.ROOT)
                    + "; only an assigned contact can be completed");
          }
          long wrapMillis =
              wrapUp.isPresent() ? wrapUp.get().toMillis() : settings.wrapUpMillis(contact.channel);
          matcher.complete(contact, wrapMillis);
          return contact.view();
        });
  }

  // ---- reservations ----------------------------------------------------------------------

  @Override
  public Reservation reservation(String reservationId) {
    return locked(() -> contacts.reservation(reservationId).view());
  }

  @Override
  public List<Reservation> pendingReservations(String agentId) {
    return locked(() -> agents.get(agentId).pending.stream().map(ReservationRecord::view).toList());
  }

  @Override
  public ListPage<Reservation> pendingReservations(String agentId, ListRequest page) {
    long after = page.cursor().map(MemoryRouter::offerNumber).orElse(0L);
    return locked(
        () -> {
          Paging.Picker<ReservationRecord> picker =
              new Paging.Picker<>(
                  java.util.Comparator.comparingLong((ReservationRecord r) -> r.seq), page.limit());
          for (ReservationRecord r : agents.get(agentId).pending) {
            if (r.seq > after) {
              picker.offer(r);
            }
          }
          return picker.page("offers", r -> Long.toString(r.seq), ReservationRecord::view);
        });
  }

  private static long offerNumber(String cursor) {
    try {
      return Long.parseLong(Paging.key("offers", cursor));
    } catch (NumberFormatException e) {
      throw Paging.badCursor("offers", cursor);
    }
  }

  @Override
  public Contact accept(String reservationId) {
    return changing(
        () -> {
          ReservationRecord offer = pendingReservation(reservationId, "accepted");
          matcher.accept(offer);
          return offer.contact.view();
        });
  }

  @Override
  public Contact reject(String reservationId) {
    return changing(
        () -> {
          ReservationRecord offer = pendingReservation(reservationId, "rejected");
          matcher.reject(offer);
          return offer.contact.view();
        });
  }

  private ReservationRecord pendingReservation(String reservationId, String verb) {
    ReservationRecord offer = contacts.reservation(reservationId);
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
                      ? "timed out at " + CallContext.at(offer.expiresAt)
                      : "was cancelled")
                  + " and cannot be "
                  + verb
                  + " any more");
      default ->
          throw RoutingException.state(
              "reservation '"
                  + reservationId
                  + "' was already "
                  + offer.state.name().toLowerCase(java.util.Locale.ROOT)
                  + " and cannot be "
                  + verb);
    }
  }

  // ---- events and statistics -------------------------------------------------------------

  @Override
  public EventPage events(long afterId, int limit) {
    if (afterId < 0) {
      throw RoutingException.invalid("afterId must be at least 0, got " + afterId);
    }
    Checks.range("limit", limit, 1, 10_000);
    return locked(() -> call.events.page(afterId, limit));
  }

  @Override
  public Subscription onEvent(Consumer<? super RoutingEvent> listener) {
    Objects.requireNonNull(listener, "listener");
    return call.events.subscribe(listener);
  }

  /** How many scopes' statistics intervals memory holds (tests: closed ones leave memory). */
  int statisticsBucketsHeld() {
    return locked(intervals::heldBuckets);
  }

  @Override
  public RoutingStats stats() {
    return locked(() -> StatsSnapshot.take(call, agents, contacts));
  }

  @Override
  public int waitingNow() {
    return contacts.line.size(); // a plain read of a field written under the lock
  }

  @Override
  public StatisticsReport statistics(StatisticsQuery query) {
    Objects.requireNonNull(query, "query");
    long from = query.from().toEpochMilli();
    long to = query.to().toEpochMilli();
    if (from >= to) {
      throw RoutingException.invalid(
          "from must be before to, got from " + query.from() + " and to " + query.to());
    }
    if (to - from > IntervalStats.MAX_RANGE.toMillis()) {
      throw RoutingException.invalid(
          "the range from "
              + query.from()
              + " to "
              + query.to()
              + " is longer than "
              + IntervalStats.MAX_RANGE.toDays()
              + " days; ask for at most "
              + IntervalStats.MAX_RANGE.toDays()
              + " days at a time");
    }
    if (query.queue().isPresent() && query.agent().isPresent()) {
      throw RoutingException.invalid(
          "give a task queue or an agent, not both (got queue '"
              + query.queue().get()
              + "' and agent '"
              + query.agent().get()
              + "')");
    }
    IntervalStats.Partial held =
        locked(
            () -> {
              query
                  .queue()
                  .ifPresent(
                      q -> {
                        if (!intervals.knowsQueue(q) && call.rules(q) == null) {
                          throw RoutingException.invalid(
                              "queue '"
                                  + q
                                  + "' is not a task queue of the workspace and has no"
                                  + " statistics");
                        }
                      });
              query
                  .agent()
                  .ifPresent(
                      a -> {
                        if (!intervals.knowsAgent(a)) {
                          throw RoutingException.invalid(
                              "agent '"
                                  + a
                                  + "' is not an agent of the workspace and has no"
                                  + " statistics");
                        }
                      });
              return intervals.report(query, call.now);
            });
    // the closed intervals are in the journal, read outside the lock once the call's batch
    // (which may have closed some) is appended
    return held.complete(store == null ? null : store.journal());
  }

  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
    } finally {
      lock.unlock();
    }
    timerDriver.close();
  }
}
