package io.switchboard.storage.rocksdb;

import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Page;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.SendResult;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * The child side of {@link CrashRecoveryTest}: opens the durable engine in sync mode, reports what
 * it recovered, then sends, receives and acks on a standard and a grouped queue until it is killed.
 *
 * <p>Lines on stdout, each written and flushed only after the call it reports returned, except "a",
 * which is flushed before the ack is called:
 *
 * <pre>
 * M queue id receiveCount group body   a message found at start (after recovery)
 * READY                                 recovery done, the workload starts
 * S queue id group body                 a send acknowledged
 * R queue id receiveCount group body    a message received
 * a queue id                            an ack about to be called (its delete may be durable
 *                                       before "A" is written)
 * A queue id                            an ack returned
 * E text                                an unexpected failure
 * </pre>
 *
 * Bodies name their place in send order: {@code c<cycle>-<producer or group>-<index>}.
 *
 * <p>Arguments: data directory, seed, cycle.
 */
final class CrashWorkload {

  static final String STANDARD = "crash-standard";
  static final String GROUPED = "crash-grouped.fifo";
  static final QueueConfig CONFIG =
      QueueConfig.builder().visibilityTimeout(Duration.ofSeconds(2)).build();
  static final int GROUPS = 6;
  private static final int STANDARD_PRODUCERS = 3;
  private static final int GROUP_PRODUCERS = 3;
  private static final int CONSUMERS_PER_QUEUE = 2;

  /** One received message in this many is left unacked, so its lease runs out (redelivery). */
  private static final int SKIP_ACK_ONE_IN = 10;

  private static final Object OUT_LOCK = new Object();
  private static final BufferedWriter OUT =
      new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);

  private CrashWorkload() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    long seed = Long.parseLong(args[1]);
    int cycle = Integer.parseInt(args[2]);
    OrderIndex index = args.length > 3 ? OrderIndex.valueOf(args[3]) : OrderIndex.NONE;
    // with the index, a window of 4: most of the backlog is cold, so every recovery after a kill
    // counts it from the index's counts record and reads only the window's first page
    QueueEngine engine =
        QueueEngine.builder()
            .journal(RocksJournal.open(dir, Durability.sync(), index))
            .hotWindow(4)
            .build();
    engine.createQueue(STANDARD, CONFIG);
    engine.createQueue(GROUPED, CONFIG);
    dump(engine, STANDARD);
    dump(engine, GROUPED);
    report("READY");
    List<Thread> threads = new ArrayList<>();
    for (int p = 0; p < STANDARD_PRODUCERS; p++) {
      String name = "c" + cycle + "-p" + p;
      threads.add(start(() -> produce(engine, STANDARD, List.of(name), null)));
    }
    for (int p = 0; p < GROUP_PRODUCERS; p++) {
      List<String> groups = new ArrayList<>();
      for (int g = p; g < GROUPS; g += GROUP_PRODUCERS) {
        groups.add("g" + g);
      }
      threads.add(start(() -> produce(engine, GROUPED, groups, "c" + cycle)));
    }
    for (int c = 0; c < CONSUMERS_PER_QUEUE; c++) {
      for (String queue : List.of(STANDARD, GROUPED)) {
        SplittableRandom random = new SplittableRandom(seed * 31 + threads.size());
        threads.add(start(() -> consume(engine, queue, random)));
      }
    }
    // The parent kills us long before this; it only bounds a child whose parent died.
    Thread.sleep(Duration.ofSeconds(120));
    System.exit(2);
  }

  private static Thread start(Runnable body) {
    return Thread.ofPlatform()
        .daemon()
        .start(
            () -> {
              try {
                body.run();
              } catch (RuntimeException e) {
                report("E " + e);
              }
            });
  }

  /**
   * Sends to each of {@code keys} in turn, one message per call. A standard producer's key is its
   * body prefix; a grouped producer's keys are its groups, each in order of its own index.
   */
  private static void produce(
      QueueEngine engine, String queue, List<String> keys, String cyclePrefix) {
    long[] next = new long[keys.size()];
    while (true) {
      for (int k = 0; k < keys.size(); k++) {
        String key = keys.get(k);
        String body =
            cyclePrefix == null ? key + "-" + next[k]++ : cyclePrefix + "-" + key + "-" + next[k]++;
        NewMessage.Builder message = NewMessage.builder(body);
        if (cyclePrefix != null) {
          message.groupId(key).deduplicationId(body);
        }
        SendResult r = engine.send(queue, message.build());
        report("S " + queue + " " + r.id() + " " + (cyclePrefix == null ? "-" : key) + " " + body);
      }
    }
  }

  private static void consume(QueueEngine engine, String queue, SplittableRandom random) {
    ReceiveRequest request =
        ReceiveRequest.builder().maxMessages(4).waitTime(Duration.ofMillis(200)).build();
    while (true) {
      // Like a real ordered consumer: once it leaves a group's message unacked, it leaves the rest
      // of that group's messages in the batch too, so a group never has a gap.
      java.util.Set<String> skippedGroups = new java.util.HashSet<>();
      for (Message m : engine.receive(queue, request)) {
        report("R " + queue + " " + m.id() + " " + m.receiveCount() + " " + describe(m));
        String group = m.groupId().orElse(null);
        if ((group != null && skippedGroups.contains(group))
            || random.nextInt(SKIP_ACK_ONE_IN) == 0) {
          if (group != null) {
            skippedGroups.add(group);
          }
          continue;
        }
        try {
          report("a " + queue + " " + m.id()); // the ack may be durable before "A" is reported
          engine.ack(queue, m.receipt().orElseThrow());
          report("A " + queue + " " + m.id());
        } catch (QueueException e) {
          // the lease ran out and someone else received it: a stale receipt, nothing acked
        }
      }
    }
  }

  private static void dump(QueueEngine engine, String queue) {
    BrowseRequest request = BrowseRequest.first(BrowseRequest.MAX_LIMIT).includeInvisible(true);
    while (true) {
      Page page = engine.browse(queue, request);
      for (Message m : page.items()) {
        report("M " + queue + " " + m.id() + " " + m.receiveCount() + " " + describe(m));
      }
      Optional<String> cursor = page.nextCursor();
      if (cursor.isEmpty()) {
        return;
      }
      request = request.after(cursor.get());
    }
  }

  private static String describe(Message m) {
    return m.groupId().orElse("-") + " " + m.body();
  }

  private static void report(String line) {
    synchronized (OUT_LOCK) {
      try {
        OUT.write(line);
        OUT.newLine();
        OUT.flush();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
