package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.DeadLetterPolicy;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.time.ManualClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery rebuilds exactly the engine's state: the same random operations run on a durable engine
 * that is closed and reopened every few dozen steps, and on an in-memory engine that never
 * restarts, each on its own manual clock advanced in step. After every step both must show the same
 * messages, in the same order, in the same states, with the same receive counts and priorities;
 * receipts issued before a restart must still work after it. Seeded; rerun one with {@code
 * -Dswitchboard.restart.seed=N}.
 */
class RestartDifferentialTest {

  private static final String[] QUEUES = {"fifo", "lifo", "g.fifo", "dlq", "g-dlq.fifo"};

  @TempDir Path root;

  /** How the durable engine's stores are opened: with the order index or without. */
  private OrderIndex orderIndex = OrderIndex.NONE;

  /** The durable engine's hot window (the builder's default unless a test sets it). */
  private int hotWindow = QueueEngine.DEFAULT_HOT_WINDOW;

  /** Messages sent to the grouped queue's 3 groups before the random work begins. */
  private int groupedBacklog;

  /**
   * Messages sent to the standard queue {@code fifo} with a group id (3 tenants: a fair queue)
   * before the random work begins; when above zero, every message it is sent has a group id.
   */
  private int fairBacklog;

  /** The durable engine's journal as last opened. */
  private @Nullable RocksJournal journal;

  /**
   * The same work on stores that keep the order index (docs/design.md, "A backlog bigger than
   * memory"): the engine must behave the same, and before each restart the index must hold exactly
   * the keys of the stored messages.
   */
  @Test
  void randomOperationsWithRestarts_withTheOrderIndex_keepTheIndexInStep() throws Exception {
    orderIndex = OrderIndex.MAINTAINED;
    for (long seed = 1; seed <= 6; seed++) {
      try {
        run(seed, 300);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("seed " + seed + " with the order index failed", e);
      }
    }
  }

  /**
   * The same work with a hot window of 4 messages per queue (docs/design.md, "A backlog bigger than
   * memory"): the standard queues keep most of their messages in the store only, and the engine
   * must still match the one that keeps everything in memory, restarts included.
   */
  @Test
  void randomOperationsWithRestarts_withATinyHotWindow_matchAnEngineThatNeverRestarted()
      throws Exception {
    orderIndex = OrderIndex.MAINTAINED;
    hotWindow = 4;
    for (long seed = 1; seed <= 6; seed++) {
      try {
        run(seed, 300);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("seed " + seed + " with a hot window of 4 failed", e);
      }
    }
  }

  /**
   * The same work on a grouped queue that starts with a backlog of 60 messages in its 3 groups and
   * a hot window of 4 (docs/design.md, "Message groups over cold messages"): each group keeps at
   * most 8 messages in the heap and reads on in the store, restarts included, and must match the
   * engine that keeps everything in memory.
   */
  @Test
  void randomOperationsWithRestarts_onAColdGroupedBacklog_matchAnEngineThatNeverRestarted()
      throws Exception {
    orderIndex = OrderIndex.MAINTAINED;
    hotWindow = 4;
    groupedBacklog = 60;
    for (long seed = 1; seed <= 6; seed++) {
      try {
        run(seed, 300);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("seed " + seed + " with a cold grouped backlog failed", e);
      }
    }
  }

  /**
   * The same work with the standard queue {@code fifo} a fair queue (every message it is sent has
   * one of 3 group ids) that starts with 60 messages and a hot window of 4 (docs/design.md, "Fair
   * queues over cold messages"): each tenant's line is read from the store as its messages in the
   * heap run out, restarts, releases, priority changes, dead letters and expiry included, and must
   * match the in-memory engine.
   */
  @Test
  void randomOperationsWithRestarts_onAColdFairBacklog_matchAnEngineThatNeverRestarted()
      throws Exception {
    orderIndex = OrderIndex.MAINTAINED;
    hotWindow = 4;
    fairBacklog = 60;
    for (long seed = 1; seed <= 6; seed++) {
      try {
        run(seed, 300);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("seed " + seed + " with a cold fair backlog failed", e);
      }
    }
  }

  @Test
  void randomOperationsWithRestarts_matchAnEngineThatNeverRestarted() throws Exception {
    String one = System.getProperty("switchboard.restart.seed");
    long first = one == null ? 1 : Long.parseLong(one);
    long last = one == null ? 12 : first;
    for (long seed = first; seed <= last; seed++) {
      try {
        run(seed, 300);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(
            "seed " + seed + " failed; rerun with -Dswitchboard.restart.seed=" + seed, e);
      }
    }
  }

  private void run(long seed, int steps) throws Exception {
    Random rnd = new Random(seed);
    Path dir = Files.createTempDirectory(root, "seed" + seed);
    ManualClock durableClock = ManualClock.create();
    ManualClock memoryClock = ManualClock.create();
    QueueEngine durable = open(dir, durableClock);
    try (QueueEngine memory = QueueEngine.builder().clock(memoryClock).build()) {
      for (QueueEngine e : List.of(durable, memory)) {
        create(e);
        for (int i = 0; i < groupedBacklog; i++) {
          e.send(
              "g.fifo",
              NewMessage.builder("g.fifo#backlog" + i)
                  .groupId("g" + i % 3)
                  .priority(i % 2)
                  .build());
        }
        for (int i = 0; i < fairBacklog; i++) {
          e.send("fifo", NewMessage.builder("fifo#backlog" + i).groupId("t" + i % 3).build());
        }
      }
      // receipts by body, per engine
      Map<String, String> durableReceipts = new HashMap<>();
      Map<String, String> memoryReceipts = new HashMap<>();
      int sent = 0;
      for (int step = 0; step < steps; step++) {
        String q = QUEUES[rnd.nextInt(3)];
        int op = rnd.nextInt(10);
        long advance = op == 9 ? 1 + rnd.nextInt(20_000) : 0;
        if (op <= 2) {
          NewMessage m = message(rnd, q, sent++, fairBacklog > 0);
          both(durable, memory, e -> e.send(q, m).sequence() >= 0);
        } else if (op <= 4) {
          ReceiveRequest r =
              ReceiveRequest.builder()
                  .maxMessages(1 + rnd.nextInt(4))
                  .visibilityTimeout(Duration.ofSeconds(rnd.nextInt(10)))
                  .build();
          List<Message> a = durable.receive(q, r);
          List<Message> b = memory.receive(q, r);
          assertEquals(bodies(b), bodies(a), "receive at step " + step);
          a.forEach(m -> durableReceipts.put(m.body(), m.receipt().orElseThrow()));
          b.forEach(m -> memoryReceipts.put(m.body(), m.receipt().orElseThrow()));
        } else if (op <= 6 && !memoryReceipts.isEmpty()) {
          List<String> held = new ArrayList<>(memoryReceipts.keySet());
          String body = held.get(rnd.nextInt(held.size()));
          String queue = queueOf(body);
          int kind = rnd.nextInt(3);
          ErrorCode ca = leaseOp(durable, queue, durableReceipts.get(body), kind);
          ErrorCode cb = leaseOp(memory, queue, memoryReceipts.get(body), kind);
          assertEquals(cb, ca, "lease operation " + kind + " on " + body + " at step " + step);
        } else if (op == 7) {
          Message head = firstAvailable(memory, q);
          if (head != null) {
            int priority = rnd.nextInt(3);
            both(
                durable,
                memory,
                e -> {
                  Message h = byBody(e, q, head.body());
                  e.update(q, h.id(), MessageUpdate.priority(priority));
                  return true;
                });
          }
        } else if (op == 8 && !q.endsWith(".fifo")) {
          Message head = firstAvailable(memory, q);
          if (head != null) {
            both(durable, memory, e -> e.touch(q, byBody(e, q, head.body()).id()) != null);
          }
        }
        if (advance > 0) {
          durableClock.advanceMillis(advance);
          memoryClock.advanceMillis(advance);
        }
        if (rnd.nextInt(40) == 0) {
          List<String> index = Objects.requireNonNull(journal).checkOrders();
          durable.close();
          assertEquals(List.of(), index, "the order index before the restart at step " + step);
          durable = open(dir, durableClock);
        }
        for (String queue : QUEUES) {
          assertEquals(
              contents(memory, queue), contents(durable, queue), queue + " after step " + step);
        }
      }
    } finally {
      durable.close();
    }
  }

  private QueueEngine open(Path dir, ManualClock clock) {
    journal = RocksJournal.open(dir, Durability.none(), orderIndex);
    return QueueEngine.builder().clock(clock).journal(journal).hotWindow(hotWindow).build();
  }

  private static void create(QueueEngine e) {
    e.createQueue("dlq", QueueConfig.defaults());
    e.createQueue("g-dlq.fifo", QueueConfig.builder().contentBasedDeduplication(true).build());
    QueueConfig.Builder base =
        QueueConfig.builder()
            .visibilityTimeout(Duration.ofSeconds(5))
            .retention(Duration.ofMinutes(5));
    e.createQueue("fifo", base.deadLetter(DeadLetterPolicy.of("dlq", 3)).build());
    e.createQueue("lifo", base.order(Order.LIFO).build());
    e.createQueue(
        "g.fifo",
        QueueConfig.builder()
            .contentBasedDeduplication(true)
            .visibilityTimeout(Duration.ofSeconds(5))
            .deadLetter("g-dlq.fifo", 2)
            .build());
  }

  private static NewMessage message(Random rnd, String queue, int n, boolean fair) {
    NewMessage.Builder b =
        NewMessage.builder(queue + "#" + n)
            .priority(rnd.nextInt(3))
            .attribute("k", "v" + rnd.nextInt(3));
    if (queue.endsWith(".fifo")) {
      b.groupId("g" + rnd.nextInt(3));
    } else {
      if (fair && queue.equals("fifo")) {
        b.groupId("t" + rnd.nextInt(3)); // a tenant of the fair queue
      }
      if (rnd.nextInt(5) == 0) {
        b.delay(Duration.ofSeconds(1 + rnd.nextInt(10)));
      }
    }
    if (rnd.nextInt(6) == 0) {
      b.timeToLive(Duration.ofSeconds(1 + rnd.nextInt(60)));
    }
    return b.build();
  }

  private static String queueOf(String body) {
    return body.substring(0, body.indexOf('#'));
  }

  /** 0 ack, 1 release, 2 extend by 3 s; the error code, or null. */
  private static ErrorCode leaseOp(QueueEngine e, String queue, String receipt, int kind) {
    try {
      switch (kind) {
        case 0 -> e.ack(queue, receipt);
        case 1 -> e.release(queue, receipt);
        default -> e.extend(queue, receipt, Duration.ofSeconds(3));
      }
      return null;
    } catch (QueueException x) {
      return x.code();
    }
  }

  private static void both(QueueEngine a, QueueEngine b, Function<QueueEngine, Boolean> op) {
    ErrorCode ca = codeOf(a, op);
    ErrorCode cb = codeOf(b, op);
    assertEquals(cb, ca);
  }

  private static ErrorCode codeOf(QueueEngine e, Function<QueueEngine, Boolean> op) {
    try {
      op.apply(e);
      return null;
    } catch (QueueException x) {
      return x.code();
    }
  }

  private static Message firstAvailable(QueueEngine e, String queue) {
    List<Message> items = e.browse(queue, BrowseRequest.first(1)).items();
    return items.isEmpty() ? null : items.get(0);
  }

  private static Message byBody(QueueEngine e, String queue, String body) {
    for (Message m : e.browse(queue, BrowseRequest.first(1000).includeInvisible(true)).items()) {
      if (m.body().equals(body)) {
        return m;
      }
    }
    throw new AssertionError(body + " not in " + queue);
  }

  private static List<String> contents(QueueEngine e, String queue) {
    List<String> out = new ArrayList<>();
    for (Message m : e.browse(queue, BrowseRequest.first(1000).includeInvisible(true)).items()) {
      out.add(
          m.body()
              + " "
              + m.state()
              + " p"
              + m.priority()
              + " r"
              + m.receiveCount()
              + " v"
              + m.visibleAt().map(t -> Long.toString(t.toEpochMilli())).orElse("-")
              + " e"
              + m.expiresAt().toEpochMilli());
    }
    return out;
  }

  private static List<String> bodies(List<Message> messages) {
    return messages.stream().map(Message::body).toList();
  }
}
