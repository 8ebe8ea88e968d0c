package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.SendResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk on a real 64 MiB file system (a tmpfs the test mounts; skipped, loudly, where it may
 * not): sends refused while the disk is nearly full and taken again once space is freed, acks
 * stored or refused (never answered and then lost), and a crash during the outage that restarts
 * with less room than its log.
 */
class FullDiskTest {

  private static final int DISK_MIB = 64;
  private static final long MIB = 1L << 20;

  @TempDir Path dir;

  @Test
  void theMemtable_andTheReserve_followTheFileSystem_withinAFloorAndACeiling() {
    assertEquals(4 * MIB, DiskSpace.memtableFor(16 * MIB));
    assertEquals(4 * MIB, DiskSpace.memtableFor(64 * MIB));
    assertEquals(16 * MIB, DiskSpace.memtableFor(256 * MIB));
    assertEquals(64 * MIB, DiskSpace.memtableFor(1024 * MIB));
    assertEquals(64 * MIB, DiskSpace.memtableFor(2000 * 1024 * MIB));
    assertEquals(64 * MIB, DiskSpace.memtableFor(0), "unknown size: RocksDB's default");
  }

  /**
   * The store fills its 64 MiB disk (24 MiB of it taken by another file) with sends: they are
   * refused with 8 MiB left, and acks are still taken and stored. Then something else takes the
   * rest of the disk: acks are refused (the store writes nothing on a full disk), from then on
   * before they change anything. Once the other 24 MiB are freed sends are taken again without a
   * restart (they used to wait for 64 MiB free, which this disk can never have), and nothing
   * acknowledged is lost.
   */
  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void aDiskFilledBySends_refusesThem_andTakesThemAgainOnceSpaceIsFreed() throws Exception {
    try (SmallDisk disk = SmallDisk.mount(dir.resolve("disk"), DISK_MIB)) {
      Path store = disk.path().resolve("store");
      Path filler = disk.path().resolve("filler");
      Path other = disk.path().resolve("other");
      disk.write(other, 24 * MIB); // what else is on the disk, deleted later to make room
      Set<String> sent = new HashSet<>();
      Set<String> acked = new HashSet<>();
      RocksJournal journal = RocksJournal.open(store, Durability.sync());
      QueueEngine engine = QueueEngine.builder().journal(journal).build();
      try {
        engine.createQueue("q", FullDiskWorkload.queueConfig());
        Random random = new Random(1);
        QueueException refused = null;
        while (refused == null) {
          try {
            sent.add(engine.send("q", NewMessage.of(FullDiskWorkload.body(random))).id());
          } catch (QueueException e) {
            refused = e;
          }
        }
        assertEquals(ErrorCode.UNAVAILABLE, refused.code(), refused.getMessage());
        assertTrue(refused.getMessage().contains("nearly full"), refused.getMessage());
        assertTrue(
            sent.size() * (long) FullDiskWorkload.BODY > 24 * MIB,
            "refused after only " + sent.size() + " sends of 64 KiB on a 64 MiB disk");
        assertTrue(disk.free() >= 4 * MIB, "the store filled its own disk: " + disk.free());
        assertEquals(Optional.empty(), journal.problem());

        List<Message> received = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
          received.addAll(engine.receive("q", ReceiveRequest.max(10)));
        }
        int next = 0;
        for (; next < 5; next++) {
          engine.ack("q", received.get(next).receipt().orElseThrow());
          acked.add(received.get(next).id());
        }

        QueueException failed = null;
        for (; next < received.size() && failed == null; next++) {
          SmallDisk.fill(filler); // another process takes the rest
          try {
            engine.ack("q", received.get(next).receipt().orElseThrow());
            acked.add(received.get(next).id()); // stored before it returned
          } catch (QueueException e) {
            failed = e;
          }
        }
        assertTrue(failed != null, "every ack was taken on a full disk");
        assertEquals(ErrorCode.UNAVAILABLE, failed.code(), failed.getMessage());
        Message failedAck = received.get(next - 1);
        assertEquals(Optional.of("disk full"), journal.problem());
        Message refusedAck = received.get(next);
        QueueException before =
            assertThrows(
                QueueException.class, () -> engine.ack("q", refusedAck.receipt().orElseThrow()));
        assertEquals(ErrorCode.UNAVAILABLE, before.code());
        assertTrue(before.getMessage().contains("changes are refused"), before.getMessage());
        assertEquals(
            refusedAck.receiveCount(),
            engine.get("q", refusedAck.id()).receiveCount(),
            "a refused ack changed nothing");
        QueueException release =
            assertThrows(
                QueueException.class,
                () ->
                    engine.release("q", refusedAck.receipt().orElseThrow(), Duration.ZERO, false));
        assertEquals(ErrorCode.UNAVAILABLE, release.code());
        assertThrows(
            QueueException.class,
            () -> engine.send("q", NewMessage.of(FullDiskWorkload.body(random))));

        Files.delete(other); // 24 MiB freed: far less than RocksDB's 64 MiB memtable
        SendResult after = sendWithin(engine, "after", Duration.ofSeconds(60));
        sent.add(after.id());
        assertEquals(Optional.empty(), journal.problem());
        engine.ack("q", failedAck.receipt().orElseThrow()); // the retry of the refused ack
        acked.add(failedAck.id());
        engine.ack("q", refusedAck.receipt().orElseThrow());
        acked.add(refusedAck.id());
      } finally {
        engine.close();
      }
      Files.delete(filler);
      assertStored(store, sent, acked, Set.of());
    }
  }

  /**
   * The process dies (SIGKILL) during a full-disk outage, and restarts with 1 MiB free: less than
   * its write-ahead logs (2 MiB or more), which recovery used to write out as table files first (it
   * failed with "No space left on device", so the server could not start, over and over under a
   * supervisor). It opens, with every acknowledged send and no acknowledged ack lost, and takes
   * sends once another file's 24 MiB are freed.
   */
  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void aCrashDuringAFullDiskOutage_restartsWithLessRoomThanItsLog_andLosesNothing()
      throws Exception {
    try (SmallDisk disk = SmallDisk.mount(dir.resolve("disk"), DISK_MIB)) {
      Path store = disk.path().resolve("store");
      Path filler = disk.path().resolve("filler");
      Path other = disk.path().resolve("other");
      disk.write(other, 24 * MIB);
      List<ChildJvm.Line> lines = new ArrayList<>();
      try (ChildJvm child =
          ChildJvm.start(FullDiskWorkload.class, store.toString(), filler.toString())) {
        lines.addAll(child.awaitLine("FULL", 120));
        SmallDisk.fill(filler);
        child.tell("GO");
        lines.addAll(child.awaitLine("OUTAGE", 60));
        child.kill();
        lines.addAll(child.drain());
      }
      Set<String> sent = new HashSet<>();
      Set<String> acked = new HashSet<>();
      List<String> refusals = new ArrayList<>();
      Set<String> unknown = new HashSet<>(); // refused acks: the write may have got through
      for (ChildJvm.Line line : lines) {
        String[] words = line.text().split(" ", 2);
        switch (words[0]) {
          case "SENT" -> sent.add(words[1]);
          case "ACKED" -> acked.add(words[1]);
          case "REFUSED" -> {
            refusals.add(words[1]);
            if (words[1].startsWith("ack ")) {
              unknown.add(words[1].split(" ")[1]);
            }
          }
          default -> throw new AssertionError("unexpected line from the child: " + line.text());
        }
      }
      assertTrue(sent.size() >= 32, "sends: " + sent.size());
      assertTrue(
          refusals.stream().anyMatch(r -> r.startsWith("send UNAVAILABLE")),
          "the send in the outage was not refused: " + refusals);
      assertTrue(
          refusals.stream().anyMatch(r -> r.startsWith("ack ")),
          "no ack was refused in the outage: " + refusals);
      assertTrue(
          refusals.stream().allMatch(r -> r.contains("UNAVAILABLE")),
          "refused with another code: " + refusals);
      long log = FullDiskWorkload.logBytes(store);
      disk.free(filler, MIB);
      assertTrue(
          disk.free() < log,
          "the restart should have less room (" + disk.free() + ") than its log (" + log + ")");

      RocksJournal journal = RocksJournal.open(store, Durability.sync());
      try (QueueEngine engine = QueueEngine.builder().journal(journal).build()) {
        assertAcknowledgedKept(engine, sent, acked, unknown);
        QueueException refused =
            assertThrows(
                QueueException.class,
                () -> engine.send("q", NewMessage.of(FullDiskWorkload.body(new Random(2)))));
        assertEquals(ErrorCode.UNAVAILABLE, refused.code());
        Files.delete(other);
        sent.add(sendWithin(engine, "after", Duration.ofSeconds(60)).id());
      }
      Files.delete(filler);
      assertStored(store, sent, acked, unknown);
    }
  }

  private static void assertStored(
      Path store, Set<String> sent, Set<String> acked, Set<String> unknown) {
    try (QueueEngine engine =
        QueueEngine.builder().journal(RocksJournal.open(store, Durability.sync())).build()) {
      assertAcknowledgedKept(engine, sent, acked, unknown);
    }
  }

  /**
   * Every acknowledged send is there unless its ack was acknowledged, and no acked one is. A
   * refused ack ({@code unknown}) may or may not have reached the log before the write failed (the
   * client was told to retry, and an ack is idempotent): either outcome is allowed.
   */
  private static void assertAcknowledgedKept(
      QueueEngine engine, Set<String> sent, Set<String> acked, Set<String> unknown) {
    for (String id : sent) {
      if (!unknown.contains(id)) {
        assertEquals(!acked.contains(id), isPresent(engine, id), "message " + id);
      }
    }
    for (String id : acked) {
      assertFalse(isPresent(engine, id), "acked message " + id + " came back");
    }
  }

  private static boolean isPresent(QueueEngine engine, String id) {
    try {
      engine.get("q", id);
      return true;
    } catch (QueueException e) {
      assertEquals(ErrorCode.MESSAGE_NOT_FOUND, e.code(), e.getMessage());
      return false;
    }
  }

  /**
   * Sends, retrying while the store answers UNAVAILABLE, for up to {@code patience}: after a failed
   * write RocksDB itself decides when it writes again (it looks at the free space every 5 s).
   */
  private static SendResult sendWithin(QueueEngine engine, String body, Duration patience)
      throws InterruptedException {
    long deadline = System.nanoTime() + patience.toNanos();
    while (true) {
      try {
        return engine.send("q", NewMessage.of(body));
      } catch (QueueException e) {
        if (e.code() != ErrorCode.UNAVAILABLE || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
  }
}
