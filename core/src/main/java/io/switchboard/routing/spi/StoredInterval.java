package io.switchboard.routing.spi;

import io.switchboard.routing.IntervalFigures;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One statistics interval of one scope as stored: the workspace ({@code name} empty), a task queue
 * or an agent. {@code start} is the interval's start in epoch milliseconds, or {@link #TOTAL} for
 * the figures since the router began.
 */
public record StoredInterval(long start, Scope scope, String name, IntervalFigures figures) {

  /** The start of the cumulative figures. */
  public static final long TOTAL = Long.MIN_VALUE;

  /**
   * The length of an interval: every interval starts at a multiple of it (epoch milliseconds), so a
   * store finds one scope's intervals in a range by key, one per start.
   */
  public static final long LENGTH_MILLIS = 15 * 60 * 1000L;

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
    return startKey(start) + "/" + scope.name().charAt(0) + "/" + name;
  }

  /**
   * The start part of a key: 16 hex digits (so, for starts from the epoch on, keys sort by start
   * and every start's keys sort before {@code total}'s), or {@code total}.
   */
  public static String startKey(long start) {
    return start == TOTAL ? "total" : String.format("%016x", start);
  }

  /**
   * The keys of one scope's intervals that start in {@code [from, to)}, oldest first: one per
   * multiple of {@link #LENGTH_MILLIS} in the range.
   */
  public static List<String> keys(long from, long to, Scope scope, String name) {
    List<String> out = new ArrayList<>();
    long first = Math.floorDiv(from + LENGTH_MILLIS - 1, LENGTH_MILLIS) * LENGTH_MILLIS;
    for (long start = first; start < to; start += LENGTH_MILLIS) {
      out.add(key(start, scope, name));
    }
    return out;
  }
}
