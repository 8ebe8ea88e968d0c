package io.switchboard.bench.filter;

import java.util.Arrays;

/** Summary of one series of latency samples, in nanoseconds. */
record Latencies(int samples, long p50, long p99, double mean, long min, long max) {

  static Latencies of(long[] nanos) {
    if (nanos.length == 0) {
      throw new IllegalArgumentException("no samples");
    }
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    double sum = 0;
    for (long n : sorted) {
      sum += n;
    }
    return new Latencies(
        sorted.length,
        percentile(sorted, 0.50),
        percentile(sorted, 0.99),
        sum / sorted.length,
        sorted[0],
        sorted[sorted.length - 1]);
  }

  /**
   * Nearest-rank percentile: the smallest sample with at least {@code q} of samples at or below.
   */
  static long percentile(long[] sorted, double q) {
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }
}
