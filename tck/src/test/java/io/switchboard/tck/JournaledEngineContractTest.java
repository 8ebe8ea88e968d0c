package io.switchboard.tck;

import io.switchboard.queue.spi.Journal;

/**
 * The in-memory engine writing to the reference {@link MemoryJournal}, against the whole contract
 * including restarts: every contract test also exercises the engine's journaling, and restarts test
 * recovery without a disk.
 */
class JournaledEngineContractTest extends JournaledEngineContract<MemoryJournal> {

  @Override
  protected MemoryJournal newStore() {
    return new MemoryJournal();
  }

  @Override
  protected Journal openJournal(MemoryJournal store) {
    return store;
  }
}
