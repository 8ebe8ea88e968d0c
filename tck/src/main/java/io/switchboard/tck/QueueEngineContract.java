package io.switchboard.tck;

import io.switchboard.queue.QueueEngine;
import io.switchboard.time.ManualClock;
import org.junit.jupiter.api.Nested;
import org.opentest4j.TestAbortedException;

/**
 * The whole contract every {@link QueueEngine} must pass. An engine's test module extends this
 * class and says how to make an engine; JUnit then runs every feature contract (one nested class
 * each) against it:
 *
 * <pre>{@code
 * class RocksDbEngineContractTest extends QueueEngineContract {
 *   protected QueueEngine newEngine(ManualClock clock) { ... }
 *   protected QueueEngine newEngine(ManualClock clock, int maxQueues) { ... }
 *   protected QueueEngine restart(QueueEngine engine) { ... } // durable engines only
 * }
 * }</pre>
 *
 * <p>Every test gets a fresh engine on a fresh {@link ManualClock} and closes it afterwards.
 */
public abstract class QueueEngineContract {

  /** A fresh, empty engine whose every timer reads {@code clock}. */
  protected abstract QueueEngine newEngine(ManualClock clock);

  /** Like {@link #newEngine(ManualClock)}, holding at most {@code maxQueues} queues. */
  protected abstract QueueEngine newEngine(ManualClock clock, int maxQueues);

  /**
   * Closes {@code engine} and opens it again on the same storage. The default skips restart
   * scenarios, for engines that keep nothing.
   */
  protected QueueEngine restart(QueueEngine engine) {
    throw new TestAbortedException("this engine keeps nothing across a restart");
  }

  /**
   * A second engine open at the same time on {@code engine}'s storage. The default skips the
   * scenarios that need one, for engines whose storage belongs to one engine.
   */
  protected QueueEngine peer(QueueEngine engine) {
    throw new TestAbortedException("this engine does not share its storage with another");
  }

  private final EngineSource source =
      new EngineSource() {
        @Override
        public QueueEngine newEngine(ManualClock clock) {
          return QueueEngineContract.this.newEngine(clock);
        }

        @Override
        public QueueEngine newEngine(ManualClock clock, int maxQueues) {
          return QueueEngineContract.this.newEngine(clock, maxQueues);
        }

        @Override
        public QueueEngine restart(QueueEngine engine) {
          return QueueEngineContract.this.restart(engine);
        }

        @Override
        public QueueEngine peer(QueueEngine engine) {
          return QueueEngineContract.this.peer(engine);
        }
      };

  @Nested
  class QueueLifecycle extends QueueLifecycleContract {
    @Override
    protected EngineSource engines() {
      return source;
    }
  }

  @Nested
  class Send extends SendContract {
    @Override
    protected EngineSource engines() {
      return source;
    }
  }

  @Nested
  class Receive extends ReceiveContract {
    @Override
    protected EngineSource engines() {
      return source;
    }
  }

  @Nested
  class Lease extends LeaseContract {
    @Override
    protected EngineSource engines() {
      return source;
    }
  }

  @Nested
  class AnyLeaseExtend extends AnyLeaseExtendContract {
    @Override
    protected EngineSource engines() {
      return source;
    }
  }

  @Nested
  class QueuedMessage extends QueuedMessageContract {
    @Override
    protected EngineSource engines() {
      return source;
    }
  }

  @Nested
  class BrowseAndStats extends BrowseAndStatsContract {
    @Override
    protected EngineSource engines() {
      return source;
    }
  }

  @Nested
  class DeadLetter extends DeadLetterContract {
    @Override
    protected EngineSource engines() {
      return source;
    }
  }

  @Nested
  class MoveChecks extends MoveCheckContract {
    @Override
    protected EngineSource engines() {
      return source;
    }
  }

  @Nested
  class MessageEvents extends MessageEventContract {
    @Override
    protected EngineSource engines() {
      return source;
    }
  }

  @Nested
  class GroupedQueue extends GroupedQueueContract {
    @Override
    protected EngineSource engines() {
      return source;
    }
  }

  @Nested
  class FairQueue extends FairQueueContract {
    @Override
    protected EngineSource engines() {
      return source;
    }
  }

  @Nested
  class KeyLimit extends KeyLimitContract {
    @Override
    protected EngineSource engines() {
      return source;
    }
  }

  @Nested
  class SeedScenario extends SeedScenarioContract {
    @Override
    protected EngineSource engines() {
      return source;
    }
  }

  @Nested
  class Restart extends RestartContract {
    @Override
    protected EngineSource engines() {
      return source;
    }
  }

  @Nested
  class ConcurrentUpdate extends ConcurrentUpdateContract {
    @Override
    protected EngineSource engines() {
      return source;
    }
  }

  @Nested
  class FilteredReceive extends FilteredReceiveContract {
    @Override
    protected EngineSource engines() {
      return source;
    }
  }

  @Nested
  class SystemRecordsStore extends SystemRecordsContract {
    @Override
    protected EngineSource engines() {
      return source;
    }
  }
}
