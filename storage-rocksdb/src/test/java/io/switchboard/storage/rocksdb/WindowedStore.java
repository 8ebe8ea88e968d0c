package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.queue.Message;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueLimits;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.time.ManualClock;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What the hot window tests share (docs/design.md, "A backlog bigger than memory"): an engine with
 * a small window over a RocksDB store that keeps the order index, on a manual clock; restarts;
 * bodies numbered and padded to one size, so the heap's queued bytes count its messages; a drain in
 * receive order; and, when the test ends, the index checked against the messages.
 */
final class WindowedStore {

  static final String PAD = "x".repeat(1000);

  /** What one message of {@link #body} weighs in the heap's queued bytes. */
  static final long ONE = QueueLimits.charge(4 + PAD.length());

  private final Path dir;
  private final int window;
  final ManualClock clock;
  private QueueEngine engine;

  WindowedStore(Path dir, int window, ManualClock clock) {
    this.dir = dir;
    this.window = window;
    this.clock = clock;
  }

  QueueEngine open() {
    engine =
        QueueEngine.builder()
            .clock(clock)
            .journal(RocksJournal.open(dir, Durability.none(), OrderIndex.MAINTAINED))
            .hotWindow(window)
            .build();
    return engine;
  }

  QueueEngine engine() {
    return engine;
  }

  QueueEngine restart() {
    engine.close();
    return open();
  }

  /** Closes the engine, then checks that the order index agrees with the messages. */
  void close() {
    if (engine == null) {
      return;
    }
    engine.close();
    engine = null;
    RocksJournal check = RocksJournal.open(dir, Durability.none(), OrderIndex.MAINTAINED);
    try {
      assertEquals(List.of(), check.checkOrders());
    } finally {
      check.close();
    }
  }

  static String body(int i) {
    return String.format("%04d", i) + PAD;
  }

  static int number(Message m) {
    return Integer.parseInt(m.body().substring(0, 4));
  }

  /** Messages of {@link #body}'s size the heap holds for {@code queue}. */
  long heldInHeap(String queue) {
    return engine.queuedBytes(queue) / ONE;
  }

  /** Receives and acks everything, in batches of {@code batch}; the numbers in receive order. */
  List<Integer> drain(String queue, int batch) {
    List<Integer> out = new ArrayList<>();
    while (true) {
      List<Message> got = engine.receive(queue, ReceiveRequest.max(batch));
      if (got.isEmpty()) {
        return out;
      }
      for (Message m : got) {
        out.add(number(m));
        engine.ack(queue, m.receipt().orElseThrow());
      }
    }
  }
}
