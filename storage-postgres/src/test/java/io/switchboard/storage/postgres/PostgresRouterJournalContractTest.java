package io.switchboard.storage.postgres;

import io.switchboard.tck.routing.JournalStore;
import io.switchboard.tck.routing.RouterJournalContract;

/** The PostgreSQL router store against the journal contract. */
class PostgresRouterJournalContractTest extends RouterJournalContract {

  @Override
  protected JournalStore newStore() {
    return new PostgresJournalStore();
  }
}
