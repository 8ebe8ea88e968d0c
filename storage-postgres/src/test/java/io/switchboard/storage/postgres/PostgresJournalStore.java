package io.switchboard.storage.postgres;

import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.tck.routing.JournalStore;
import io.switchboard.time.ManualClock;
import javax.sql.DataSource;

/**
 * The router's tables in the shared test database, emptied ({@link RouterTables#fresh()}), for the
 * routing contracts. Every journal opened on it is opened by a server taking the lease over from
 * the previous one (server-0, server-1, server-0...), so that every restart is a handover.
 */
final class PostgresJournalStore implements JournalStore {

  private final DataSource ds = RouterTables.fresh();
  private int opens;

  @Override
  public synchronized RouterJournal open(ManualClock clock) {
    String holder = "server-" + (opens++ % 2);
    return PostgresRouterJournal.open(ds, RouterTables.takeLease(ds, holder));
  }
}
