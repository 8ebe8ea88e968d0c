package io.switchboard.bench.routing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * Drives one {@link RoutingTarget} through the contact center and measures it.
 *
 * <p><b>Load.</b> {@code agents} agents are created available; then {@code contacts + agents}
 * contacts arrive (1 ms apart on the virtual clock), every offer is accepted, so all agents end up
 * busy and about {@code contacts} contacts wait.
 *
 * <p><b>Steady stream</b>, one cycle at a time, each cycle 100 ms of virtual time ({@code
 * tickMillis}): the agent of a random assigned contact completes it and frees up, which is where
 * the decision happens (the freed agent takes a waiting contact it has every skill for); the
 * simulation accepts the offer; then one new contact arrives (usually it waits: every agent is
 * busy); any offer made is accepted. So the line stays at its depth and every agent stays busy.
 *
 * <p><b>Measured</b>: every call into the target is timed with {@code System.nanoTime()}. A call
 * that made a decision is a decision sample (for the freed-agent event: from "the agent is done" to
 * "the agent has its next contact", which for Redis includes the dispatcher's turns until it got
 * there); every call is an event sample. Throughput is decisions (and events) per second of the
 * summed call time of the measured cycles.
 *
 * <p><b>Checked</b>: every decision, as it is reported: the contact was waiting (never offered
 * twice), the agent was free, and the agent has every required skill. A violation stops the run.
 */
final class Simulation {

  private static final byte WAITING = 1;
  private static final byte OFFERED = 2;
  private static final byte ASSIGNED = 3;
  private static final byte DONE = 4;

  /** What to simulate. */
  record Options(
      int agents, int contacts, int warmupCycles, int cycles, long seed, long tickMillis) {

    int maxContacts() {
      return contacts + agents + warmupCycles + cycles;
    }
  }

  /** The figures of one target's run. */
  record Result(
      String target,
      int cycles,
      long decisions,
      long events,
      long measuredNanos,
      Histogram decisionLatency,
      Histogram eventLatency,
      double loadSeconds,
      int waitingAfterLoad,
      int waitingAtEnd,
      long decisionsChecked,
      String notes,
      @Nullable List<long[]> log) {

    double decisionsPerSecond() {
      return decisions / (measuredNanos / 1e9);
    }

    double eventsPerSecond() {
      return events / (measuredNanos / 1e9);
    }
  }

  private final Options options;
  private final CallCenter center;
  private final long[] requirement;
  private final byte[] state;
  private final int[] agentOf;
  private final boolean[] busy;
  private final IntList assigned = new IntList();
  private final IntList offered = new IntList();
  private final SplittableRandom pick;
  private final @Nullable List<long[]> log;
  private long checked;
  private int waiting;

  private Simulation(Options options, boolean keepLog) {
    this.options = options;
    this.center = new CallCenter(options.agents(), options.seed());
    int max = options.maxContacts();
    this.requirement = new long[max];
    for (int c = 0; c < max; c++) {
      requirement[c] = center.nextRequirement();
    }
    this.state = new byte[max];
    this.agentOf = new int[max];
    this.busy = new boolean[options.agents()];
    this.pick = new SplittableRandom(options.seed() * 31 + 7);
    this.log = keepLog ? new ArrayList<>() : null;
  }

  /**
   * Runs one target built by {@code factory} (given the number of contacts and where to report
   * decisions). With {@code keepLog}, the result lists every decision as {@code {contact, agent}}.
   */
  static Result run(
      String name,
      Options options,
      boolean keepLog,
      java.util.function.BiFunction<Integer, RoutingTarget.Decisions, RoutingTarget> factory) {
    Simulation s = new Simulation(options, keepLog);
    try (RoutingTarget target = factory.apply(options.maxContacts(), s::decided)) {
      return s.drive(name, target);
    }
  }

  private Result drive(String name, RoutingTarget target) {
    long loadStart = System.nanoTime();
    for (int a = 0; a < options.agents(); a++) {
      target.addAgent(a, center.agentSkills(a));
    }
    int loaded = options.contacts() + options.agents();
    for (int c = 0; c < loaded; c++) {
      state[c] = WAITING;
    }
    waiting = loaded;
    target.load(Arrays.copyOf(requirement, loaded));
    acceptOffers(target, null, null);
    double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
    int waitingAfterLoad = waiting;

    Histogram decisionLatency = new Histogram(3_600_000_000_000L, 3);
    Histogram eventLatency = new Histogram(3_600_000_000_000L, 3);
    Histogram[] warmup = {
      new Histogram(3_600_000_000_000L, 3), new Histogram(3_600_000_000_000L, 3)
    };
    Histogram[] measuredHistograms = {decisionLatency, eventLatency};
    long[] totals = new long[3]; // nanos, decisions, events
    long[] warmupTotals = new long[3];
    int next = loaded;
    for (int cycle = 0; cycle < options.warmupCycles() + options.cycles(); cycle++) {
      boolean measured = cycle >= options.warmupCycles();
      if (cycle == options.warmupCycles()) {
        target.measuring();
      }
      Histogram[] h = measured ? measuredHistograms : warmup;
      long[] t = measured ? totals : warmupTotals;
      if (!assigned.isEmpty()) {
        int contact = assigned.removeAt(pick.nextInt(assigned.size()));
        state[contact] = DONE;
        busy[agentOf[contact]] = false;
        int c = contact;
        timed(target, () -> target.complete(c), h, t);
      }
      int arriving = next++;
      state[arriving] = WAITING;
      waiting++;
      timed(target, () -> target.arrive(arriving, requirement[arriving]), h, t);
      target.advanceMillis(options.tickMillis());
    }
    return new Result(
        name,
        options.cycles(),
        totals[1],
        totals[2],
        totals[0],
        decisionLatency,
        eventLatency,
        loadSeconds,
        waitingAfterLoad,
        waiting,
        checked,
        target.notes(),
        log);
  }

  /** One timed call, then the timed accepts of the offers it made. */
  private void timed(RoutingTarget target, Runnable call, Histogram[] h, long[] totals) {
    long start = System.nanoTime();
    call.run();
    long took = System.nanoTime() - start;
    totals[0] += took;
    totals[2]++;
    h[1].recordValue(took);
    if (!offered.isEmpty()) {
      totals[1] += offered.size();
      h[0].recordValue(took);
    }
    acceptOffers(target, totals, h[1]);
  }

  private void acceptOffers(
      RoutingTarget target, long @Nullable [] totals, @Nullable Histogram events) {
    for (int i = 0; i < offered.size(); i++) {
      int contact = offered.get(i);
      long start = System.nanoTime();
      target.accept(contact);
      if (totals != null && events != null) { // measured: both given, else neither
        long took = System.nanoTime() - start;
        totals[0] += took;
        totals[2]++;
        events.recordValue(took);
      }
      state[contact] = ASSIGNED;
      assigned.add(contact);
    }
    offered.clear();
  }

  /** The correctness guard: called by the target for each decision, inside the call. */
  private void decided(int contact, int agent) {
    if (contact < 0 || contact >= state.length || state[contact] != WAITING) {
      throw new IllegalStateException(
          "invalid decision: contact "
              + contact
              + " was not waiting (state "
              + stateOf(contact)
              + ")");
    }
    if (agent < 0 || agent >= busy.length || busy[agent]) {
      throw new IllegalStateException(
          "invalid decision: agent " + agent + " was not available for contact " + contact);
    }
    long skills = center.agentSkills(agent);
    if ((skills & requirement[contact]) != requirement[contact]) {
      throw new IllegalStateException(
          "invalid decision: agent "
              + agent
              + " "
              + CallCenter.names(skills)
              + " lacks a skill of contact "
              + contact
              + " "
              + CallCenter.names(requirement[contact]));
    }
    state[contact] = OFFERED;
    busy[agent] = true;
    agentOf[contact] = agent;
    offered.add(contact);
    waiting--;
    checked++;
    if (log != null) {
      log.add(new long[] {contact, agent});
    }
  }

  private int stateOf(int contact) {
    return contact < 0 || contact >= state.length ? -1 : state[contact];
  }

  /** A growable list of ints with O(1) removal of any element (the last one takes its place). */
  private static final class IntList {
    private int[] items = new int[1_024];
    private int size;

    void add(int value) {
      if (size == items.length) {
        items = Arrays.copyOf(items, size * 2);
      }
      items[size++] = value;
    }

    int get(int i) {
      return items[i];
    }

    int removeAt(int i) {
      int value = items[i];
      items[i] = items[--size];
      return value;
    }

    int size() {
      return size;
    }

    boolean isEmpty() {
      return size == 0;
    }

    void clear() {
      size = 0;
    }
  }
}
