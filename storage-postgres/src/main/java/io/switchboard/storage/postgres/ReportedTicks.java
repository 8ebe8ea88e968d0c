package io.switchboard.storage.postgres;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Runs a background tick (housekeeping) so that a failure is neither lost nor fatal when it need
 * not be: whatever it throws is kept as the engine's {@link #problem()} (which {@code /health}
 * reports) and logged once when the ticks start failing, and cleared by the next tick that
 * succeeds. An exception (the database away, a statement refused) leaves the thread running to try
 * again; an {@link Error} is rethrown, so that the thread dies as it must, noticed by whoever
 * watches the threads (the server marks {@code /health} unhealthy and logs it).
 */
final class ReportedTicks implements Runnable {

  private static final System.Logger LOG = System.getLogger(ReportedTicks.class.getName());

  private final String what;
  private final Runnable tick;
  private volatile @Nullable String problem;

  /**
   * @param what what the ticks do, for the problem and the log ({@code "housekeeping"})
   */
  ReportedTicks(String what, Runnable tick) {
    this.what = what;
    this.tick = tick;
  }

  @Override
  public void run() {
    try {
      tick.run();
      if (problem != null) {
        problem = null;
        LOG.log(System.Logger.Level.INFO, what + " works again");
      }
    } catch (Throwable t) {
      String was = problem;
      // the reason /health shows names the failure's kind only; the log has its message
      problem = what + " failing: " + t.getClass().getSimpleName() + "; see the log";
      if (was == null || t instanceof Error) {
        LOG.log(System.Logger.Level.WARNING, what + " failing: " + t.getMessage(), t);
      }
      if (t instanceof Error e) {
        throw e;
      }
    }
  }

  /** What went wrong in the last tick, or empty when it succeeded. */
  Optional<String> problem() {
    return Optional.ofNullable(problem);
  }
}
