package io.switchboard.tck;

import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.spi.Journal;
import io.switchboard.time.ManualClock;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The whole contract, restarts included, for an engine that writes to a {@link Journal}: a store
 * module says how to make an empty store and how to open a journal on it; restarting closes the
 * engine and builds a new one on the same store, clock and limits.
 *
 * @param <S> what identifies a store (a directory, an in-memory journal)
 */
public abstract class JournaledEngineContract<S> extends QueueEngineContract {

  private record Opened<S>(S store, ManualClock clock, int maxQueues) {}

  private final Map<QueueEngine, Opened<S>> opened = new ConcurrentHashMap<>();

  /** A new, empty store. */
  protected abstract S newStore();

  /** A journal on {@code store}; called again on the same store after every restart. */
  protected abstract Journal openJournal(S store);

  @Override
  protected final QueueEngine newEngine(ManualClock clock) {
    return newEngine(clock, 10_000);
  }

  @Override
  protected final QueueEngine newEngine(ManualClock clock, int maxQueues) {
    return open(new Opened<>(newStore(), clock, maxQueues));
  }

  @Override
  protected final QueueEngine restart(QueueEngine engine) {
    Opened<S> o = Objects.requireNonNull(opened.remove(engine), "an engine this source opened");
    engine.close();
    return open(o);
  }

  /**
   * Engine settings a store module adds to every engine it opens (e.g. a tiny {@code hotWindow}, so
   * that every path crosses between the heap and the store); none by default.
   */
  protected QueueEngine.Builder configure(QueueEngine.Builder builder) {
    return builder;
  }

  private QueueEngine open(Opened<S> o) {
    QueueEngine e =
        configure(
                QueueEngine.builder()
                    .clock(o.clock())
                    .maxQueues(o.maxQueues())
                    .journal(openJournal(o.store())))
            .build();
    opened.put(e, o);
    return e;
  }
}
