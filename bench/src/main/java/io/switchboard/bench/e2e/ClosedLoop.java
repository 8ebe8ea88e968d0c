package io.switchboard.bench.e2e;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * A closed-loop load: {@code threads} platform threads each repeat one cycle (a request or a few)
 * as fast as answers come, first for a warm-up, then for a measured window. Shared by the
 * end-to-end entry points so their figures mean the same thing.
 *
 * <p>Every thread runs one cycle before the clock starts (to open its connection). The rate counts
 * the cycles that start inside the window and divides by the time from the window's start to the
 * last such cycle's end; p50 / p99 are nearest-rank over every such cycle's duration.
 */
public final class ClosedLoop {

  private ClosedLoop() {}

  /** One thread's repeated unit of work. */
  @FunctionalInterface
  public interface Cycle {
    /** Runs once; returns {messages moved, requests made, failed entries or requests}. */
    long[] run() throws Exception;
  }

  /** A source of per-thread cycles. */
  @FunctionalInterface
  public interface CycleFactory {
    Cycle forThread(int index);
  }

  /**
   * One measurement. For a ceiling a cycle is one request and {@code messages} is 0.
   *
   * @param system what was driven (an engine, a server)
   * @param workload the cycle's name
   */
  public record Result(
      String system,
      String workload,
      int threads,
      long cycles,
      long requests,
      long messages,
      long failures,
      double seconds,
      long p50Nanos,
      long p99Nanos) {

    public double requestsPerSecond() {
      return requests / seconds;
    }

    public double messagesPerSecond() {
      return messages / seconds;
    }
  }

  private static final class Worker {
    long[] latencies = new long[1 << 12];
    int count;
    long messages;
    long requests;
    long failures;
    long lastEnd;

    void record(long nanos, long[] outcome, long end) {
      if (count == latencies.length) {
        latencies = Arrays.copyOf(latencies, count * 2);
      }
      latencies[count++] = nanos;
      messages += outcome[0];
      requests += outcome[1];
      failures += outcome[2];
      lastEnd = end;
    }
  }

  /** Runs the load and returns its figures; fails if any cycle threw. */
  public static Result measure(
      Duration warmup,
      Duration measure,
      String system,
      String workload,
      int threads,
      CycleFactory f)
      throws InterruptedException {
    return measure(warmup, measure, system, workload, threads, f, () -> {});
  }

  /**
   * The same, running {@code atWindowStart} on the calling thread when the measured window opens
   * (e.g. to read CPU counters; the caller reads them again after this returns).
   */
  public static Result measure(
      Duration warmup,
      Duration measure,
      String system,
      String workload,
      int threads,
      CycleFactory f,
      Runnable atWindowStart)
      throws InterruptedException {
    Worker[] workers = new Worker[threads];
    Thread[] running = new Thread[threads];
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long[] window = new long[2];
    for (int i = 0; i < threads; i++) {
      Worker w = new Worker();
      workers[i] = w;
      Cycle cycle = f.forThread(i);
      running[i] =
          Thread.ofPlatform()
              .name("load-" + workload + "-" + i)
              .start(
                  () -> {
                    try {
                      cycle.run(); // opens this thread's connection before the clock starts
                      ready.countDown();
                      go.await();
                      long measureFrom = window[0];
                      long until = window[1];
                      while (true) {
                        long start = System.nanoTime();
                        // On a loaded machine a cycle can outlast the whole window: each thread
                        // goes on until it has measured one cycle, so a slow run reports slow
                        // figures instead of none.
                        if (start >= until && w.count > 0) {
                          return;
                        }
                        long[] outcome = cycle.run();
                        long end = System.nanoTime();
                        if (start >= measureFrom) {
                          w.record(end - start, outcome, end);
                        }
                      }
                    } catch (Throwable t) {
                      failure.compareAndSet(null, t);
                      ready.countDown();
                    }
                  });
    }
    while (!ready.await(100, TimeUnit.MILLISECONDS)) {
      if (failure.get() != null) {
        break;
      }
    }
    long now = System.nanoTime();
    window[0] = now + warmup.toNanos();
    window[1] = window[0] + measure.toNanos();
    go.countDown();
    for (long left = window[0] - System.nanoTime();
        left > 0;
        left = window[0] - System.nanoTime()) {
      LockSupport.parkNanos(left);
    }
    atWindowStart.run();
    for (Thread t : running) {
      t.join();
    }
    if (failure.get() != null) {
      throw new IllegalStateException(
          workload + " on " + system + " with " + threads + " threads failed", failure.get());
    }
    long cycles = 0;
    long messages = 0;
    long requests = 0;
    long failures = 0;
    long lastEnd = window[0];
    int samples = 0;
    for (Worker w : workers) {
      samples += w.count;
    }
    long[] all = new long[samples];
    int at = 0;
    for (Worker w : workers) {
      System.arraycopy(w.latencies, 0, all, at, w.count);
      at += w.count;
      cycles += w.count;
      messages += w.messages;
      requests += w.requests;
      failures += w.failures;
      lastEnd = Math.max(lastEnd, w.lastEnd);
    }
    if (samples == 0) {
      throw new IllegalStateException(
          workload + " on " + system + ": no cycle completed in the measurement window");
    }
    Arrays.sort(all);
    double seconds = (lastEnd - window[0]) / 1e9;
    return new Result(
        system,
        workload,
        threads,
        cycles,
        requests,
        messages,
        failures,
        seconds,
        percentile(all, 0.50),
        percentile(all, 0.99));
  }

  /** Nearest rank: the smallest sample with at least {@code q} of all samples at or below it. */
  public static long percentile(long[] sorted, double q) {
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  /** {@code 850 µs} or {@code 12.3 ms}. */
  public static String micros(long nanos) {
    return nanos >= 10_000_000
        ? String.format(java.util.Locale.ROOT, "%.1f ms", nanos / 1e6)
        : String.format(java.util.Locale.ROOT, "%.0f µs", nanos / 1e3);
  }
}
