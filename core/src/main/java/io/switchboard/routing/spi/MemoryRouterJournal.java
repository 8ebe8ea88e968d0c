package io.switchboard.routing.spi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

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

  /** By start ({@link StoredInterval#TOTAL} first), then key. */
  private final TreeMap<Long, Map<String, StoredInterval>> intervals = new TreeMap<>();

  private RouterCounters counters = RouterCounters.zero();
  private long batches;

  @Override
  public synchronized RouterSnapshot load() {
    List<StoredInterval> open =
        new ArrayList<>(intervals.getOrDefault(StoredInterval.TOTAL, Map.of()).values());
    Map.Entry<Long, Map<String, StoredInterval>> latest = intervals.lastEntry();
    if (latest != null && latest.getKey() != StoredInterval.TOTAL) {
      open.addAll(latest.getValue().values());
    }
    return new RouterSnapshot(
        counters,
        List.copyOf(agents.values()),
        List.copyOf(contacts.values()),
        List.copyOf(reservations.values()),
        open);
  }

  @Override
  public synchronized List<StoredInterval> intervals(
      long from, long to, StoredInterval.Scope scope, String name) {
    List<StoredInterval> out = new ArrayList<>();
    for (String key : StoredInterval.keys(from, to, scope, name)) {
      StoredInterval i = byKey(key);
      if (i != null) {
        out.add(i);
      }
    }
    return out;
  }

  private @Nullable StoredInterval byKey(String key) {
    long start = Long.parseLong(key, 0, 16, 16);
    Map<String, StoredInterval> in = intervals.get(start);
    return in == null ? null : in.get(key);
  }

  /** Every stored interval, the closed ones too, for tests that look at what is stored. */
  public synchronized List<StoredInterval> storedIntervals() {
    List<StoredInterval> out = new ArrayList<>();
    intervals.values().forEach(in -> out.addAll(in.values()));
    return out;
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
        case RouterEntry.IntervalPut p ->
            intervals
                .computeIfAbsent(p.interval().start(), k -> new LinkedHashMap<>())
                .put(p.interval().key(), p.interval());
        case RouterEntry.IntervalsDropped d ->
            intervals.subMap(StoredInterval.TOTAL, false, d.before(), false).clear();
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
