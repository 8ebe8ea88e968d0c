package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import java.nio.file.FileStore;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.attribute.FileStoreAttributeView;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How {@link DiskSpace} reads free space, on a file system whose free space the test sets: whether
 * the disk is full is read anew for every caller (a disk another program filled just before a
 * change came in refuses the change), whether it is nearly full from a recent reading.
 */
class DiskSpaceTest {

  private static final long MIB = 1L << 20;

  /** A 64 MiB file system whose free space the test sets, counting the reads. */
  private static final class SetFree extends FileStore {
    volatile long free = 40 * MIB;
    final AtomicInteger reads = new AtomicInteger();

    @Override
    public long getUsableSpace() {
      reads.incrementAndGet();
      return free;
    }

    @Override
    public long getTotalSpace() {
      return 64 * MIB;
    }

    @Override
    public long getUnallocatedSpace() {
      return free;
    }

    @Override
    public String name() {
      return "test";
    }

    @Override
    public String type() {
      return "test";
    }

    @Override
    public boolean isReadOnly() {
      return false;
    }

    @Override
    public boolean supportsFileAttributeView(Class<? extends FileAttributeView> type) {
      return false;
    }

    @Override
    public boolean supportsFileAttributeView(String name) {
      return false;
    }

    @Override
    public <V extends FileStoreAttributeView> @Nullable V getFileStoreAttributeView(Class<V> type) {
      return null;
    }

    @Override
    public Object getAttribute(String attribute) {
      throw new UnsupportedOperationException(attribute);
    }
  }

  @Test
  void aDiskFilledJustAfterAReading_isSeenFullByTheNextCaller() {
    SetFree disk = new SetFree();
    DiskSpace space = new DiskSpace(disk, disk.getTotalSpace());
    assertFalse(space.low(), "40 MiB free of 64");
    assertFalse(space.fullNow());

    disk.free = 0; // another program takes the rest, right after that reading
    assertTrue(space.fullNow(), "answered from a reading made before the disk filled");
    assertTrue(space.low(), "the fresh reading also tells sends that the disk is nearly full");

    disk.free = 40 * MIB; // freed again
    assertFalse(space.fullNow());
  }

  /**
   * The journal's up-front check: an ack that comes in after another program filled the disk is
   * refused before it changes anything, even when the last reading (for a send a moment before)
   * showed room. It used to be answered from that reading, then held unwritten, and lost by a crash
   * during the outage although the client had been told it was done.
   */
  @Test
  void anAckAfterTheDiskFilled_isRefusedBeforeItChangesAnything(@TempDir Path dir) {
    SetFree disk = new SetFree();
    RocksJournal journal =
        RocksJournal.open(
            dir,
            Durability.sync(),
            db -> db::write,
            OrderIndex.NONE,
            d -> new DiskSpace(disk, disk.getTotalSpace()));
    try (QueueEngine engine = QueueEngine.builder().journal(journal).build()) {
      engine.createQueue("q", QueueConfig.builder().build());
      engine.send("q", NewMessage.of("a"));
      Message leased = engine.receive("q", ReceiveRequest.max(1)).get(0);
      assertEquals(Optional.empty(), journal.problem(), "40 MiB free");

      disk.free = 0; // another program fills the disk
      QueueException refused =
          assertThrows(QueueException.class, () -> engine.ack("q", leased.receipt().orElseThrow()));
      assertEquals(ErrorCode.UNAVAILABLE, refused.code());
      assertTrue(refused.getMessage().contains("disk full"), refused.getMessage());
      assertEquals(
          1, engine.get("q", leased.id()).receiveCount(), "the refused ack changed nothing");

      disk.free = 40 * MIB; // freed: the retry is taken
      engine.ack("q", leased.receipt().orElseThrow());
      assertThrows(QueueException.class, () -> engine.get("q", leased.id()));
    }
  }

  @Test
  void nearlyFull_isReadFromARecentReading_notOncePerSend() {
    SetFree disk = new SetFree();
    DiskSpace space = new DiskSpace(disk, disk.getTotalSpace());
    space.checkRoomToGrow();
    int before = disk.reads.get();
    for (int i = 0; i < 1_000; i++) {
      space.checkRoomToGrow();
    }
    assertTrue(
        disk.reads.get() - before < 1_000,
        "one statvfs per send: " + (disk.reads.get() - before) + " reads for 1,000 sends");
  }

  @Test
  void belowTheReserve_sendsAreRefusedWithTheSizes_andTheFloorIsLower() {
    SetFree disk = new SetFree();
    DiskSpace space = new DiskSpace(disk, disk.getTotalSpace());
    assertEquals(8 * MIB, space.reserve(), "two 4 MiB memtables on a 64 MiB disk");
    assertEquals(MIB, space.floor());

    disk.free = 6 * MIB;
    assertFalse(space.fullNow(), "6 MiB is above the 1 MiB floor");
    QueueException refused = assertThrows(QueueException.class, space::checkRoomToGrow);
    assertEquals(ErrorCode.UNAVAILABLE, refused.code());
    assertTrue(
        refused.getMessage().contains("6.0 MiB free, sends need 8.0 MiB"), refused.getMessage());
  }
}
