package io.switchboard.routing;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Outcomes of contacts (answered with its wait, abandoned, timed out) in a sliding window on the
 * router's clock, per requirement group and overall. Each window is a deque of outcomes in time
 * order with running sums, trimmed from the front as time passes: {@code O(1)} amortized per
 * outcome, and memory proportional to the outcomes within the window.
 */
final class LiveStats {

  enum Outcome {
    ANSWERED,
    ABANDONED,
    TIMED_OUT
  }

  private record Entry(long at, Outcome outcome, long waitMillis, boolean withinThreshold) {}

  /** One sliding window. */
  static final class Window {
    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private long answered;
    private long abandoned;
    private long timedOut;
    private long answeredWithin;
    private long answerWaitSum;

    private void add(Entry e, int sign) {
      switch (e.outcome) {
        case ANSWERED -> {
          answered += sign;
          answerWaitSum += sign * e.waitMillis;
          answeredWithin += e.withinThreshold ? sign : 0;
        }
        case ABANDONED -> abandoned += sign;
        case TIMED_OUT -> timedOut += sign;
      }
    }

    void record(Entry e) {
      entries.addLast(e);
      add(e, 1);
    }

    void trim(long oldestKept) {
      while (!entries.isEmpty() && entries.peekFirst().at < oldestKept) {
        add(entries.pollFirst(), -1);
      }
    }

    boolean isEmpty() {
      return entries.isEmpty();
    }

    ContactStats stats(int waiting, long longestWaitMillis) {
      long total = answered + abandoned + timedOut;
      return new ContactStats(
          waiting,
          Duration.ofMillis(longestWaitMillis),
          answered,
          abandoned,
          timedOut,
          total == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) answeredWithin / total),
          answered == 0
              ? Optional.empty()
              : Optional.of(Duration.ofMillis(Math.round((double) answerWaitSum / answered))),
          total == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) abandoned / total));
    }
  }

  private final long thresholdMillis;
  private final long windowMillis;
  private final Window overall = new Window();
  private final Map<String, Window> byGroup = new HashMap<>();

  LiveStats(long thresholdMillis, long windowMillis) {
    this.thresholdMillis = thresholdMillis;
    this.windowMillis = windowMillis;
  }

  void record(String groupKey, long now, Outcome outcome, long waitMillis) {
    Entry e = new Entry(now, outcome, waitMillis, waitMillis <= thresholdMillis);
    Window group = byGroup.computeIfAbsent(groupKey, k -> new Window());
    overall.record(e);
    group.record(e);
    overall.trim(now - windowMillis);
    group.trim(now - windowMillis);
  }

  /** Drops outcomes older than the window; forgets groups with none left. */
  void trim(long now) {
    long oldestKept = now - windowMillis;
    overall.trim(oldestKept);
    byGroup
        .values()
        .removeIf(
            w -> {
              w.trim(oldestKept);
              return w.isEmpty();
            });
  }

  Window overall() {
    return overall;
  }

  Map<String, Window> byGroup() {
    return byGroup;
  }
}
