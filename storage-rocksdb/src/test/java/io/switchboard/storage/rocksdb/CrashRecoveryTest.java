package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.Message;
import io.switchboard.queue.Page;
import io.switchboard.queue.QueueEngine;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills the durable engine with SIGKILL at random moments and checks what survives.
 *
 * <p>Each cycle runs {@link CrashWorkload} in a child JVM on the same data directory (sync
 * durability): it recovers, reports what it found, then sends, receives and acks on a standard and
 * a grouped queue until the parent kills it after 300..8,000 reported events. The parent keeps a
 * model from the child's reports and checks it against every recovered state (the next child's
 * report, and at the end the store opened in this JVM):
 *
 * <ul>
 *   <li>every acknowledged send is present, or was acked;
 *   <li>nothing whose ack returned more than {@link #ASYNC_WINDOW} before the kill is present (acks
 *       are journaled without waiting; losing a younger one may only cause a redelivery);
 *   <li>receive counts never go back: not below a count reported more than the window before the
 *       kill, nor below the count recovered the cycle before;
 *   <li>per-group order in the grouped queue: a group's remaining messages are in send order with
 *       no gap (nothing sent after the group's oldest remaining message is gone), and within a
 *       cycle a group is delivered in send order.
 * </ul>
 *
 * The window is 1 s. A SIGKILL loses only what the journal's writer thread had not yet handed to
 * RocksDB (the operating system keeps what was written to the log), which is milliseconds of work;
 * the second of slack absorbs a slow disk and a noisy 2-core machine. Times are when the parent
 * read a line, never earlier than when the child wrote it, so the checks err on the lenient side
 * only for lines the parent read late. Seed: {@code -Dcrash.seed=N} (printed on failure).
 */
class CrashRecoveryTest {

  static final Duration ASYNC_WINDOW = Duration.ofSeconds(1);
  private static final int CYCLES = 8;

  @TempDir Path dir;

  private final long seed = Long.getLong("crash.seed", System.nanoTime() % 1_000_000);
  private final Model model = new Model();

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void sigkillDuringSendsReceivesAndAcks_losesNothingAcknowledged() throws Exception {
    run(CYCLES, OrderIndex.NONE);
  }

  /**
   * The same workload on a store that keeps the order index (docs/design.md, "A backlog bigger than
   * memory"), fewer cycles: after the kills the index must hold exactly the keys of the messages
   * recovered, since both are written in the same batches.
   */
  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void sigkillWithTheOrderIndex_leavesTheIndexInStepWithTheMessages() throws Exception {
    run(4, OrderIndex.MAINTAINED);
  }

  private void run(int cycles, OrderIndex index) throws Exception {
    Random random = new Random(seed);
    for (int cycle = 0; cycle < cycles; cycle++) {
      try (ChildJvm child =
          ChildJvm.start(
              CrashWorkload.class,
              dir.toString(),
              Long.toString(seed),
              Integer.toString(cycle),
              index.name())) {
        List<Stored> recovered = parseDump(child.awaitLine("READY", 60));
        model.check(recovered, "cycle " + cycle + " recovery");
        // Kill at a random point of the child's progress: after 300..8,000 reported events.
        List<ChildJvm.Line> seen = child.awaitLines(300 + random.nextInt(7700), 60);
        long killedAt = child.kill();
        seen.addAll(child.drain());
        model.absorb(seen, killedAt, cycle);
      }
    }
    RocksJournal journal = RocksJournal.open(dir, Durability.sync(), index);
    try (QueueEngine engine = QueueEngine.builder().journal(journal).build()) {
      List<Stored> recovered = new ArrayList<>();
      recovered.addAll(browseAll(engine, CrashWorkload.STANDARD));
      recovered.addAll(browseAll(engine, CrashWorkload.GROUPED));
      model.check(recovered, "final recovery in the test JVM");
      assertEquals(List.of(), journal.checkOrders(), "seed " + seed + ": the order index");
    }
    System.out.printf(
        "crash test seed %d (order index %s): %d cycles, %d sends acknowledged, %d acks, %d receives,"
            + " %d messages recovered at the end%n",
        seed,
        index,
        cycles,
        model.sent.size(),
        model.acks,
        model.receives,
        model.lastCounts.size());
    assertTrue(model.sent.size() > 100, "the workload sent too little: " + model.sent.size());
    assertTrue(model.acks > 50, "the workload acked too little: " + model.acks);
  }

  /** A message as a recovered engine shows it. */
  record Stored(String queue, String id, int receiveCount, String group, String body) {}

  private List<Stored> parseDump(List<ChildJvm.Line> lines) {
    List<Stored> out = new ArrayList<>();
    for (ChildJvm.Line line : lines) {
      String[] f = line.text().split(" ", 6);
      if (!f[0].equals("M")) {
        throw new AssertionError("seed " + seed + ": unexpected line before READY: " + line);
      }
      out.add(new Stored(f[1], f[2], Integer.parseInt(f[3]), f[4], f[5]));
    }
    return out;
  }

  private static List<Stored> browseAll(QueueEngine engine, String queue) {
    List<Stored> out = new ArrayList<>();
    BrowseRequest request = BrowseRequest.first(BrowseRequest.MAX_LIMIT).includeInvisible(true);
    while (true) {
      Page page = engine.browse(queue, request);
      for (Message m : page.items()) {
        out.add(new Stored(queue, m.id(), m.receiveCount(), m.groupId().orElse("-"), m.body()));
      }
      if (page.nextCursor().isEmpty()) {
        return out;
      }
      request = request.after(page.nextCursor().get());
    }
  }

  /** Place in a group's send order of a body {@code c<cycle>-g<group>-<index>}. */
  static long orderOf(String body) {
    String[] f = body.split("-");
    return Long.parseLong(f[0].substring(1)) * 1_000_000_000L + Long.parseLong(f[2]);
  }

  /** What the children reported, and what each recovery must therefore show. */
  private final class Model {
    /** Acknowledged sends by id: [queue, group, body]. */
    final Map<String, String[]> sent = new HashMap<>();

    final Set<String> acked = new HashSet<>();

    /**
     * Acks begun: a kill between the ack's journal write and its report makes a message vanish that
     * no "A" line accounts for, so an attempted ack excuses an absence (never a return).
     */
    final Set<String> ackAttempted = new HashSet<>();

    final Set<String> ackedBeforeWindow = new HashSet<>();
    final Map<String, Integer> countsBeforeWindow = new HashMap<>();
    Map<String, Integer> lastCounts = new HashMap<>();
    long acks;
    long receives;

    void absorb(List<ChildJvm.Line> lines, long killedAt, int cycle) {
      long window = ASYNC_WINDOW.toNanos();
      Map<String, Long> lastDelivered = new HashMap<>();
      for (ChildJvm.Line line : lines) {
        String[] f = line.text().split(" ", 6);
        boolean old = killedAt - line.readNanos() > window;
        switch (f[0]) {
          case "S" -> sent.put(f[2], new String[] {f[1], f[3], f[4]});
          case "a" -> ackAttempted.add(f[2]);
          case "A" -> {
            acks++;
            acked.add(f[2]);
            if (old) {
              ackedBeforeWindow.add(f[2]);
            }
          }
          case "R" -> {
            receives++;
            if (old) {
              countsBeforeWindow.merge(f[2], Integer.parseInt(f[3]), Math::max);
            }
            // A redelivery may come after later messages of its group: a slow consumer (two
            // seconds of lease on two busy cores) can ack a batch's later messages after an
            // earlier one's lease ran out. A first delivery never may.
            if (f[1].equals(CrashWorkload.GROUPED) && Integer.parseInt(f[3]) == 1) {
              long order = orderOf(f[5]);
              Long previous = lastDelivered.merge(f[4], order, Math::max);
              assertTrue(
                  previous == order,
                  "seed "
                      + seed
                      + " cycle "
                      + cycle
                      + ": group "
                      + f[4]
                      + " delivered "
                      + f[5]
                      + " after a later message");
            }
          }
          case "E" -> throw new AssertionError("seed " + seed + ": child failed: " + line.text());
          default -> throw new AssertionError("seed " + seed + ": unexpected line " + line);
        }
      }
    }

    void check(List<Stored> recovered, String when) {
      String at = "seed " + seed + ", " + when + ": ";
      Map<String, Stored> byId = new HashMap<>();
      for (Stored s : recovered) {
        byId.put(s.id(), s);
      }
      assertEquals(recovered.size(), byId.size(), at + "a message listed twice");
      for (var e : sent.entrySet()) {
        assertTrue(
            byId.containsKey(e.getKey()) || mayBeGone(e.getKey()),
            at + "acknowledged send " + e.getKey() + " (" + e.getValue()[2] + ") is lost");
      }
      for (String id : ackedBeforeWindow) {
        assertTrue(
            !byId.containsKey(id), at + id + " was acked long before the kill and reappeared");
      }
      Map<String, Integer> counts = new HashMap<>();
      for (Stored s : recovered) {
        int floor =
            Math.max(
                countsBeforeWindow.getOrDefault(s.id(), 0), lastCounts.getOrDefault(s.id(), 0));
        assertTrue(
            s.receiveCount() >= floor,
            at + s.id() + " has receive count " + s.receiveCount() + ", was " + floor);
        counts.put(s.id(), s.receiveCount());
      }
      lastCounts = counts;
      checkGroups(recovered, at);
    }

    private boolean mayBeGone(String id) {
      return acked.contains(id) || ackAttempted.contains(id);
    }

    private void checkGroups(List<Stored> recovered, String at) {
      Map<String, List<Stored>> groups = new HashMap<>();
      for (Stored s : recovered) {
        if (s.queue().equals(CrashWorkload.GROUPED)) {
          groups.computeIfAbsent(s.group(), g -> new ArrayList<>()).add(s);
        }
      }
      for (var e : groups.entrySet()) {
        List<Stored> list = e.getValue();
        for (int i = 1; i < list.size(); i++) {
          assertTrue(
              orderOf(list.get(i - 1).body()) < orderOf(list.get(i).body()),
              at
                  + "group "
                  + e.getKey()
                  + " holds "
                  + list.get(i - 1).body()
                  + " before "
                  + list.get(i).body());
        }
        long oldest = orderOf(list.get(0).body());
        Set<String> present = new HashSet<>();
        list.forEach(s -> present.add(s.id()));
        for (var s : sent.entrySet()) {
          String[] v = s.getValue();
          if (v[0].equals(CrashWorkload.GROUPED)
              && v[1].equals(e.getKey())
              && orderOf(v[2]) > oldest) {
            assertTrue(
                present.contains(s.getKey()) || mayBeGone(s.getKey()),
                at
                    + "group "
                    + e.getKey()
                    + " lost "
                    + v[2]
                    + " though "
                    + list.get(0).body()
                    + ", sent before it, is still there");
          }
        }
      }
    }
  }
}
