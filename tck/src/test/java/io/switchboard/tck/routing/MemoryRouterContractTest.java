package io.switchboard.tck.routing;

/**
 * The in-memory router on the reference journal ({@link MemoryJournalStore}) against the routing
 * contract, crashes included.
 */
class MemoryRouterContractTest extends RouterContract {

  @Override
  protected JournalStore newStore() {
    return new MemoryJournalStore();
  }
}
