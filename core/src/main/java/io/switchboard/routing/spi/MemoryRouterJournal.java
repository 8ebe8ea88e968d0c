package io.switchboard.routing.spi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A journal that keeps the stored state in memory: the reference implementation for tests. One
 * instance outlives the routers built on it, so a test "restarts" by closing a router and building
 * another on the same journal. Entries appended without waiting count as stored at once, so a test
 * that wants to lose them simulates the loss itself.
 */
public final class MemoryRouterJournal implements RouterJournal {

  private final Map<String, StoredAgent> agents = new LinkedHashMap<>();
  private final Map<String, StoredContact> contacts = new LinkedHashMap<>();
  private final Map<String, StoredReservation> reservations = new LinkedHashMap<>();
  private final Map<String, StoredInterval> intervals = new LinkedHashMap<>();
  private RouterCounters counters = RouterCounters.zero();
  private long batches;

  @Override
  public synchronized RouterSnapshot load() {
    return new RouterSnapshot(
        counters,
        List.copyOf(agents.values()),
        List.copyOf(contacts.values()),
        List.copyOf(reservations.values()),
        List.copyOf(intervals.values()));
  }

  @Override
  public synchronized void append(List<RouterEntry> entries) {
    for (RouterEntry entry : entries) {
      switch (entry) {
        case RouterEntry.AgentPut p -> agents.put(p.agent().id(), p.agent());
        case RouterEntry.AgentDelete d -> agents.remove(d.id());
        case RouterEntry.ContactPut p -> contacts.put(p.contact().id(), p.contact());
        case RouterEntry.ContactDelete d -> contacts.remove(d.id());
        case RouterEntry.ReservationPut p ->
            reservations.put(p.reservation().id(), p.reservation());
        case RouterEntry.ReservationDelete d -> reservations.remove(d.id());
        case RouterEntry.IntervalPut p -> intervals.put(p.interval().key(), p.interval());
        case RouterEntry.IntervalDelete d -> intervals.remove(d.key());
        case RouterEntry.CountersPut c -> counters = c.counters();
      }
    }
    batches++;
  }

  @Override
  public Ticket appendDurable(List<RouterEntry> entries) {
    append(entries);
    return DONE;
  }

  /** How many batches were appended: one per call that changed something. */
  public synchronized long batches() {
    return batches;
  }

  /** The stored contacts, for tests that look at what is stored. */
  public synchronized List<StoredContact> contacts() {
    return new ArrayList<>(contacts.values());
  }

  @Override
  public void close() {}
}
