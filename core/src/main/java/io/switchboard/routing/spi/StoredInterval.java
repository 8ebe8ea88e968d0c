package io.switchboard.routing.spi;

import io.switchboard.routing.IntervalFigures;
import java.util.Objects;

/**
 * One statistics interval of one scope as stored: the workspace ({@code name} empty), a task queue
 * or an agent. {@code start} is the interval's start in epoch milliseconds, or {@link #TOTAL} for
 * the figures since the router began.
 */
public record StoredInterval(long start, Scope scope, String name, IntervalFigures figures) {

  /** The start of the cumulative figures. */
  public static final long TOTAL = Long.MIN_VALUE;

  /** What the figures are of. */
  public enum Scope {
    WORKSPACE,
    QUEUE,
    AGENT
  }

  public StoredInterval {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(figures, "figures");
  }

  /**
   * The interval's key in a store: the start (16 hex digits, or {@code total}), the scope's letter
   * and the name, so keys of one start sort together and by start.
   */
  public String key() {
    return key(start, scope, name);
  }

  public static String key(long start, Scope scope, String name) {
    String at = start == TOTAL ? "total" : String.format("%016x", start);
    return at + "/" + scope.name().charAt(0) + "/" + name;
  }
}
