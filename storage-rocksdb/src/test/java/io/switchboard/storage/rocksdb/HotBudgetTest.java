package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueLimits;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.time.ManualClock;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hot window's budget (docs/design.md, "The hot window's budget"): the windows of all queues
 * share a quarter of {@code maxQueuedBytes}, so a backlog spread over many queues goes to the store
 * instead of filling the heap until sends are refused with {@code SERVER_FULL}. Each queue here
 * could keep 10,000 messages hot (the server's default window); the backlog is three times the
 * server's limit of queued bytes.
 */
class HotBudgetTest {

  private static final int QUEUES = 20;
  private static final int PER_QUEUE = 500;
  private static final String PAD = "x".repeat(1000);

  /** The server's limit of queued bytes: 4 MiB, so the hot windows share 1 MiB. */
  private static final long MAX_QUEUED = 4L << 20;

  private static final long ONE_MESSAGE = QueueLimits.charge(body(0).length());

  @TempDir Path dir;

  private final ManualClock clock = ManualClock.create();
  private QueueEngine engine;

  private QueueEngine open() {
    engine =
        QueueEngine.builder()
            .clock(clock)
            .journal(RocksJournal.open(dir, Durability.none(), OrderIndex.MAINTAINED))
            .hotWindow(10_000)
            .limits(
                new QueueLimits(
                    MAX_QUEUED,
                    MAX_QUEUED,
                    QueueLimits.NONE.defaultMaxDepth(),
                    QueueLimits.SQS_IN_FLIGHT,
                    QueueLimits.SQS_IN_FLIGHT_FIFO,
                    1L << 20))
            .build();
    for (int q = 0; q < QUEUES; q++) {
      engine.ensureQueue(queue(q), QueueConfig.defaults());
    }
    return engine;
  }

  @AfterEach
  void close() {
    if (engine != null) {
      engine.close();
    }
  }

  private static String queue(int q) {
    return "q" + q;
  }

  private static String body(int i) {
    return String.format("%05d", i) + PAD;
  }

  private void sendTen(int q, int from) {
    List<NewMessage> batch = new ArrayList<>();
    for (int i = from; i < from + 10; i++) {
      batch.add(NewMessage.of(body(i)));
    }
    engine.sendBatch(queue(q), batch);
  }

  /**
   * What the heap may hold: the windows' twice the budget (a quarter of the limit), plus what each
   * queue keeps whatever its share (a page of ten), plus one queue's growth before it settles.
   */
  private static long heapBound() {
    return 2 * (MAX_QUEUED / 4) + QUEUES * 10 * ONE_MESSAGE + 2 * (MAX_QUEUED / 4) / QUEUES;
  }

  @Test
  void queuesFilledOneAfterAnother_keepTheirBacklogOnDisk_andTheHeapWithinTheBudget() {
    open();
    long most = 0;
    for (int q = 0; q < QUEUES; q++) {
      // the first queue has the whole budget to itself; each later one takes its share from it
      for (int i = 0; i < PER_QUEUE; i += 10) {
        sendTen(q, i);
        most = Math.max(most, engine.queuedBytes());
      }
    }
    assertEverythingQueued_andReceivedInOrder(most);
  }

  @Test
  void queuesFilledSideBySide_keepTheirBacklogOnDisk_andTheHeapWithinTheBudget() {
    open();
    long most = 0;
    for (int i = 0; i < PER_QUEUE; i += 10) {
      for (int q = 0; q < QUEUES; q++) {
        sendTen(q, i);
        most = Math.max(most, engine.queuedBytes());
      }
    }
    assertEverythingQueued_andReceivedInOrder(most);
  }

  private void assertEverythingQueued_andReceivedInOrder(long most) {
    long backlog = (long) QUEUES * PER_QUEUE * ONE_MESSAGE;
    assertTrue(backlog > 3 * MAX_QUEUED, "the backlog is far beyond the heap limit: " + backlog);
    assertTrue(
        most <= heapBound(),
        "the heap kept at most " + heapBound() + " bytes of messages, kept " + most);
    for (int q = 0; q < QUEUES; q++) {
      assertEquals(PER_QUEUE, engine.stats(queue(q)).available(), queue(q));
    }
    for (int q = 0; q < QUEUES; q++) {
      assertEquals(IntStream.range(0, PER_QUEUE).boxed().toList(), drain(queue(q)), queue(q));
    }
    assertEquals(0, engine.queuedBytes());
  }

  private List<Integer> drain(String queue) {
    List<Integer> out = new ArrayList<>();
    while (true) {
      List<Message> got = engine.receive(queue, ReceiveRequest.max(10));
      if (got.isEmpty()) {
        return out;
      }
      for (Message m : got) {
        out.add(Integer.parseInt(m.body().substring(0, 5)));
        engine.ack(queue, m.receipt().orElseThrow());
      }
    }
  }
}
