package io.switchboard.bench.routing;

/**
 * One way of routing contacts to agents, driven by {@link Simulation} with the same events. Agents
 * and contacts are numbered by the simulation; every agent has capacity 1 on one channel. Each
 * decision (a contact offered or assigned to an agent) is reported to the {@link Decisions} given
 * at construction, from inside the call that made it.
 */
interface RoutingTarget extends AutoCloseable {

  /** Where a target reports its decisions. */
  @FunctionalInterface
  interface Decisions {
    void decided(int contact, int agent);
  }

  /** Creates an agent, available, with these skills. */
  void addAgent(int agent, long skills);

  /** A contact arrives needing every skill in {@code requirement}. */
  void arrive(int contact, long requirement);

  /**
   * Loads the initial contacts, numbered from 0 in the order given, moving the clock 1 ms between
   * arrivals. By default one {@link #arrive} each; offers made stay pending until the simulation
   * accepts them after the load.
   */
  default void load(long[] requirements) {
    for (int c = 0; c < requirements.length; c++) {
      arrive(c, requirements[c]);
      advanceMillis(1);
    }
  }

  /** The agent serving {@code contact} completes it (no wrap-up) and frees up. */
  void complete(int contact);

  /** The agent accepts the offer of {@code contact}; a no-op for targets that assign directly. */
  void accept(int contact);

  /** Moves the virtual clock forward. */
  void advanceMillis(long millis);

  /** The measured cycles start now: counters in {@link #notes()} start from here. */
  default void measuring() {}

  /** A line about the target's own counters for the report, or empty. */
  default String notes() {
    return "";
  }

  @Override
  void close();
}
