package io.switchboard.bench.routing;

/**
 * One way of routing the {@link ScaleCenter}'s contacts, driven by {@link ScaleSimulation}. Agents
 * and contacts are numbered by the simulation and described by the center; each decision (a contact
 * offered or assigned to an agent) is reported to the {@link RoutingTarget.Decisions} given at
 * construction, from inside the call that made it.
 */
interface ScaleTarget extends AutoCloseable {

  /** A short description of what this target runs, for the report. */
  String describe();

  /**
   * Whether a waiting contact moves through the workflow's 3 targets as time passes (Switchboard),
   * or keeps its first target's requirement for its whole wait (seed 004 has no widening).
   */
  boolean widens();

  /** The memory the target holds now, in bytes, and how it was measured. */
  Memory memory() throws InterruptedException;

  /** A memory reading: bytes, and what was read. */
  record Memory(long bytes, String source) {}

  /** Creates an agent, not available. */
  void addAgent(int agent);

  /** A contact arrives during the population, while no agent is available. */
  void queue(int contact, int productAndLanguage);

  /** The agent becomes available (and may take a waiting contact at once). */
  void ready(int agent);

  /** Every agent is available: whatever a target does at its start (seed 004's dispatcher). */
  default void started() {}

  /** A contact arrives in the steady stream. */
  void arrive(int contact, int productAndLanguage);

  /** The agent serving {@code contact} completes it (no wrap-up) and becomes available. */
  void complete(int contact);

  /** The agent accepts the offer of {@code contact}; a no-op for targets that assign directly. */
  void accept(int contact);

  /** Moves the virtual clock forward (firing the workflow timeouts that fall due). */
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
