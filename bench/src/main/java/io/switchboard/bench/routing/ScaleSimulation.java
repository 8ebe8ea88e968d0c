package io.switchboard.bench.routing;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.BiFunction;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * Drives one {@link ScaleTarget} through the {@link ScaleCenter} and measures it.
 *
 * <p><b>Population</b>: every agent is created unavailable; then {@code contacts} contacts arrive,
 * 1 ms apart on the virtual clock (so the workflow timeouts move the older ones on to their family
 * and general queues as they fall due); the target's memory is read before the agents, after them
 * and after the contacts. <b>Start</b>: every agent becomes available, one by one, and takes a
 * contact at once (Switchboard: each such call is a "ready" decision, timed); offers are accepted.
 * About {@code contacts - agents} contacts are left waiting, every agent busy.
 *
 * <p><b>Steady stream</b>, one cycle at a time, each cycle {@code tickMillis} of virtual time: the
 * agent of a random assigned contact completes it and becomes available (a decision if it takes a
 * waiting contact its skills admit); one new contact arrives (a decision if an available agent
 * takes it at once); the clock moves on, firing the workflow timeouts due (a decision if a contact
 * moved to its next target is taken by an available agent); every offer made is accepted.
 *
 * <p><b>Measured</b>: every call into the target is timed with {@code System.nanoTime()}; a call
 * that made a decision is one decision sample of its kind (the event and the match it caused, up to
 * the reservation); decisions/s = decisions ÷ the summed time of every measured call (completions,
 * arrivals, clock moves, accepts).
 *
 * <p><b>Checked</b>: every decision as it is reported: the contact was waiting, the agent was
 * available, and the agent's skills admit the contact at the workflow target it was in (from its
 * waiting time: product queue below 30 s, family queue below 90 s, general queue after; seed 004
 * always at its first). A violation stops the run.
 */
final class ScaleSimulation {

  static final int READY = 0;
  static final int COMPLETE = 1;
  static final int ARRIVE = 2;
  static final int TIMEOUT = 3;
  static final String[] KINDS = {
    "agent ready (start)", "agent frees up", "contact arrives", "target timeout"
  };

  private static final long HIGHEST = 3_600_000_000_000L;
  private static final byte WAITING = 1;
  private static final byte OFFERED = 2;
  private static final byte ASSIGNED = 3;
  private static final byte DONE = 4;

  /** What to simulate. */
  record Options(
      int queues,
      int agents,
      int contacts,
      int warmupCycles,
      int cycles,
      long seed,
      long tickMillis) {

    int maxContacts() {
      return contacts + warmupCycles + cycles;
    }
  }

  /** The figures of one target's run. */
  record Result(
      String target,
      String description,
      int cycles,
      long[] decisions,
      Histogram[] latency,
      Histogram steady,
      long measuredNanos,
      long events,
      long checked,
      double populateSeconds,
      double startSeconds,
      ScaleTarget.Memory base,
      ScaleTarget.Memory withAgents,
      ScaleTarget.Memory withContacts,
      int agents,
      int contacts,
      int waitingAfterStart,
      int waitingAtEnd,
      String notes) {

    long steadyDecisions() {
      return decisions[COMPLETE] + decisions[ARRIVE] + decisions[TIMEOUT];
    }

    double decisionsPerSecond() {
      return steadyDecisions() / (measuredNanos / 1e9);
    }

    double bytesPerAgent() {
      return (withAgents.bytes() - base.bytes()) / (double) agents;
    }

    double bytesPerContact() {
      return (withContacts.bytes() - withAgents.bytes()) / (double) contacts;
    }
  }

  private final Options options;
  private final ScaleCenter center;
  private final int[] kindOf;
  private final long[] arrivedAt;
  private final byte[] state;
  private final int[] agentOf;
  private final boolean[] busy;
  private final IntList assigned = new IntList();
  private final IntList offered = new IntList();
  private final SplittableRandom pick;
  private boolean widens = true;
  private long now;
  private long callStartedAt;
  private long checked;
  private int waiting;

  private ScaleSimulation(Options options) {
    this.options = options;
    this.center = new ScaleCenter(options.queues(), options.agents(), options.seed());
    int max = options.maxContacts();
    this.kindOf = new int[max];
    for (int c = 0; c < max; c++) {
      kindOf[c] = center.nextContact();
    }
    this.arrivedAt = new long[max];
    this.state = new byte[max];
    this.agentOf = new int[max];
    this.busy = new boolean[options.agents()];
    this.pick = new SplittableRandom(options.seed() * 31 + 7);
  }

  /**
   * Runs one target, built by {@code factory} from the center and where to report decisions (the
   * center is the simulation's own: the same agents and contacts for every target).
   */
  static Result run(
      Options options, BiFunction<ScaleCenter, RoutingTarget.Decisions, ScaleTarget> factory)
      throws InterruptedException {
    ScaleSimulation s = new ScaleSimulation(options);
    try (ScaleTarget target = factory.apply(s.center, s::decided)) {
      return s.drive(target);
    }
  }

  private Result drive(ScaleTarget target) throws InterruptedException {
    widens = target.widens();
    ScaleTarget.Memory base = target.memory();
    long populateStart = System.nanoTime();
    for (int a = 0; a < options.agents(); a++) {
      target.addAgent(a);
    }
    double agentSeconds = (System.nanoTime() - populateStart) / 1e9;
    ScaleTarget.Memory withAgents = target.memory();
    long contactsStart = System.nanoTime();
    for (int c = 0; c < options.contacts(); c++) {
      state[c] = WAITING;
      arrivedAt[c] = now;
      waiting++;
      callStartedAt = now;
      target.queue(c, kindOf[c]);
      advance(target, 1);
    }
    double populateSeconds = agentSeconds + (System.nanoTime() - contactsStart) / 1e9;
    ScaleTarget.Memory withContacts = target.memory();

    Histogram[] latency = new Histogram[KINDS.length];
    for (int k = 0; k < latency.length; k++) {
      latency[k] = new Histogram(HIGHEST, 3);
    }
    Histogram steady = new Histogram(HIGHEST, 3);
    long[] decisions = new long[KINDS.length];
    long[] totals = new long[2]; // nanos, events
    long startStart = System.nanoTime();
    for (int a = 0; a < options.agents(); a++) {
      int agent = a;
      timed(() -> target.ready(agent), READY, latency, null, decisions, null);
      acceptOffers(target, null);
    }
    target.started();
    acceptOffers(target, null);
    double startSeconds = (System.nanoTime() - startStart) / 1e9;
    int waitingAfterStart = waiting;

    Histogram[] warmLatency = new Histogram[KINDS.length];
    for (int k = 0; k < warmLatency.length; k++) {
      warmLatency[k] = new Histogram(HIGHEST, 3);
    }
    Histogram warmSteady = new Histogram(HIGHEST, 3);
    long[] warmDecisions = new long[KINDS.length];
    long[] warmTotals = new long[2];
    int next = options.contacts();
    for (int cycle = 0; cycle < options.warmupCycles() + options.cycles(); cycle++) {
      boolean measured = cycle >= options.warmupCycles();
      if (cycle == options.warmupCycles()) {
        target.measuring();
      }
      Histogram[] h = measured ? latency : warmLatency;
      Histogram s = measured ? steady : warmSteady;
      long[] d = measured ? decisions : warmDecisions;
      long[] t = measured ? totals : warmTotals;
      if (!assigned.isEmpty()) {
        int contact = assigned.removeAt(pick.nextInt(assigned.size()));
        state[contact] = DONE;
        busy[agentOf[contact]] = false;
        timed(() -> target.complete(contact), COMPLETE, h, s, d, t);
        acceptOffers(target, t);
      }
      int arriving = next++;
      state[arriving] = WAITING;
      arrivedAt[arriving] = now;
      waiting++;
      timed(() -> target.arrive(arriving, kindOf[arriving]), ARRIVE, h, s, d, t);
      acceptOffers(target, t);
      timed(() -> advance(target, options.tickMillis()), TIMEOUT, h, s, d, t);
      acceptOffers(target, t);
    }
    return new Result(
        ScaleBench.name(target),
        target.describe(),
        options.cycles(),
        decisions,
        latency,
        steady,
        totals[0],
        totals[1],
        checked,
        populateSeconds,
        startSeconds,
        base,
        withAgents,
        withContacts,
        options.agents(),
        options.contacts(),
        waitingAfterStart,
        waiting,
        target.notes());
  }

  private void advance(ScaleTarget target, long millis) {
    callStartedAt = now;
    now += millis;
    target.advanceMillis(millis);
  }

  /**
   * One timed call; if it made decisions, one sample of {@code kind} (and of {@code steady}). The
   * offers it made are still pending in {@link #offered}.
   */
  private void timed(
      Runnable call,
      int kind,
      Histogram[] h,
      @Nullable Histogram steady,
      long[] decisions,
      long @Nullable [] totals) {
    callStartedAt = now;
    int before = offered.size();
    long start = System.nanoTime();
    call.run();
    long took = System.nanoTime() - start;
    if (totals != null) {
      totals[0] += took;
      totals[1]++;
    }
    int made = offered.size() - before;
    if (made > 0) {
      decisions[kind] += made;
      h[kind].recordValue(took);
      if (steady != null) {
        steady.recordValue(took);
      }
    }
  }

  private void acceptOffers(ScaleTarget target, long @Nullable [] totals) {
    for (int i = 0; i < offered.size(); i++) {
      int contact = offered.get(i);
      long start = System.nanoTime();
      target.accept(contact);
      if (totals != null) {
        totals[0] += System.nanoTime() - start;
        totals[1]++;
      }
      state[contact] = ASSIGNED;
      assigned.add(contact);
    }
    offered.clear();
  }

  /** The workflow target a contact waiting since {@code arrived} is in at {@code at}. */
  private int tier(long arrived, long at) {
    if (!widens) {
      return 0;
    }
    long waited = at - arrived;
    return waited < ScaleCenter.SPECIALIST_MILLIS
        ? 0
        : waited < ScaleCenter.SPECIALIST_MILLIS + ScaleCenter.FAMILY_MILLIS ? 1 : 2;
  }

  /** The correctness guard: called by the target for each decision, inside the call. */
  private void decided(int contact, int agent) {
    if (contact < 0 || contact >= state.length || state[contact] != WAITING) {
      throw new IllegalStateException(
          "invalid decision: contact "
              + contact
              + " was not waiting (state "
              + (contact < 0 || contact >= state.length ? -1 : state[contact])
              + ")");
    }
    if (agent < 0 || agent >= busy.length || busy[agent]) {
      throw new IllegalStateException(
          "invalid decision: agent " + agent + " was not available for contact " + contact);
    }
    int product = kindOf[contact] / ScaleCenter.LANGUAGES;
    int language = kindOf[contact] % ScaleCenter.LANGUAGES;
    int from = tier(arrivedAt[contact], callStartedAt);
    int to = tier(arrivedAt[contact], now);
    boolean admitted = false;
    for (int t = from; t <= to && !admitted; t++) {
      admitted = center.admits(agent, product, language, t);
    }
    if (!admitted) {
      throw new IllegalStateException(
          "invalid decision: agent "
              + agent
              + " (languages "
              + center.languages(agent)
              + ", skills "
              + center.skills(agent)
              + ") is not admitted by contact "
              + contact
              + " ("
              + center.product(product)
              + ", "
              + ScaleCenter.language(language)
              + ", waiting "
              + (now - arrivedAt[contact])
              + " ms: target "
              + from
              + ".."
              + to
              + ")");
    }
    state[contact] = OFFERED;
    busy[agent] = true;
    agentOf[contact] = agent;
    offered.add(contact);
    waiting--;
    checked++;
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
