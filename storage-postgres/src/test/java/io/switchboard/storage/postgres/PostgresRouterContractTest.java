package io.switchboard.storage.postgres;

import io.switchboard.tck.routing.JournalStore;
import io.switchboard.tck.routing.RouterContract;

/**
 * The router on the PostgreSQL store against the routing contract, every restart a handover between
 * two servers (router and journal closed, the lease taken at a new epoch by the other server, a new
 * journal loaded).
 */
class PostgresRouterContractTest extends RouterContract {

  @Override
  protected JournalStore newStore() {
    return new PostgresJournalStore();
  }

  /** Every call a database round trip: fewer random calls than in memory. */
  @Override
  protected int randomSteps() {
    return 1_200;
  }
}
