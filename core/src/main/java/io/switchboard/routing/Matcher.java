package io.switchboard.routing;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Matching, and the life of an offer. Between calls one invariant holds: no eligible agent matches
 * a queued contact. Each change that could break it is followed at once by the step that restores
 * it:
 *
 * <ul>
 *   <li>a contact enters the line (arrives, returns from an offer, escalates): if its group had
 *       contacts already, the invariant says no eligible agent matches the group, so it waits;
 *       otherwise it goes to the first matching agent in strategy order ({@link #enqueue});
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
 * <p>State changes go through a few methods ({@link AgentBook#change}, {@link #offer}, {@link
 * #close}, {@link #requeue}, {@link ContactBook#retire}), and each emits its event, so the event
 * sequence is a complete log of the changes.
 */
final class Matcher {

  private final CallContext call;
  private final AgentBook agents;
  private final ContactBook contacts;

  Matcher(CallContext call, AgentBook agents, ContactBook contacts) {
    this.call = call;
    this.agents = agents;
    this.contacts = contacts;
  }

  // ---- matching --------------------------------------------------------------------------

  /**
   * Puts a contact in its group. If the group had contacts, no eligible agent matches it (the
   * invariant), so it waits; otherwise the first matching agent in strategy order gets it.
   */
  void enqueue(ContactRecord contact) {
    QueueRules rules = call.rules(contact.queue);
    if (contacts.line.add(contact, rules)) {
      AgentRecord agent = agents.eligible.best(contact, rules);
      if (agent != null) {
        offer(contact, agent);
      }
    }
  }

  /**
   * A contact enters its line ({@link #enqueue}); with {@code skipIfNoneAvailable}, if no agent
   * took it at once, it moves on to its next escalation step now (when it has one).
   */
  void enter(ContactRecord contact, boolean skipIfNoneAvailable) {
    enqueue(contact);
    if (skipIfNoneAvailable
        && contact.state == ContactState.QUEUED
        && contact.step < contact.steps.size()) {
      escalate(contact, contact.step + 1);
    }
  }

  /** An agent may have become able to take work: it takes the best matching heads while it can. */
  void settleAgent(AgentRecord agent) {
    ContactRecord best;
    while ((best = contacts.line.bestFor(agent)) != null) {
      offer(best, agent);
    }
  }

  // ---- offers ----------------------------------------------------------------------------

  /** Offers a queued contact to an eligible agent; the offer holds a slot of the agent's. */
  private void offer(ContactRecord contact, AgentRecord agent) {
    contacts.line.remove(contact);
    offerFromOutside(contact, agent);
  }

  /** Offers a contact that is not in line (being transferred) to an eligible agent. */
  private void offerFromOutside(ContactRecord contact, AgentRecord agent) {
    ReservationRecord offer = contacts.newReservation(contact, agent);
    call.touch(contact);
    contact.reservation = offer;
    contact.agent = agent;
    contact.state = ContactState.OFFERED;
    agents.change(
        agent,
        () -> {
          agent.hold(contact);
          agent.pending.add(offer);
        });
    TaskQueueCounters counters = call.counters(contact.queue);
    if (counters != null) {
      counters.offered++;
    }
    call.emit((id, at) -> new RoutingEvent.ReservationOffered(id, at, offer.view()));
    if (call.settings.autoAccept().contains(contact.channel)) {
      accept(offer);
    } else {
      offer.timerSeq = call.schedule(offer.expiresAt, Timers.Kind.OFFER_TIMEOUT, offer, 0);
    }
  }

  void accept(ReservationRecord offer) {
    ContactRecord contact = offer.contact;
    AgentRecord agent = offer.agent;
    offer.state = ReservationState.ACCEPTED;
    call.touch(offer);
    call.touch(contact);
    call.touch(agent);
    agent.pending.remove(offer);
    agent.active.add(contact);
    agent.misses = 0;
    contact.state = ContactState.ASSIGNED;
    QueueRules rules = call.rules(contact.queue);
    if (rules != null) {
      rules.counters.accepted++;
    }
    if (contact.answeredAt < 0) { // a transferred contact was answered once already
      contact.answeredAt = call.now;
      long wait = call.now - contact.createdAt;
      call.stats.record(contact.groupKey, call.now, LiveStats.Outcome.ANSWERED, wait);
      if (rules != null) {
        rules.counters.answered(wait, rules.thresholdMillis);
      }
    }
    call.emit(
        (id, at) -> new RoutingEvent.ReservationAccepted(id, at, offer.id, contact.id, agent.id));
  }

  /**
   * A pending offer the agent (or a callback for it) turned down: the contact back in its place,
   * resting from the agent for the rest period; the slot freed, and the agent moved to the router's
   * reject activity if it has one.
   */
  void reject(ReservationRecord offer) {
    close(offer, ReservationState.REJECTED, "rejected");
    TaskQueueCounters counters = call.counters(offer.contact.queue);
    if (counters != null) {
      counters.rejected++;
    }
    rest(offer);
    requeue(offer.contact);
    Activity to = call.settings.rejectActivity();
    AgentRecord agent = offer.agent;
    if (to == null || (to.name().equals(agent.activity) && to.presence().equals(agent.presence))) {
      releaseSlot(agent, offer.contact);
    } else {
      moveAfterRefusal(
          agent,
          offer.contact,
          to.presence(),
          to.name(),
          "agent in " + to.name() + " after a reject");
    }
  }

  /**
   * A refused offer (rejected or timed out): its contact is not offered to its agent again until
   * the rest period has passed; then a timer lets the agent take it if it still may.
   */
  private void rest(ReservationRecord offer) {
    long until = call.now + call.settings.restMillis();
    offer.restUntil = until;
    offer.resting = true;
    offer.contact.rests++;
    offer.restTimerSeq = call.schedule(until, Timers.Kind.REST_END, offer, 0);
    call.touch(offer);
  }

  /**
   * Frees the slot of a refused offer and moves its agent to {@code presence} and activity {@code
   * label} at once (so it takes no work in between): an available one takes work, another has its
   * other pending offers withdrawn.
   */
  private void moveAfterRefusal(
      AgentRecord agent, ContactRecord contact, Presence presence, String label, String reason) {
    boolean samePresence = presence.equals(agent.presence);
    agents.change(
        agent,
        () -> {
          agent.release(contact.channel, contact.queue);
          agent.presence = presence;
          agent.enterActivity(label, call.now);
        });
    if (samePresence) {
      call.emit((id, at) -> new RoutingEvent.AgentUpdated(id, at, agent.view()));
    } else {
      call.emit((id, at) -> new RoutingEvent.AgentPresenceChanged(id, at, agent.id, presence));
    }
    if (presence.isAvailable()) {
      settleAgent(agent);
    } else {
      withdrawOffers(agent, reason);
    }
  }

  /** Ends a pending offer (not accepted) and says so; the caller places contact and agent. */
  private void close(ReservationRecord offer, ReservationState how, String reason) {
    offer.state = how;
    call.touch(offer);
    offer.agent.pending.remove(offer);
    String rid = offer.id;
    String cid = offer.contact.id;
    String aid = offer.agent.id;
    switch (how) {
      case REJECTED ->
          call.emit((id, at) -> new RoutingEvent.ReservationRejected(id, at, rid, cid, aid));
      case TIMED_OUT ->
          call.emit((id, at) -> new RoutingEvent.ReservationTimedOut(id, at, rid, cid, aid));
      default ->
          call.emit(
              (id, at) -> new RoutingEvent.ReservationCancelled(id, at, rid, cid, aid, reason));
    }
  }

  /**
   * A contact back from an offer returns to its original place (same priority and arrival number),
   * or times out if its maximum wait passed meanwhile.
   */
  private void requeue(ContactRecord contact) {
    call.touch(contact);
    contact.agent = null;
    contact.reservation = null;
    if (call.now >= contact.deadline) {
      end(contact, ContactState.TIMED_OUT, LiveStats.Outcome.TIMED_OUT);
      return;
    }
    contact.state = ContactState.QUEUED;
    enqueue(contact);
  }

  /** Gives back the slot a contact held; the agent may take more work at once. */
  private void releaseSlot(AgentRecord agent, ContactRecord contact) {
    releaseSlot(agent, contact.channel, contact.queue);
  }

  /**
   * Gives back a slot held for a contact of {@code queue} (which a transfer may have changed
   * since).
   */
  private void releaseSlot(AgentRecord agent, String channel, @Nullable String queue) {
    agents.change(agent, () -> agent.release(channel, queue));
    settleAgent(agent);
  }

  // ---- agents and contacts leaving --------------------------------------------------------

  /** Changes presence; leaving "available" withdraws the agent's pending offers. */
  void setPresence(AgentRecord agent, Presence presence, String activity, String cancelReason) {
    agents.change(
        agent,
        () -> {
          agent.presence = presence;
          agent.enterActivity(activity, call.now);
          if (presence.isAvailable()) {
            agent.misses = 0;
          }
        });
    call.emit((id, at) -> new RoutingEvent.AgentPresenceChanged(id, at, agent.id, presence));
    if (presence.isAvailable()) {
      settleAgent(agent);
    } else {
      withdrawOffers(agent, cancelReason);
    }
  }

  /** Cancels the pending offers of an agent that cannot take work any more, oldest first. */
  void withdrawOffers(AgentRecord agent, String reason) {
    for (ReservationRecord offer : List.copyOf(agent.pending)) {
      close(offer, ReservationState.CANCELLED, reason);
      requeue(offer.contact);
      releaseSlot(agent, offer.contact);
    }
  }

  /** The caller left: a queued contact leaves the line, an offered one's offer is cancelled. */
  void abandon(ContactRecord contact) {
    switch (contact.state) {
      case QUEUED -> contacts.line.remove(contact);
      case OFFERED ->
          close(
              Objects.requireNonNull(contact.reservation), ReservationState.CANCELLED, "abandoned");
      default ->
          throw RoutingException.state(
              "contact '"
                  + contact.id
                  + "' is "
                  + contact.state.name().toLowerCase(java.util.Locale.ROOT)
                  + "; only a queued or offered contact can be abandoned");
    }
    AgentRecord offeredTo = contact.agent;
    contact.agent = null;
    contact.reservation = null;
    end(contact, ContactState.ABANDONED, LiveStats.Outcome.ABANDONED);
    if (offeredTo != null) {
      releaseSlot(offeredTo, contact);
    }
  }

  // ---- changes while waiting, transfers ---------------------------------------------------

  /**
   * Changes a queued or offered contact: its priority, attributes and requirement in force (null:
   * unchanged). It keeps its arrival number, so among contacts of its new priority it stands by
   * arrival; a queued one takes its new place in line (and goes to an eligible agent that its new
   * requirement matches), an offered one's offer stands and the change applies if it comes back.
   */
  void change(
      ContactRecord contact,
      @Nullable Integer priority,
      @Nullable Map<String, Object> attributes,
      @Nullable Requirement req) {
    checkWaiting(contact, "changed");
    boolean queued = contact.state == ContactState.QUEUED;
    if (queued) {
      contacts.line.remove(contact);
    }
    call.touch(contact);
    if (priority != null) {
      contact.priority = priority;
    }
    if (attributes != null) {
      contact.attributes = Map.copyOf(attributes);
    }
    if (req != null) {
      contact.requirement(req);
    }
    Contact view = contact.view();
    call.emit((id, at) -> new RoutingEvent.ContactUpdated(id, at, view));
    if (queued) {
      enqueue(contact);
    }
  }

  /**
   * Routes a queued or offered contact again (a workflow re-evaluated after its attributes
   * changed): new attributes, priority, requirement, task queue and escalation steps (due from its
   * arrival), back at step 0, keeping its arrival number. The timers of the old steps become stale
   * (their order numbers no longer match the contact's {@link ContactRecord#timerSeq}). A queued
   * contact takes its new place at once; an offered one's offer stands if its agent matches the new
   * requirement, else it is withdrawn (cancelled) and the contact enters its new route.
   */
  void reroute(
      ContactRecord contact,
      int priority,
      Map<String, Object> attributes,
      Requirement req,
      @Nullable String queue,
      List<ContactRecord.Step> steps,
      boolean skipIfNoneAvailable) {
    checkWaiting(contact, "routed again");
    boolean queued = contact.state == ContactState.QUEUED;
    if (queued) {
      contacts.line.remove(contact);
    }
    call.touch(contact);
    contact.priority = priority;
    contact.attributes = Map.copyOf(attributes);
    contact.requirement(req);
    AgentRecord moved = moveTo(contact, queue);
    contact.steps = List.copyOf(steps);
    contact.step = 0;
    contact.timerSeq = call.timers.seq() + 1;
    for (int i = 0; i < steps.size(); i++) {
      call.schedule(
          contact.createdAt + steps.get(i).afterMillis(), Timers.Kind.ESCALATION, contact, i + 1);
    }
    Contact view = contact.view();
    call.emit((id, at) -> new RoutingEvent.ContactUpdated(id, at, view));
    AgentRecord offeredTo = contact.agent;
    if (queued) {
      enter(contact, skipIfNoneAvailable);
    } else if (offeredTo != null && !req.matches(offeredTo)) {
      ReservationRecord offer = Objects.requireNonNull(contact.reservation);
      close(offer, ReservationState.CANCELLED, "contact routed again; agent does not match");
      contact.agent = null;
      contact.reservation = null;
      String held = contact.queue; // entering may skip on to another queue
      if (call.now >= contact.deadline) {
        end(contact, ContactState.TIMED_OUT, LiveStats.Outcome.TIMED_OUT);
      } else {
        contact.state = ContactState.QUEUED;
        enter(contact, skipIfNoneAvailable);
      }
      releaseSlot(offeredTo, contact.channel, held);
    } else if (moved != null) {
      settleAgent(moved);
    }
  }

  /** A supervisor removes a queued or offered contact: it ends CANCELLED, a pending offer too. */
  void cancel(ContactRecord contact, String reason) {
    checkWaiting(contact, "cancelled");
    if (contact.state == ContactState.QUEUED) {
      contacts.line.remove(contact);
    } else {
      close(
          Objects.requireNonNull(contact.reservation),
          ReservationState.CANCELLED,
          "contact cancelled");
    }
    AgentRecord offeredTo = contact.agent;
    contact.agent = null;
    contact.reservation = null;
    call.touch(contact);
    contact.state = ContactState.CANCELLED;
    contact.endedAt = call.now;
    call.emit((id, at) -> new RoutingEvent.ContactCancelled(id, at, contact.id, reason));
    contacts.retire(contact);
    if (offeredTo != null) {
      releaseSlot(offeredTo, contact);
    }
  }

  private static void checkWaiting(ContactRecord contact, String verb) {
    if (contact.state != ContactState.QUEUED && contact.state != ContactState.OFFERED) {
      throw RoutingException.state(
          "contact '"
              + contact.id
              + "' is "
              + contact.state.name().toLowerCase(java.util.Locale.ROOT)
              + "; only a queued or offered contact can be "
              + verb);
    }
  }

  /**
   * Transfers an assigned contact to a task queue: it leaves its agent (slot freed, no wrap-up) and
   * waits with {@code requirement} at its original place (priority and arrival kept); the
   * escalation steps it had not reached are dropped. As with a rejected offer, the contact is
   * placed before the agent's slot is freed.
   */
  void transferToQueue(ContactRecord contact, String queue, Requirement requirement) {
    AgentRecord from = leaveAgent(contact);
    String heldQueue = contact.queue;
    contact.queue = queue;
    contact.requirement(requirement);
    contact.step = contact.steps.size();
    contact.state = ContactState.QUEUED;
    call.emit(
        (id, at) ->
            new RoutingEvent.ContactTransferred(
                id, at, contact.id, from.id, Optional.of(queue), Optional.empty()));
    enqueue(contact);
    releaseSlot(from, contact.channel, heldQueue);
  }

  /**
   * Transfers an assigned contact to agent {@code to}, which must be eligible on the contact's
   * channel now: it leaves its agent and is offered to {@code to} whatever its requirement. If that
   * offer is rejected or missed, the contact waits in line as before the transfer. The escalation
   * steps it had not reached are dropped, as in a transfer to a queue (a step falling due while the
   * contact was assigned lapsed, and a restart must not revive it).
   */
  void transferToAgent(ContactRecord contact, AgentRecord to) {
    checkAssigned(contact);
    if (to == contact.agent) {
      throw RoutingException.invalid(
          "contact '" + contact.id + "' is already assigned to agent '" + to.id + "'");
    }
    if (!to.eligible(contact.channel)) {
      throw RoutingException.state(
          "agent '"
              + to.id
              + "' cannot take a "
              + contact.channel
              + " contact now (it must be available, out of wrap-up and below its "
              + contact.channel
              + " capacity of "
              + to.capacity(contact.channel)
              + ")");
    }
    AgentRecord from = leaveAgent(contact);
    contact.step = contact.steps.size();
    contact.state = ContactState.QUEUED;
    call.emit(
        (id, at) ->
            new RoutingEvent.ContactTransferred(
                id, at, contact.id, from.id, Optional.empty(), Optional.of(to.id)));
    offerFromOutside(contact, to);
    releaseSlot(from, contact);
  }

  /** Takes an assigned contact from its agent (the slot stays held until the caller frees it). */
  private AgentRecord leaveAgent(ContactRecord contact) {
    checkAssigned(contact);
    AgentRecord from = Objects.requireNonNull(contact.agent);
    call.touch(contact);
    agents.change(from, () -> from.active.remove(contact));
    contact.agent = null;
    contact.reservation = null;
    contact.deadline = Long.MAX_VALUE; // answered once: no maximum wait any more
    return from;
  }

  /** Refuses to transfer a contact that is not assigned. */
  static void checkAssigned(ContactRecord contact) {
    if (contact.state != ContactState.ASSIGNED) {
      throw RoutingException.state(
          "contact '"
              + contact.id
              + "' is "
              + contact.state.name().toLowerCase(java.util.Locale.ROOT)
              + "; only an assigned contact can be transferred");
    }
  }

  /** The agent is done with an assigned contact: wrap-up for {@code wrapMillis}, or finish now. */
  void complete(ContactRecord contact, long wrapMillis) {
    if (wrapMillis == 0) {
      finishCompleted(contact);
      return;
    }
    AgentRecord agent = Objects.requireNonNull(contact.agent);
    contact.state = ContactState.WRAP_UP;
    call.touch(contact);
    agents.change(agent, () -> agent.wrapUps++);
    long until = call.now + wrapMillis;
    contact.wrapUpUntil = until;
    call.emit(
        (id, at) ->
            new RoutingEvent.ContactWrapUp(id, at, contact.id, agent.id, CallContext.at(until)));
    contact.wrapUpTimerSeq = call.schedule(until, Timers.Kind.WRAP_UP_END, contact, 0);
  }

  private void finishCompleted(ContactRecord contact) {
    AgentRecord agent = Objects.requireNonNull(contact.agent);
    boolean wasWrapUp = contact.state == ContactState.WRAP_UP;
    contact.state = ContactState.COMPLETED;
    contact.endedAt = call.now;
    contact.wrapUpUntil = -1;
    call.touch(contact);
    agents.change(
        agent,
        () -> {
          if (wasWrapUp) {
            agent.wrapUps--;
          }
          agent.active.remove(contact);
          agent.release(contact.channel, contact.queue);
        });
    call.emit((id, at) -> new RoutingEvent.ContactCompleted(id, at, contact.id, agent.id));
    contacts.retire(contact);
    settleAgent(agent);
  }

  /** A queued or offered contact leaves for good without an agent: abandoned or timed out. */
  private void end(ContactRecord contact, ContactState state, LiveStats.Outcome outcome) {
    call.touch(contact);
    contact.state = state;
    contact.endedAt = call.now;
    call.stats.record(contact.groupKey, call.now, outcome, call.now - contact.createdAt);
    TaskQueueCounters counters = call.counters(contact.queue);
    if (counters != null) {
      if (state == ContactState.ABANDONED) {
        counters.abandoned++;
      } else {
        counters.timedOut++;
      }
    }
    if (state == ContactState.ABANDONED) {
      call.emit((id, at) -> new RoutingEvent.ContactAbandoned(id, at, contact.id));
    } else {
      call.emit((id, at) -> new RoutingEvent.ContactTimedOut(id, at, contact.id));
    }
    contacts.retire(contact);
  }

  // ---- timers ----------------------------------------------------------------------------

  void fireDueTimers() {
    Timers.Timer timer;
    while ((timer = call.timers.pollDue(call.now)) != null) {
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
          boolean current = timer.seq() == contact.timerSeq + timer.step() - 1;
          if (waiting && current && contact.step < timer.step()) {
            escalate(contact, timer.step());
          }
        }
        case MAX_WAIT -> {
          ContactRecord contact = (ContactRecord) timer.target();
          if (contact.state == ContactState.QUEUED && call.now >= contact.deadline) {
            contacts.line.remove(contact);
            end(contact, ContactState.TIMED_OUT, LiveStats.Outcome.TIMED_OUT);
          }
        }
        case WRAP_UP_END -> {
          ContactRecord contact = (ContactRecord) timer.target();
          if (contact.state == ContactState.WRAP_UP) {
            finishCompleted(contact);
          }
        }
        case REST_END -> restEnded((ReservationRecord) timer.target());
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
    close(offer, ReservationState.TIMED_OUT, "timed out");
    TaskQueueCounters counters = call.counters(offer.contact.queue);
    if (counters != null) {
      counters.offersTimedOut++;
    }
    rest(offer);
    requeue(offer.contact);
    agent.misses++;
    call.touch(agent);
    int limit = call.settings.missLimit();
    if (limit > 0 && agent.misses >= limit && agent.presence.isAvailable()) {
      Activity to = call.settings.missActivity();
      Presence away =
          to == null ? Presence.away("missed " + agent.misses + " offers in a row") : to.presence();
      String label = to == null ? Activity.label(away) : to.name();
      moveAfterRefusal(agent, offer.contact, away, label, "agent set away after missed offers");
    } else {
      releaseSlot(agent, offer.contact);
    }
  }

  /**
   * A refused offer's rest ended: a queued contact no longer resting from anyone stops counting in
   * its group, and the agent, if it may, takes the contact (or better work) now.
   */
  private void restEnded(ReservationRecord offer) {
    if (!offer.resting) {
      return;
    }
    ContactRecord contact = offer.contact;
    offer.resting = false;
    offer.restTimerSeq = 0;
    call.touch(offer);
    contact.rests--;
    if (contact.state != ContactState.QUEUED) {
      return;
    }
    if (contact.rests == 0) {
      contacts.line.restEnded(contact);
    }
    AgentRecord agent = offer.agent;
    if (!agent.removed && agent.eligible(contact.channel)) {
      settleAgent(agent);
    }
  }

  private void escalate(ContactRecord contact, int step) {
    ContactRecord.Step s = contact.steps.get(step - 1);
    Requirement requirement = s.requirement();
    boolean queued = contact.state == ContactState.QUEUED;
    if (queued) {
      contacts.line.remove(contact);
    }
    call.touch(contact);
    contact.requirement(requirement);
    contact.step = step;
    AgentRecord moved = s.queue() != null ? moveTo(contact, s.queue()) : null;
    if (s.priority() != null) {
      contact.priority = s.priority();
    }
    call.emit(
        (id, at) ->
            new RoutingEvent.ContactEscalated(id, at, contact.id, step, requirement.normalized));
    if (queued) {
      enter(contact, s.skip());
    } else if (moved != null) {
      settleAgent(moved);
    }
  }

  /**
   * Moves a waiting contact to task queue {@code queue} (a workflow's next target, or the workflow
   * routing it again). An offered contact's offer stands, and the agent's count of contacts per
   * queue follows the contact, so that the slot is given back later to the queue holding it; that
   * agent is returned (its count in the old queue fell: the caller settles it), else null.
   */
  private @Nullable AgentRecord moveTo(ContactRecord contact, @Nullable String queue) {
    AgentRecord agent = contact.agent;
    if (agent == null || Objects.equals(contact.queue, queue)) {
      contact.queue = queue;
      return null;
    }
    agents.change(
        agent,
        () -> {
          agent.release(contact.channel, contact.queue);
          contact.queue = queue;
          agent.hold(contact);
        });
    return agent;
  }
}
