package io.switchboard.routing.spi;

import java.util.List;

/**
 * What of a router must survive a restart, as an ordered stream of {@link RouterEntry}s: agents,
 * contacts (live and the bounded history of finished ones), reservations, and the router's
 * counters. The router appends the entries of one call as one batch under its lock, so the stream's
 * order is the order of the changes, and a journal must apply each batch whole and in order: any
 * prefix of batches is a state the router was once in between two calls.
 *
 * <p>Timers are not stored as such: each is implied by the state it acts on (a pending
 * reservation's expiry, a waiting contact's next escalation step and maximum wait, a wrap-up's end)
 * and rebuilt from it on recovery.
 *
 * <p>Two ways to append: {@link #append} for changes the router makes by itself (timers firing) and
 * {@link #appendDurable} for changes a caller is told about (every mutating call): its ticket
 * completes when the entries, and every entry appended before them, are as durable as the journal
 * promises. See {@code docs/decisions.md} (2026-11-22, routing durability).
 */
public interface RouterJournal extends AutoCloseable {

  /**
   * The stored state, read once when the router starts. Of the statistics intervals, only the
   * cumulative figures and the latest interval (the one open when the router stopped): closed
   * intervals stay in the store and are read by {@link #intervals}.
   */
  RouterSnapshot load();

  /**
   * The stored statistics intervals of one scope ({@code name} empty for the workspace) that start
   * in {@code [from, to)}, oldest first; never the cumulative figures. Sees every batch appended
   * before the call (it waits for them to be written). A journal that keeps no intervals (one that
   * discards what it is given) finds none.
   *
   * @throws io.switchboard.routing.RoutingException {@code UNAVAILABLE} when the store cannot be
   *     read
   */
  default List<StoredInterval> intervals(
      long from, long to, StoredInterval.Scope scope, String name) {
    return List.of();
  }

  /** Appends one call's changes without waiting. */
  void append(List<RouterEntry> entries);

  /** Appends one call's changes; the ticket completes when they are durable. */
  Ticket appendDurable(List<RouterEntry> entries);

  /** Writes what was appended and releases the store. */
  @Override
  void close();

  /** Completion of a durable append. */
  interface Ticket {
    /**
     * Blocks until the entries are durable; throws {@code RoutingException} with code {@code
     * UNAVAILABLE} when they could not be stored.
     */
    void await();
  }

  /** A ticket already complete, for journals with nothing to wait for. */
  Ticket DONE = () -> {};
}
