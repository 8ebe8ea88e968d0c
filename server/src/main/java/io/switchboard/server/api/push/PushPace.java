package io.switchboard.server.api.push;

import io.switchboard.server.dispatch.Pace;
import io.switchboard.time.Clock;
import io.switchboard.time.Scheduler;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * When a push subscription may start its next delivery: a free concurrency slot, a token of its
 * bucket (rate per second, burst), and no hold (after a failure, the backoff of its consecutive
 * failures; after a 429 or 503, the answer's {@code Retry-After}). The dispatcher asks before each
 * receive ({@link #permits}), so a message is leased only when its delivery can start at once.
 *
 * <p>Adaptive: a throttling answer halves the concurrency and the rate it allows itself (never
 * below 1 and never below 1/s, or the limit when lower); each delivered batch raises them one step
 * (concurrency + 1, rate + a tenth of the limit) up to the configured limits. Every time is the
 * engine clock's: with a {@code ManualClock} a waiting subscription moves only when the test
 * advances it.
 */
final class PushPace implements Pace, AutoCloseable {

  private final Clock clock;
  private final int batchSize;
  private final int concurrencyLimit;
  private final OptionalDouble rateLimit;
  private final int burst;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final Scheduler.Repeating timer;
  private final boolean several;
  private final java.util.Optional<PushKeys> keys;

  private int concurrency;
  private double rate;
  private double tokens;
  private long refilledAt;
  private int inFlight;
  private long holdUntil;
  private int failuresInARow;
  private long waitingUntil;

  /** The deliveries the last {@link #permits} granted, which its receive may not all use. */
  private int granting;

  /**
   * @param several whether one receive may take the messages of several deliveries at once (each
   *     its own batch): not in a grouped queue, where a batch is a group's head and what follows
   *     it, nor with a batch window, which fills one batch
   * @param keys the subscription's limits per key, if it has any
   */
  PushPace(Clock clock, PushSpec spec, boolean several, java.util.Optional<PushKeys> keys) {
    this.several = several;
    this.keys = keys;
    this.clock = clock;
    this.batchSize = spec.batchSize();
    this.concurrencyLimit = spec.maxConcurrent();
    this.rateLimit = spec.maxPerSecond();
    this.burst = spec.burst();
    this.concurrency = concurrencyLimit;
    this.rate = rateLimit.orElse(0);
    this.tokens = burst;
    this.refilledAt = clock.millis();
    this.timer = clock.timers("switchboard-push-pace", this::wake);
  }

  /** Wakes the waiters: after every advance of a manual clock, at the due time on the system's. */
  private long wake() {
    lock.lock();
    try {
      changed.signalAll();
      return Long.MAX_VALUE;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public int permits(int wanted) throws InterruptedException {
    lock.lock();
    try {
      while (true) {
        long now = clock.millis();
        refill(now);
        long due = now;
        if (now < holdUntil) {
          due = holdUntil;
        } else if (rateLimit.isPresent() && tokens < 1) {
          due = now + (long) Math.ceil((1 - tokens) * 1000 / rate);
        }
        if (due <= now && inFlight < concurrency) {
          // as many deliveries as a slot and a token are free for, and the messages wanted fill
          int slots = 1;
          if (several) {
            slots = Math.min(concurrency - inFlight, Math.ceilDiv(Math.max(wanted, 1), batchSize));
            if (rateLimit.isPresent()) {
              slots = Math.min(slots, Math.max(1, (int) Math.floor(tokens)));
            }
          }
          if (rateLimit.isPresent()) {
            tokens -= slots;
          }
          inFlight += slots;
          granting = slots;
          return Math.min(wanted, slots * batchSize);
        }
        if (due > now) {
          timer.wakeBy(due);
          long nanos = clock.parkNanosUntil(due);
          waitingUntil = due;
          try {
            changed.awaitNanos(nanos == Long.MAX_VALUE ? TimeUnit.HOURS.toNanos(1) : nanos);
          } finally {
            waitingUntil = 0;
          }
        } else {
          changed.await(); // a slot comes back with a delivery's end
        }
      }
    } finally {
      lock.unlock();
    }
  }

  private void refill(long now) {
    if (rateLimit.isPresent() && now > refilledAt) {
      tokens = Math.min(burst, tokens + (now - refilledAt) * rate / 1000.0);
    }
    refilledAt = Math.max(refilledAt, now);
  }

  /**
   * A receive gives back the slots and tokens of the deliveries it did not fill (all of them when
   * it took nothing); one that took nothing also drops what the keys' filter reserved.
   */
  @Override
  public void taken(int granted, int got) {
    if (got == 0) {
      keys.ifPresent(k -> k.taken(java.util.List.of(), clock.millis()));
    }
    lock.lock();
    try {
      int unused = granting - Math.ceilDiv(got, batchSize);
      granting = 0;
      if (unused <= 0) {
        return;
      }
      inFlight -= unused;
      if (rateLimit.isPresent()) {
        tokens = Math.min(burst, tokens + unused);
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** While a key is at its limit, a receive waits briefly and looks again ({@link PushKeys}). */
  @Override
  public java.time.Duration receiveWait() {
    if (keys.isPresent() && keys.get().anyAtLimit(clock.millis())) {
      return java.time.Duration.ofMillis(PushKeys.BLOCKED_WAIT_MILLIS);
    }
    return Pace.super.receiveWait();
  }

  /** A delivery ended with a 2xx: its slot is free, the limits recover a step. */
  void delivered() {
    lock.lock();
    try {
      inFlight--;
      failuresInARow = 0;
      concurrency = Math.min(concurrencyLimit, concurrency + 1);
      if (rateLimit.isPresent()) {
        rate = Math.min(rateLimit.getAsDouble(), rate + rateLimit.getAsDouble() / 10);
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * A delivery was throttled (429, 503): its slot is free, nothing starts before {@code
   * untilMillis} ({@code Retry-After}; without one, the backoff of the failures in a row, which
   * {@code backoff} gives for their count), and the limits halve.
   */
  void throttled(java.util.OptionalLong untilMillis, java.util.function.IntToLongFunction backoff) {
    lock.lock();
    try {
      inFlight--;
      failuresInARow++;
      long until =
          untilMillis.isPresent()
              ? untilMillis.getAsLong()
              : clock.millis() + backoff.applyAsLong(failuresInARow);
      holdUntil = Math.max(holdUntil, until);
      concurrency = Math.max(1, concurrency / 2);
      if (rateLimit.isPresent()) {
        double floor = Math.min(1, rateLimit.getAsDouble());
        rate = Math.max(floor, rate / 2);
        tokens = Math.min(tokens, 0);
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * A delivery failed (timeout, connection, another status): its slot is free and nothing starts
   * before the backoff of the failures in a row, which {@code backoff} gives for their count.
   */
  void failed(java.util.function.IntToLongFunction backoff) {
    lock.lock();
    try {
      inFlight--;
      failuresInARow++;
      holdUntil = Math.max(holdUntil, clock.millis() + backoff.applyAsLong(failuresInARow));
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Whether a receive waits for a time still to come (a token, or the end of a hold): for tests,
   * which advance the clock only once what the present instant allows has happened.
   */
  boolean waitingForTime() {
    lock.lock();
    try {
      return waitingUntil > clock.millis();
    } finally {
      lock.unlock();
    }
  }

  int inFlight() {
    lock.lock();
    try {
      return inFlight;
    } finally {
      lock.unlock();
    }
  }

  int concurrency() {
    lock.lock();
    try {
      return concurrency;
    } finally {
      lock.unlock();
    }
  }

  OptionalDouble rate() {
    lock.lock();
    try {
      return rateLimit.isPresent() ? OptionalDouble.of(rate) : OptionalDouble.empty();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    timer.close();
  }
}
