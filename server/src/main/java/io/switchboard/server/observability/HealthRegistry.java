package io.switchboard.server.observability;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the server's {@code /health} reports on besides starting and stopping: components report
 * into it, either as a check asked at each {@code /health} (the durable store: {@code "store cannot
 * write"} while its writes fail) or as a failure that lasts until the server restarts (a background
 * thread that died). Any problem makes {@code /health} answer 503 {@code
 * {"status":"unhealthy","reason":...}}.
 *
 * <p>{@link #installThreadDeathHandler} makes every uncaught exception in the process logged, and a
 * thread of Switchboard's own (named {@code switchboard-*}: the journal writer, the housekeeping
 * and routing timers, the PostgreSQL listeners) that dies marks every running server unhealthy, so
 * that no background thread dies unnoticed. Core stays free of this: its threads just die, and this
 * handler notices.
 */
public final class HealthRegistry {

  private static final Logger LOG = LoggerFactory.getLogger(HealthRegistry.class);
  private static final Set<HealthRegistry> LIVE = ConcurrentHashMap.newKeySet();
  private static final Object INSTALL = new Object();
  private static boolean installed;

  private record Check(String component, Supplier<Optional<String>> problem) {}

  private final List<Check> checks = new CopyOnWriteArrayList<>();
  private final Map<String, String> failures = new ConcurrentHashMap<>();

  /** Adds a check asked at each {@code /health}: a reason while the component has a problem. */
  public void check(String component, Supplier<Optional<String>> problem) {
    checks.add(new Check(component, problem));
  }

  /** Marks the server unhealthy until it restarts. */
  public void fail(String component, String reason) {
    failures.putIfAbsent(component, reason);
  }

  /** Every problem now, failures first, one reason each. */
  public List<String> problems() {
    List<String> all = new ArrayList<>(failures.values());
    for (Check c : checks) {
      try {
        c.problem().get().ifPresent(all::add);
      } catch (RuntimeException e) {
        all.add(c.component() + " cannot report its health");
      }
    }
    return all;
  }

  /** The first problem, if any: the reason {@code /health} gives. */
  public Optional<String> problem() {
    List<String> all = problems();
    return all.isEmpty() ? Optional.empty() : Optional.of(all.get(0));
  }

  /** Lets the thread-death handler report into this registry (while its server runs). */
  public void watchThreads() {
    installThreadDeathHandler();
    LIVE.add(this);
  }

  public void unwatchThreads() {
    LIVE.remove(this);
  }

  /**
   * Installs (once per process) the default uncaught-exception handler: logs the death of any
   * thread, and for a {@code switchboard-*} thread marks every running server unhealthy. A handler
   * that was installed before is still called after.
   */
  static void installThreadDeathHandler() {
    synchronized (INSTALL) {
      if (installed) {
        return;
      }
      installed = true;
      Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
      Thread.setDefaultUncaughtExceptionHandler(
          (thread, error) -> {
            threadDied(thread, error);
            if (previous != null) {
              previous.uncaughtException(thread, error);
            }
          });
    }
  }

  static void threadDied(Thread thread, Throwable error) {
    boolean ours = thread.getName().startsWith("switchboard-");
    LOG.atError()
        .addKeyValue("thread", thread.getName())
        .setCause(error)
        .log(ours ? "a background thread died; the server is unhealthy" : "a thread died");
    if (ours) {
      for (HealthRegistry r : LIVE) {
        r.fail("thread " + thread.getName(), "background thread " + thread.getName() + " died");
      }
    }
  }
}
