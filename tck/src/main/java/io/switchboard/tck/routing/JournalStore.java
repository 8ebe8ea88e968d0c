package io.switchboard.tck.routing;

import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.time.ManualClock;
import org.opentest4j.TestAbortedException;

/**
 * One empty router store under test, as a store module makes it for the routing contracts: a
 * directory, a database's emptied tables, a {@link io.switchboard.routing.spi.MemoryRouterJournal}.
 */
public interface JournalStore {

  /**
   * A journal on this store, for a router to start on: the first, and again after each restart,
   * once the router and the previous journal are closed. A store several servers share opens it as
   * another server taking over would (under a new lease), so that every restart is a handover.
   * {@code clock} is the routers' clock.
   */
  RouterJournal open(ManualClock clock);

  /**
   * Stops {@code journal} (its router closed) as a crash would: the appends nobody waited for that
   * were made at the clock's current time are lost, those made earlier count as written. Returns
   * how many batches were lost. The default skips the crash scenarios, for a store that cannot
   * simulate one.
   */
  default int crash(RouterJournal journal) {
    throw new TestAbortedException("this store does not simulate a crash");
  }
}
