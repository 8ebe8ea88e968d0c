package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.time.ManualClock;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.RocksDBException;

/**
 * A damaged store is never loaded silently: zeroed bytes in a table file, a damaged MANIFEST or a
 * damaged write-ahead log refuse the start naming the file and the way out; a torn log tail is
 * recovered up to it and what was dropped is reported; {@code verify} and {@code salvage} read what
 * is there; a store that cannot write says so without showing the client a path.
 */
class StoreIntegrityTest {

  private static final int MESSAGES = 992;

  @TempDir Path dir;
  @TempDir Path other;
  private final ManualClock clock = ManualClock.create();

  private QueueEngine open(Path store) {
    RocksJournal journal = RocksJournal.open(store, Durability.sync());
    try {
      return QueueEngine.builder().clock(clock).journal(journal).build();
    } catch (RuntimeException e) {
      journal.close();
      throw e;
    }
  }

  /** A store of 992 messages, closed cleanly: everything is in table files. */
  private void fill(Path store) {
    try (QueueEngine engine = open(store)) {
      engine.createQueue("orders", QueueConfig.defaults());
      for (int i = 0; i < MESSAGES; i++) {
        engine.send("orders", NewMessage.of(i + ":" + "x".repeat(200) + i));
      }
    }
  }

  private static Path largestFile(Path store, String suffix) throws IOException {
    try (Stream<Path> files = Files.list(store)) {
      return files
          .filter(p -> p.getFileName().toString().endsWith(suffix))
          .max(Comparator.comparingLong(p -> p.toFile().length()))
          .orElseThrow(() -> new AssertionError("no " + suffix + " file in " + store));
    }
  }

  private static Path manifest(Path store) throws IOException {
    try (Stream<Path> files = Files.list(store)) {
      return files
          .filter(p -> p.getFileName().toString().startsWith("MANIFEST-"))
          .max(Comparator.naturalOrder())
          .orElseThrow();
    }
  }

  private static void overwrite(Path file, long offset, byte[] bytes) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.seek(offset);
      f.write(bytes);
    }
  }

  private static String digest(Path store) throws Exception {
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    try (Stream<Path> files = Files.walk(store)) {
      for (Path p : files.filter(Files::isRegularFile).sorted().toList()) {
        md.update(p.toString().getBytes());
        md.update(Files.readAllBytes(p));
      }
    }
    return HexFormat.of().formatHex(md.digest());
  }

  private static int depth(QueueEngine engine) {
    return (int) engine.stats("orders").depth();
  }

  /** The operator's report: 1,000 zeroed bytes in a table file loaded 603 of 992, silently. */
  @Test
  void zeroedBytesInATableFile_refuseTheStart_namingTheFileAndTheWayOut() throws Exception {
    fill(dir);
    Path sst = largestFile(dir, ".sst");
    overwrite(sst, sst.toFile().length() / 3, new byte[1000]);

    StoreDamagedException e = assertThrows(StoreDamagedException.class, () -> open(dir));
    assertTrue(e.getMessage().contains(sst.getFileName().toString()), e.getMessage());
    assertTrue(
        e.getMessage().contains("switchboard store salvage --data-dir " + dir), e.getMessage());
    assertTrue(
        e.getMessage().contains("switchboard store verify --data-dir " + dir), e.getMessage());
  }

  @Test
  void verify_saysOkOnAGoodStore_andNamesTheDamagedFileOnABadOne() throws Exception {
    fill(dir);
    StoreDoctor.Report good = StoreDoctor.verify(dir);
    assertFalse(good.damaged(), good.lines().toString());
    assertEquals("OK", good.lines().get(good.lines().size() - 1));

    Path sst = largestFile(dir, ".sst");
    overwrite(sst, sst.toFile().length() / 3, new byte[1000]);
    String before = digest(dir);
    StoreDoctor.Report bad = StoreDoctor.verify(dir);
    assertTrue(bad.damaged(), bad.lines().toString());
    assertTrue(
        bad.lines().stream().anyMatch(l -> l.startsWith("DAMAGED") && l.contains(sst.toString())),
        bad.lines().toString());
    assertEquals(before, digest(dir), "verify changed the store");
  }

  @Test
  void salvage_copiesWhatIsReadable_listsWhatWasLost_andLeavesTheOriginal() throws Exception {
    fill(dir);
    Path sst = largestFile(dir, ".sst");
    overwrite(sst, sst.toFile().length() / 3, new byte[1000]);
    String before = digest(dir);
    Path to = other.resolve("salvaged");

    StoreDoctor.Report report = StoreDoctor.salvage(dir, to);

    assertEquals(before, digest(dir), "salvage changed the original");
    assertTrue(report.damaged(), report.lines().toString());
    assertTrue(
        report.lines().stream()
            .anyMatch(
                l -> l.startsWith("LOST") && l.contains(sst.toString()) && l.contains("orders")),
        report.lines().toString());
    try (QueueEngine engine = open(to)) {
      int kept = depth(engine);
      assertTrue(kept > 0 && kept < MESSAGES, "kept " + kept);
      for (Message m : engine.browse("orders", BrowseRequest.first(1000)).items()) {
        String[] parts = m.body().split(":");
        assertTrue(m.body().endsWith(parts[0]), "a salvaged body is whole: " + m.body());
      }
    }
    StoreDoctor.Report again = StoreDoctor.verify(to);
    assertFalse(again.damaged(), again.lines().toString());
  }

  @Test
  void salvage_ofAGoodStore_losesNothing_andRefusesADirectoryThatHoldsFiles() throws Exception {
    fill(dir);
    Path to = other.resolve("copy");
    StoreDoctor.Report report = StoreDoctor.salvage(dir, to);
    assertFalse(report.damaged(), report.lines().toString());
    try (QueueEngine engine = open(to)) {
      assertEquals(MESSAGES, depth(engine));
    }
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> StoreDoctor.salvage(dir, to));
    assertTrue(e.getMessage().contains("new or empty directory"), e.getMessage());
  }

  @Test
  void aDamagedManifest_refusesTheStart_namingTheFile() throws Exception {
    fill(dir);
    Path manifest = manifest(dir);
    byte[] bytes = Files.readAllBytes(manifest);
    for (int i = 20; i < Math.min(bytes.length, 60); i++) {
      bytes[i] ^= (byte) 0x5a;
    }
    Files.write(manifest, bytes);

    StoreDamagedException e = assertThrows(StoreDamagedException.class, () -> open(dir));
    assertTrue(e.getMessage().contains("MANIFEST"), e.getMessage());
    assertTrue(e.getMessage().contains("switchboard store salvage"), e.getMessage());
    StoreDoctor.Report report = StoreDoctor.verify(dir);
    assertTrue(report.damaged(), report.lines().toString());
  }

  /**
   * A crash image: the store copied while it is open (its log not yet flushed to table files), the
   * way a power loss leaves it.
   */
  private Path crashImage(int messages) throws IOException {
    Path live = other.resolve("live");
    QueueEngine engine = open(live);
    try {
      engine.createQueue("orders", QueueConfig.defaults());
      for (int i = 0; i < messages; i++) {
        engine.send("orders", NewMessage.of("m" + i));
      }
      copyTree(live, dir);
    } finally {
      engine.close();
    }
    return largestFile(dir, ".log");
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path p : files.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else if (!p.getFileName().toString().equals("LOCK")) {
          Files.copy(p, target);
        }
      }
    }
  }

  @Test
  void aTruncatedLog_isRecoveredUpToTheCut_andWhatWasDroppedIsReported() throws Exception {
    Path log = crashImage(50);
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "rw")) {
      f.setLength(f.length() - 5);
    }
    StoreDoctor.Report report = StoreDoctor.verify(dir);
    assertTrue(
        report.lines().stream()
            .anyMatch(l -> l.startsWith("WARNING") && l.contains(log.toString())),
        report.lines().toString());

    RocksJournal journal = RocksJournal.open(dir, Durability.sync());
    List<String> warnings = journal.recoveryWarnings();
    try (QueueEngine engine = QueueEngine.builder().clock(clock).journal(journal).build()) {
      assertEquals(49, depth(engine));
    }
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains(log.getFileName().toString()), warnings.get(0));
    assertTrue(warnings.get(0).contains("drops the last"), warnings.get(0));
  }

  @Test
  void aLogDamagedBeforeGoodRecords_refusesTheStart_namingTheLog() throws Exception {
    Path log = crashImage(50);
    byte[] bytes = Files.readAllBytes(log);
    bytes[20] ^= (byte) 0xff; // inside the first record: 49 good writes follow
    Files.write(log, bytes);
    String before = digest(dir);

    StoreDamagedException e = assertThrows(StoreDamagedException.class, () -> open(dir));
    assertTrue(e.getMessage().contains(log.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("whole writes after it"), e.getMessage());
    assertEquals(before, digest(dir), "a refused start changed the store");
  }

  /** The operator's report: on a full disk, sends got a 503 naming the server's file path. */
  @Test
  void aStoreThatCannotWrite_saysSo_andRefusesSendsWithoutAPath() {
    AtomicBoolean full = new AtomicBoolean();
    RocksJournal journal =
        RocksJournal.open(
            dir,
            Durability.sync(),
            db ->
                (options, batch) -> {
                  if (full.get()) {
                    throw new RocksDBException(
                        "IO error: No space left on device: While appending to file: "
                            + dir
                            + "/000012.log");
                  }
                  db.write(options, batch);
                });
    try (QueueEngine engine = QueueEngine.builder().clock(clock).journal(journal).build()) {
      engine.createQueue("orders", QueueConfig.defaults());
      engine.send("orders", NewMessage.of("kept"));
      assertTrue(journal.problem().isEmpty());

      full.set(true);
      QueueException e =
          assertThrows(QueueException.class, () -> engine.send("orders", NewMessage.of("no")));
      assertEquals(ErrorCode.UNAVAILABLE, e.code());
      assertFalse(e.getMessage().contains(dir.toString()), e.getMessage());
      assertFalse(e.getMessage().contains(".log"), e.getMessage());
      assertTrue(e.getMessage().contains("retry later"), e.getMessage());
      assertEquals("store cannot write", journal.problem().orElseThrow());

      full.set(false);
      engine.send("orders", NewMessage.of("after"));
      assertTrue(journal.problem().isEmpty());
      assertEquals(2, depth(engine));
    }
  }

  @Test
  void aNewDataDirectory_isReadableByItsOwnerOnly() throws Exception {
    Path fresh = dir.resolve("fresh");
    RocksJournal.open(fresh, Durability.sync()).close();
    if (Files.getFileStore(fresh).supportsFileAttributeView("posix")) {
      assertEquals(
          "rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(fresh)));
    }
  }

  @Test
  void theRouterStore_refusesAZeroedTableFile_asDamage_notAsADirectoryInUse() throws Exception {
    Path routing = dir.resolve("routing");
    try (RocksRouterJournal journal = RocksRouterJournal.open(routing, Durability.sync())) {
      List<io.switchboard.routing.spi.RouterEntry> entries = new ArrayList<>();
      entries.add(
          new io.switchboard.routing.spi.RouterEntry.CountersPut(
              io.switchboard.routing.spi.RouterCounters.zero()));
      journal.appendDurable(entries).await();
    }
    Path sst = largestFile(routing, ".sst");
    overwrite(sst, 0, new byte[(int) Math.min(1000, sst.toFile().length() / 2)]);
    RuntimeException e =
        assertThrows(
            RuntimeException.class,
            () -> {
              try (RocksRouterJournal j = RocksRouterJournal.open(routing, Durability.sync())) {
                j.load();
              }
            });
    assertTrue(e instanceof StoreDamagedException, e.toString());
    assertTrue(e.getMessage().contains("--data-dir " + dir), e.getMessage());
  }
}
