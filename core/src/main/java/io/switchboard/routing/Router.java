package io.switchboard.routing;

import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Skills-based routing: agents with attributes, capacity per channel and presence; contacts with
 * requirements over agent attributes; and the matching between them, exactly as {@code
 * docs/design.md}, "Routing semantics", specifies (see {@code docs/routing.md}).
 *
 * <p>Matching is event-driven: every call that can create a match (a contact arrives, an agent
 * becomes eligible, an escalation step, an offer rejected or timed out) matches before it returns.
 * A match is an offer ({@link Reservation}) that the agent accepts or rejects; the router never
 * leaves an eligible agent idle while a contact it matches waits, never passes a contact over for a
 * later one of equal or lower priority that the same agent could take, and never offers one contact
 * to two agents.
 *
 * <p>Time comes from the injected {@link Clock}: timers (offer timeout, escalation, maximum wait,
 * wrap-up) fire at the start of every call, on every advance of a {@link
 * io.switchboard.time.ManualClock}, and on the system clock from a timer thread.
 *
 * <p>Every method is safe to call from any number of threads. A method that throws {@link
 * RoutingException} has changed nothing.
 */
public interface Router extends AutoCloseable {

  static Builder builder() {
    return new Builder();
  }

  // ---- agents ---------------------------------------------------------------------------

  /** Creates an agent; if it is created available, it takes waiting work at once. */
  Agent createAgent(NewAgent agent);

  /** Replaces an agent's attributes. Offers already made stand. */
  Agent updateAttributes(String agentId, Map<String, ?> attributes);

  /**
   * Replaces an agent's capacity per channel. Lowering it below the current load takes nothing
   * away; the agent is simply not offered more until its load falls below the new capacity.
   */
  Agent updateCapacity(String agentId, Map<String, Integer> capacity);

  /**
   * Changes an agent's presence. Going away or offline withdraws the agent's pending offers (the
   * contacts go back to their places); assigned contacts stay with the agent.
   */
  Agent presence(String agentId, Presence presence);

  /**
   * Moves an agent to an activity (a workspace's; {@link Workspace#activity} checks that it is
   * one): its presence follows ({@link Activity#presence()}), with the same effects as {@link
   * #presence}; the time of the activity it leaves is added to its {@link Agent#activityTime()}.
   */
  Agent activity(String agentId, Activity activity);

  Agent agent(String agentId);

  /** All agents, by id. */
  List<Agent> agents();

  /** The agents whose attributes match {@code selector}, by id. */
  List<Agent> agents(String selector);

  /**
   * A page of the agents, by id: those whose attributes match {@code selector}, or all when it is
   * null. Paging is stable under concurrent changes ({@link ListRequest}).
   */
  ListPage<Agent> agents(@Nullable String selector, ListRequest page);

  /**
   * Removes an agent and withdraws its pending offers. Refused with {@link
   * RoutingErrorCode#INVALID_STATE} while contacts are assigned to it or in wrap-up with it.
   */
  void removeAgent(String agentId);

  // ---- contacts -------------------------------------------------------------------------

  /** Queues a contact; if an eligible agent matches, it is offered at once. */
  Contact createContact(NewContact contact);

  /** A live contact, or one still in the bounded history of finished contacts. */
  Contact contact(String contactId);

  /**
   * How many contacts routed through task queue {@code queue} are live: queued, offered, assigned
   * or in wrap-up.
   */
  int liveContacts(String queue);

  /** The contacts waiting in line now, in the order they will be served within each group. */
  List<Contact> waiting();

  /**
   * A page of the contacts waiting now, in the order of {@link #waiting()} (by group, then order of
   * service). A contact that stays in its group from the first page to the last is listed once; one
   * escalated to another group between pages moves in the listing, and may be listed twice or not
   * at all ({@link ListRequest}).
   */
  ListPage<Contact> waiting(ListRequest page);

  /**
   * The caller left: a queued or offered contact becomes abandoned (a pending offer is withdrawn).
   */
  Contact abandon(String contactId);

  /** The agent finished an assigned contact; wrap-up as configured for its channel. */
  Contact complete(String contactId);

  /** The agent finished an assigned contact, with this wrap-up time (0..1 h). */
  Contact complete(String contactId, Duration wrapUp);

  /**
   * Changes a waiting (queued or offered) contact's priority (-1000..1000), attributes or
   * requirements in force; it keeps its arrival time, so among contacts of its new priority it
   * stands by arrival. A queued contact takes its new place at once, and goes to an eligible agent
   * its new requirement matches; an offered one's offer stands and the change applies if it comes
   * back. Escalation steps not reached yet still apply when due. Refused with INVALID_STATE for a
   * contact that is assigned or finished.
   */
  Contact updateContact(String contactId, ContactUpdate update);

  /**
   * Routes a waiting (queued or offered) contact again, as a workflow does when the contact's
   * attributes change: it takes {@code route}'s attributes, priority, requirements, task queue and
   * escalation steps (their {@code after} counted from now), and starts again at its first step
   * (skipping it at once if {@code route} says so and no agent takes it); it keeps its arrival, so
   * its place among contacts of equal priority and its waiting time stand. {@code route}'s id,
   * channel, maximum wait and workflow are ignored. Refused with INVALID_STATE for a contact that
   * is assigned or finished.
   */
  Contact reroute(String contactId, NewContact route);

  /**
   * Cancels a queued or offered contact (a supervisor removes it): it ends {@link
   * ContactState#CANCELLED}, its pending offer is cancelled and the agent's slot freed. It counts
   * in neither the answered nor the abandoned figures. Refused with INVALID_STATE otherwise.
   */
  Contact cancel(String contactId, String reason);

  /**
   * Transfers an assigned contact to a task queue: it leaves its agent (whose slot is freed at
   * once, without wrap-up) and waits under {@code requirements} (the queue's worker expression and
   * any extra, combined by {@link Workspace#transfer}; empty: any agent) at its original place:
   * same priority, same arrival. Escalation steps not reached are dropped, and so is the maximum
   * wait.
   */
  Contact transfer(String contactId, String queue, Optional<String> requirements);

  /**
   * Transfers an assigned contact to agent {@code agentId}, which must be able to take it now
   * (available, out of wrap-up, below capacity on the channel; INVALID_STATE otherwise): it leaves
   * its agent as in {@link #transfer(String, String, Optional)} and is offered to that agent,
   * whatever its requirements; if the offer is rejected or missed, it waits in line as before.
   */
  Contact transferToAgent(String contactId, String agentId);

  // ---- task queues ----------------------------------------------------------------------

  /**
   * Sets the rules of the workspace's task queues ({@link Workspace} calls it with its definition's
   * queues when opened and after each change): contacts routed through a queue follow its order,
   * strategy and cap of contacts per agent, and count in its statistics. A queue's changed rules
   * apply at once to its waiting contacts (their order among equal priority) and to the next offers
   * (strategy, cap; an agent below a raised cap takes waiting work at once); offers made stand.
   * Contacts of a queue not in {@code queues} are routed as contacts of no queue. A queue that is
   * dropped and defined again starts its counters again.
   */
  void taskQueues(List<TaskQueue> queues);

  /** The live figures of task queue {@code queue}; TASK_QUEUE_NOT_FOUND if it has no rules here. */
  TaskQueueStats taskQueueStats(String queue);

  // ---- reservations ---------------------------------------------------------------------

  Reservation reservation(String reservationId);

  /** An agent's pending offers, oldest first. */
  List<Reservation> pendingReservations(String agentId);

  /** A page of an agent's pending offers, oldest first ({@link ListRequest}). */
  ListPage<Reservation> pendingReservations(String agentId, ListRequest page);

  /**
   * Accepts an offer: the contact is assigned to the agent. An offer that has timed out or was
   * cancelled is refused with {@link RoutingErrorCode#RESERVATION_EXPIRED}.
   */
  Contact accept(String reservationId);

  /**
   * Rejects an offer: the contact goes back to its place in line and is offered again at once if
   * another eligible agent matches; the agent goes to the back of the idle order.
   */
  Contact reject(String reservationId);

  // ---- events and statistics -------------------------------------------------------------

  /** Up to {@code limit} (1..10,000) events with ids above {@code afterId}, oldest first. */
  EventPage events(long afterId, int limit);

  /**
   * Calls {@code listener} with every event from now on, in id order, after the change is made and
   * outside the router's lock, on one of the threads that made changes. A listener must be quick
   * (hand events to a queue); an exception it throws is logged and otherwise ignored.
   */
  Subscription onEvent(Consumer<? super RoutingEvent> listener);

  RoutingStats stats();

  /**
   * Contacts queued now, as {@link #stats()} counts them in {@code overall().waiting()}, without a
   * snapshot: cheap enough to ask of every workspace at each metrics scrape. The in-memory router
   * reads it without its lock, so it may be a moment old.
   */
  default int waitingNow() {
    return stats().overall().waiting();
  }

  /**
   * The lasting statistics: the 15-minute intervals in the query's range for the workspace, a task
   * queue or an agent, their sum, and the figures since the router began ({@code docs/routing.md},
   * "Statistics that last"). Fails with INVALID_ARGUMENT when {@code from} is not before {@code
   * to}, the range is longer than 31 days, both a queue and an agent are given, or the queue or
   * agent is unknown (never counted, not defined, not an agent now).
   */
  StatisticsReport statistics(StatisticsQuery query);

  /** Stops the timer thread of a system-clock router; later calls fail with UNAVAILABLE. */
  @Override
  void close();

  /** Ends a listener registration. */
  interface Subscription extends AutoCloseable {
    @Override
    void close();
  }

  /** The default {@link Builder#restPeriod}: as long as the default offer timeout. */
  Duration DEFAULT_REST_PERIOD = Duration.ofSeconds(30);

  /** Configures a {@link Router}. Every setting has a default. */
  final class Builder {
    Clock clock = Clock.system();
    Strategy strategy = Strategy.longestIdle();
    Duration offerTimeout = Duration.ofSeconds(30);
    int missLimit = 3;
    Duration restPeriod = DEFAULT_REST_PERIOD;
    @Nullable Activity missActivity;
    @Nullable Activity rejectActivity;
    final Set<String> autoAccept = new HashSet<>();
    final Map<String, Duration> wrapUp = new HashMap<>();
    Duration serviceLevelThreshold = Duration.ofSeconds(20);
    Duration statsWindow = Duration.ofMinutes(15);
    int eventHistory = 10_000;
    int contactHistory = 10_000;
    Duration statsRetention = Duration.ofDays(35);
    @Nullable RouterJournal journal;
    List<TaskQueue> taskQueues = List.of();
    private final List<Consumer<? super RoutingEvent>> listeners = new ArrayList<>();

    private Builder() {}

    /**
     * Subscribes {@code listener} to the built router's events ({@link Router#onEvent}), from its
     * first call on: a server that builds routers in several places (workspaces, a routing leader
     * taking over) listens to each without finding them afterwards.
     */
    public Builder onEvent(Consumer<? super RoutingEvent> listener) {
      listeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * The task queues whose rules the router starts with, before it recovers from its journal
     * ({@link Router#taskQueues}); none by default.
     */
    public Builder taskQueues(List<TaskQueue> queues) {
      this.taskQueues = List.copyOf(queues);
      return this;
    }

    /** The time source; default the system clock. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** How a contact chooses among matching eligible agents; default longest idle. */
    public Builder strategy(Strategy strategy) {
      this.strategy = Objects.requireNonNull(strategy, "strategy");
      return this;
    }

    /** How long an offer waits for accept or reject, 1 s..1 h; default 30 s. */
    public Builder offerTimeout(Duration offerTimeout) {
      this.offerTimeout = Objects.requireNonNull(offerTimeout, "offerTimeout");
      return this;
    }

    /**
     * After this many consecutive timed-out offers the agent is set away ("missed offers"),
     * 0..1000; 0 never; default 3. An accept resets the count; a reject does not count.
     */
    public Builder missLimit(int missLimit) {
      this.missLimit = missLimit;
      return this;
    }

    /**
     * After an agent rejects an offer or lets it time out, that contact is not offered to that
     * agent again for this long (other agents may take it at once, and the agent other contacts), 1
     * s..1 h; default {@link #DEFAULT_REST_PERIOD}. So no loop of offers between one contact and
     * one agent is possible.
     */
    public Builder restPeriod(Duration restPeriod) {
      this.restPeriod = Objects.requireNonNull(restPeriod, "restPeriod");
      return this;
    }

    /**
     * The activity an agent is moved to after its {@link #missLimit}-th missed offer in a row; it
     * must not be available. Default: presence {@code away("missed N offers in a row")}, activity
     * {@code away}.
     */
    public Builder missActivity(Activity activity) {
      this.missActivity = Objects.requireNonNull(activity, "missActivity");
      return this;
    }

    /**
     * The activity an agent is moved to when it (or an assignment callback for it) rejects an
     * offer; an unavailable one withdraws its other pending offers. Default: none, the agent stays
     * in its activity.
     */
    public Builder rejectActivity(Activity activity) {
      this.rejectActivity = Objects.requireNonNull(activity, "rejectActivity");
      return this;
    }

    /** Offers on {@code channel} are accepted at once, without waiting for the agent. */
    public Builder autoAccept(String channel) {
      autoAccept.add(Objects.requireNonNull(channel, "channel"));
      return this;
    }

    /** Offers on exactly these channels are accepted at once (replacing any set before). */
    public Builder autoAcceptOnly(Set<String> channels) {
      autoAccept.clear();
      channels.forEach(this::autoAccept);
      return this;
    }

    /** The default wrap-up time after completing a contact on {@code channel}, 0..1 h; 0. */
    public Builder wrapUp(String channel, Duration wrapUp) {
      this.wrapUp.put(
          Objects.requireNonNull(channel, "channel"), Objects.requireNonNull(wrapUp, "wrapUp"));
      return this;
    }

    /** "Answered within" for the service level, 1 s..1 h; default 20 s. */
    public Builder serviceLevelThreshold(Duration threshold) {
      this.serviceLevelThreshold = Objects.requireNonNull(threshold, "threshold");
      return this;
    }

    /** The sliding window of the rates in {@link Router#stats()}, 1 min..24 h; default 15 min. */
    public Builder statsWindow(Duration window) {
      this.statsWindow = Objects.requireNonNull(window, "window");
      return this;
    }

    /**
     * How long the lasting statistics keep each 15-minute interval ({@link Router#statistics}), 1
     * day..400 days; default 35 days. The cumulative figures are kept whatever the retention.
     */
    public Builder statsRetention(Duration retention) {
      this.statsRetention = Objects.requireNonNull(retention, "retention");
      return this;
    }

    /** How many recent events {@link Router#events} can return, 16..1,000,000; default 10,000. */
    public Builder eventHistory(int events) {
      this.eventHistory = events;
      return this;
    }

    /** How many finished contacts stay readable, 0..1,000,000; default 10,000. */
    public Builder contactHistory(int contacts) {
      this.contactHistory = contacts;
      return this;
    }

    /**
     * Makes the router durable: it recovers agents, contacts, reservations and timers from the
     * journal on build, and stores every change in it. The journal stays the caller's to close,
     * after the router.
     */
    public Builder journal(RouterJournal journal) {
      this.journal = Objects.requireNonNull(journal, "journal");
      return this;
    }

    /**
     * Checks every setting now, without building; fails with INVALID_ARGUMENT naming the first
     * setting out of range (for configuration read at startup).
     */
    public Builder check() {
      RouterSettings.of(this);
      return this;
    }

    /** Builds the router; fails with INVALID_ARGUMENT naming the first setting out of range. */
    public Router build() {
      Router router = new MemoryRouter(RouterSettings.of(this), journal);
      listeners.forEach(router::onEvent);
      return router;
    }
  }
}
