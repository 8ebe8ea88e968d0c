package io.switchboard.storage.rocksdb;

import java.time.Duration;

/**
 * How durable an acknowledged send is.
 *
 * <ul>
 *   <li>{@code SYNC} (default): acknowledged after its write is on disk (fsync). Concurrent sends
 *       share one fsync (group commit).
 *   <li>{@code BATCH}: acknowledged after its write reached the operating system; the log is synced
 *       at least every {@code interval}. A power loss may lose up to that interval of acknowledged
 *       sends; a crash of the process alone loses nothing.
 *   <li>{@code NONE}: like {@code BATCH} with no periodic sync; the operating system writes when it
 *       likes. For tests and throwaway data.
 * </ul>
 *
 * Receives, acks and returns are written in order without waiting, whatever the mode; in {@code
 * SYNC} mode they reach the disk at the next send's fsync or within {@link #ASYNC_SYNC_INTERVAL}.
 */
public record Durability(Mode mode, Duration interval) {

  /** How often writes that nobody waits for are synced, in SYNC mode. */
  public static final Duration ASYNC_SYNC_INTERVAL = Duration.ofMillis(100);

  /** The three modes. */
  public enum Mode {
    SYNC,
    BATCH,
    NONE
  }

  public Durability {
    if (mode == Mode.BATCH
        && (interval.isNegative() || interval.isZero() || interval.toSeconds() > 60)) {
      throw new IllegalArgumentException(
          "batch durability needs an interval of 1 ms..60 s, got " + interval.toMillis() + " ms");
    }
  }

  public static Durability sync() {
    return new Durability(Mode.SYNC, ASYNC_SYNC_INTERVAL);
  }

  public static Durability batch(Duration interval) {
    return new Durability(Mode.BATCH, interval);
  }

  public static Durability none() {
    return new Durability(Mode.NONE, Duration.ZERO);
  }

  /** Parses {@code sync}, {@code batch}, {@code batch:50ms}, {@code none}. */
  public static Durability parse(String text) {
    String t = text.trim().toLowerCase(java.util.Locale.ROOT);
    if (t.equals("sync")) {
      return sync();
    }
    if (t.equals("none")) {
      return none();
    }
    if (t.equals("batch")) {
      return batch(Duration.ofMillis(10));
    }
    if (t.startsWith("batch:") && t.endsWith("ms")) {
      try {
        return batch(Duration.ofMillis(Long.parseLong(t.substring(6, t.length() - 2))));
      } catch (NumberFormatException e) {
        // fall through
      }
    }
    throw new IllegalArgumentException(
        "durability must be sync, batch, batch:<N>ms or none, got '" + text + "'");
  }
}
