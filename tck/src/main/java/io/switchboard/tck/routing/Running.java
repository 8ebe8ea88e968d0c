package io.switchboard.tck.routing;

import io.switchboard.routing.Router;
import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.time.ManualClock;
import java.util.function.Supplier;

/**
 * A router on a journal of one store, restarted on demand: the router and its journal are closed, a
 * new journal is opened on the store (by a new server, for a shared store) and a new router built
 * on it with the same settings.
 */
final class Running implements AutoCloseable {

  private final JournalStore store;
  private final ManualClock clock;
  private final Supplier<Router.Builder> settings;
  private RouterJournal journal;
  private Router router;
  private boolean closed;

  /** Starts a router built by {@code settings} (its clock {@code clock}) on {@code store}. */
  Running(JournalStore store, ManualClock clock, Supplier<Router.Builder> settings) {
    this.store = store;
    this.clock = clock;
    this.settings = settings;
    this.journal = store.open(clock);
    this.router = settings.get().journal(journal).build();
  }

  Router router() {
    return router;
  }

  RouterJournal journal() {
    return journal;
  }

  /** Closes router and journal and starts again on the same store. */
  Router restart() {
    router.close();
    journal.close();
    return reopen();
  }

  /** Closes the router and crashes the journal ({@link JournalStore#crash}), then starts again. */
  int crashAndRestart() {
    router.close();
    int lost = store.crash(journal);
    reopen();
    return lost;
  }

  private Router reopen() {
    journal = store.open(clock);
    router = settings.get().journal(journal).build();
    return router;
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      router.close();
      journal.close();
    }
  }
}
