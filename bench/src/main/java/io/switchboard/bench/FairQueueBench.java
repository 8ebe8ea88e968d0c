package io.switchboard.bench;

import io.switchboard.bench.report.Machine;
import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Fair queues (docs/sqs.md, "Fair queues"): the dwell time (send to receive) of quiet tenants'
 * messages while one noisy tenant has a backlog, in the in-memory engine. A standard queue;
 * consumers receive batches of 10 and "process" each message for {@code --process-micros} before
 * acking it. Scenarios: the quiet tenants alone (unloaded); with a noisy tenant's backlog of {@code
 * --noisy} messages sent first, with group ids (fair scheduling); and the same backlog without
 * group ids (plain order, what a queue without fairness does). The quiet messages ({@code
 * --quiet-groups} groups of {@code --per-group}) are sent one at a time, spread over {@code
 * --spread-millis}, starting once the consumers run.
 */
public final class FairQueueBench {

  static final String ENTRY = "fair-queue";

  private FairQueueBench() {}

  public static void main(String[] args) throws Exception {
    ReportArgs ra = ReportArgs.parse(ENTRY, args);
    int noisy = 10_000;
    int quietGroups = 20;
    int perGroup = 10;
    int consumers = 8;
    long processMicros = 1000;
    long spreadMillis = 500;
    String[] rest = ra.rest();
    for (int i = 0; i + 1 < rest.length; i += 2) {
      switch (rest[i]) {
        case "--noisy" -> noisy = Integer.parseInt(rest[i + 1]);
        case "--quiet-groups" -> quietGroups = Integer.parseInt(rest[i + 1]);
        case "--per-group" -> perGroup = Integer.parseInt(rest[i + 1]);
        case "--consumers" -> consumers = Integer.parseInt(rest[i + 1]);
        case "--process-micros" -> processMicros = Long.parseLong(rest[i + 1]);
        case "--spread-millis" -> spreadMillis = Long.parseLong(rest[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + rest[i]);
      }
    }
    Report r =
        Report.create(
                ENTRY,
                "Quiet tenants' dwell time with a noisy tenant's backlog (memory engine)",
                "scenario",
                "noisy backlog",
                "quiet messages",
                "dwell p50 ms",
                "dwell p99 ms",
                "dwell max ms",
                "load average")
            .note(
                consumers
                    + " consumers, batches of 10, "
                    + processMicros
                    + " µs of processing per message; "
                    + quietGroups
                    + " quiet groups x "
                    + perGroup
                    + " messages sent over "
                    + spreadMillis
                    + " ms once the consumers run");
    Scenario[] scenarios = {
      new Scenario("unloaded", 0, true),
      new Scenario("noisy, fair (group ids)", noisy, true),
      new Scenario("noisy, no group ids", noisy, false),
    };
    run(new Scenario("warm-up", noisy / 10, true), quietGroups, perGroup, consumers, 100, 100);
    for (Scenario s : scenarios) {
      long[] dwell = run(s, quietGroups, perGroup, consumers, processMicros, spreadMillis);
      r.row(
          s.name,
          s.noisy,
          dwell.length,
          ms(dwell, 50),
          ms(dwell, 99),
          ms(dwell, 100),
          RunInfo.loadAverages(Machine.LOCAL));
    }
    r.write(ra.out(), RunInfo.capture(RunInfo.commandLine(FairQueueBench.class, args)), System.out);
  }

  record Scenario(String name, int noisy, boolean groups) {}

  /** The quiet messages' dwell times in nanoseconds, sorted. */
  static long[] run(
      Scenario s,
      int quietGroups,
      int perGroup,
      int consumers,
      long processMicros,
      long spreadMillis)
      throws InterruptedException {
    try (QueueEngine engine = QueueEngine.builder().build()) {
      engine.createQueue("tenants", QueueConfig.defaults());
      for (int i = 0; i < s.noisy; i++) {
        NewMessage.Builder b = NewMessage.builder("n");
        if (s.groups) {
          b.groupId("noisy");
        }
        engine.send("tenants", b.build());
      }
      int quiet = quietGroups * perGroup;
      ConcurrentHashMap<String, Long> sentAt = new ConcurrentHashMap<>();
      long[] dwell = new long[quiet];
      int[] seen = {0};
      CountDownLatch allQuiet = new CountDownLatch(quiet);
      AtomicBoolean stop = new AtomicBoolean();
      ReceiveRequest receive =
          ReceiveRequest.builder()
              .maxMessages(10)
              .visibilityTimeout(Duration.ofSeconds(60))
              .waitTime(Duration.ofMillis(100))
              .build();
      List<Thread> threads = new ArrayList<>();
      for (int c = 0; c < consumers; c++) {
        threads.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      while (!stop.get()) {
                        List<Message> got = engine.receive("tenants", receive);
                        long now = System.nanoTime();
                        for (Message m : got) {
                          Long t = sentAt.remove(m.body());
                          if (t != null) {
                            synchronized (dwell) {
                              dwell[seen[0]++] = now - t;
                            }
                            allQuiet.countDown();
                          }
                        }
                        for (Message m : got) {
                          LockSupport.parkNanos(processMicros * 1000);
                          engine.ack("tenants", m.receipt().orElseThrow());
                        }
                      }
                    }));
      }
      long gapNanos = spreadMillis * 1_000_000L / Math.max(1, quiet);
      long start = System.nanoTime();
      for (int i = 0; i < perGroup; i++) {
        for (int g = 0; g < quietGroups; g++) {
          long due = start + (long) (i * quietGroups + g) * gapNanos;
          while (System.nanoTime() < due) {
            LockSupport.parkNanos(due - System.nanoTime());
          }
          String body = "q" + g + "-" + i;
          NewMessage.Builder b = NewMessage.builder(body);
          if (s.groups) {
            b.groupId("quiet-" + g);
          }
          sentAt.put(body, System.nanoTime());
          engine.send("tenants", b.build());
        }
      }
      if (!allQuiet.await(10, TimeUnit.MINUTES)) {
        throw new IllegalStateException("the quiet messages were not all received");
      }
      stop.set(true);
      for (Thread t : threads) {
        t.join();
      }
      long[] out = Arrays.copyOf(dwell, quiet);
      Arrays.sort(out);
      return out;
    }
  }

  private static double ms(long[] sorted, int percentile) {
    int i = Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * percentile / 100.0) - 1);
    return Math.round(sorted[Math.max(0, i)] / 100_000.0) / 10.0;
  }
}
