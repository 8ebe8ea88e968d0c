package io.switchboard.tck.routing;

import io.switchboard.routing.spi.MemoryRouterJournal;
import io.switchboard.routing.spi.RouterEntry;
import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.routing.spi.RouterSnapshot;
import io.switchboard.routing.spi.StoredInterval;
import io.switchboard.time.ManualClock;
import java.util.ArrayList;
import java.util.List;

/**
 * The reference store: one {@link MemoryRouterJournal} that outlives the routers built on it, each
 * router's journal a {@link CrashingJournal} in front of it, so that a restart can also be a crash.
 */
final class MemoryJournalStore implements JournalStore {

  private final MemoryRouterJournal stored = new MemoryRouterJournal();

  @Override
  public RouterJournal open(ManualClock clock) {
    return new CrashingJournal(stored, clock);
  }

  @Override
  public int crash(RouterJournal journal) {
    return ((CrashingJournal) journal).crash();
  }

  /**
   * A {@link MemoryRouterJournal} behind a buffer: appends that nobody waits for stay in the buffer
   * until the next durable append, as in a store's write queue, and a crash loses those made at the
   * current clock time (a real store syncs them within a short interval; those made earlier count
   * as synced). Timers fired again after the crash then fire at the time they first did.
   */
  private static final class CrashingJournal implements RouterJournal {
    private final MemoryRouterJournal stored;
    private final ManualClock clock;
    private final List<List<RouterEntry>> buffered = new ArrayList<>();
    private final List<Long> bufferedAt = new ArrayList<>();

    CrashingJournal(MemoryRouterJournal stored, ManualClock clock) {
      this.stored = stored;
      this.clock = clock;
    }

    @Override
    public RouterSnapshot load() {
      return stored.load();
    }

    /** As a store's: waits for (here: writes) every batch appended before, then reads. */
    @Override
    public synchronized List<StoredInterval> intervals(
        long from, long to, StoredInterval.Scope scope, String name) {
      close();
      return stored.intervals(from, to, scope, name);
    }

    @Override
    public synchronized void append(List<RouterEntry> entries) {
      buffered.add(entries);
      bufferedAt.add(clock.millis());
    }

    @Override
    public synchronized Ticket appendDurable(List<RouterEntry> entries) {
      close();
      stored.append(entries);
      return DONE;
    }

    /** Keeps what was buffered before the current time, loses the rest; returns how many. */
    synchronized int crash() {
      int lost = 0;
      for (int i = 0; i < buffered.size(); i++) {
        if (bufferedAt.get(i) < clock.millis()) {
          stored.append(buffered.get(i));
        } else {
          lost++;
        }
      }
      buffered.clear();
      bufferedAt.clear();
      return lost;
    }

    @Override
    public synchronized void close() {
      buffered.forEach(stored::append);
      buffered.clear();
      bufferedAt.clear();
    }
  }
}
