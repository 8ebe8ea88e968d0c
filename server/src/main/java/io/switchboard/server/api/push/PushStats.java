package io.switchboard.server.api.push;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/** What one push subscription did since this server started running it; safe from any thread. */
final class PushStats {

  /** Why a message's delivery failed, counted in {@code failures}. */
  enum Cause {
    /** 429 or 503: the endpoint asked to slow down. */
    THROTTLED,
    /** No answer within the timeout. */
    TIMEOUT,
    /** The connection failed. */
    CONNECTION,
    /** Another status than 2xx, 429 or 503. */
    STATUS,
    /** The URL's host resolved to an address the server does not send to, or did not resolve. */
    REFUSED,
    /**
     * Listed in a 2xx answer's {@code batchItemFailures}, or behind such a message in its group.
     */
    ITEM;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  final AtomicLong deliveries = new AtomicLong();

  /** Deliveries between their request and the settling of their messages. */
  final java.util.concurrent.atomic.AtomicInteger sending =
      new java.util.concurrent.atomic.AtomicInteger();

  final AtomicLong delivered = new AtomicLong();
  final AtomicLong deadLettered = new AtomicLong();
  final AtomicLongArray failures = new AtomicLongArray(Cause.values().length);
  final AtomicLong latencyMillisSum = new AtomicLong();
  final AtomicLong latencyCount = new AtomicLong();
  final AtomicLong latencyMillisMax = new AtomicLong();

  void failed(Cause cause, int messages) {
    failures.addAndGet(cause.ordinal(), messages);
  }

  long failures(Cause cause) {
    return failures.get(cause.ordinal());
  }

  void latency(long millis) {
    latencyMillisSum.addAndGet(millis);
    latencyCount.incrementAndGet();
    latencyMillisMax.accumulateAndGet(millis, Math::max);
  }
}
