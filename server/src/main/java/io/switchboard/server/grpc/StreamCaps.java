package io.switchboard.server.grpc;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** The streams each client holds open ({@code grpc-max-streams-per-key}). */
final class StreamCaps {

  private final int perKey;
  private final ConcurrentHashMap<String, AtomicInteger> open = new ConcurrentHashMap<>();

  StreamCaps(int perKey) {
    this.perKey = perKey;
  }

  /**
   * Takes a place for one more stream of {@code client}.
   *
   * @throws io.grpc.StatusRuntimeException {@code RESOURCE_EXHAUSTED} when it holds its maximum
   */
  Slot open(String client) {
    AtomicInteger count = open.computeIfAbsent(client, k -> new AtomicInteger());
    if (count.incrementAndGet() > perKey) {
      count.decrementAndGet();
      throw Statuses.error(
          io.grpc.Status.Code.RESOURCE_EXHAUSTED,
          "TOO_MANY_STREAMS",
          "this client holds its maximum of "
              + perKey
              + " open gRPC streams (grpc-max-streams-per-key); close one, or retry later");
    }
    return new Slot(count);
  }

  /** One stream's place; closing it (once, however often called) gives the place back. */
  static final class Slot implements AutoCloseable {
    private final AtomicInteger count;
    private final AtomicBoolean closed = new AtomicBoolean();

    private Slot(AtomicInteger count) {
      this.count = count;
    }

    @Override
    public void close() {
      if (closed.compareAndSet(false, true)) {
        count.decrementAndGet();
      }
    }
  }
}
