package io.switchboard.tck.routing;

/**
 * The reference journal against the journal contract: the contract's own check (a store that loads
 * what the reference holds) and the in-memory router's durable calls from many threads.
 */
class MemoryRouterJournalContractTest extends RouterJournalContract {

  @Override
  protected JournalStore newStore() {
    return new MemoryJournalStore();
  }
}
