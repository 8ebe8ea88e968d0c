package io.switchboard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.storage.rocksdb.Durability;
import io.switchboard.storage.rocksdb.RocksJournal;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code switchboard store verify} and {@code switchboard store salvage} as a script sees them. */
class StoreCommandTest {

  @TempDir Path dir;
  @TempDir Path other;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    out.reset();
    err.reset();
    return Main.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private void fill() {
    try (QueueEngine engine =
        QueueEngine.builder().journal(RocksJournal.open(dir, Durability.sync())).build()) {
      engine.createQueue("orders", QueueConfig.defaults());
      for (int i = 0; i < 500; i++) {
        engine.send("orders", NewMessage.of(i + "x".repeat(300)));
      }
    }
  }

  private Path damageLargestTable() throws Exception {
    Path sst;
    try (Stream<Path> files = Files.list(dir)) {
      sst =
          files
              .filter(p -> p.toString().endsWith(".sst"))
              .max(Comparator.comparingLong(p -> p.toFile().length()))
              .orElseThrow();
    }
    try (RandomAccessFile f = new RandomAccessFile(sst.toFile(), "rw")) {
      f.seek(f.length() / 3);
      f.write(new byte[1000]);
    }
    return sst;
  }

  @Test
  void verify_exitsZeroOnAGoodStore_andSevenNamingTheFileOnADamagedOne() throws Exception {
    fill();
    assertEquals(Main.OK, run("store", "verify", "--data-dir", dir.toString()), out());
    assertTrue(out().strip().endsWith("OK"), out());

    Path sst = damageLargestTable();
    assertEquals(Main.DAMAGED, run("store", "verify", "--data-dir", dir.toString()), out());
    assertTrue(out().contains("DAMAGED table file " + sst), out());
  }

  @Test
  void salvage_writesANewStoreTheServerCanOpen_andListsTheLoss() throws Exception {
    fill();
    Path sst = damageLargestTable();
    Path to = other.resolve("new");
    assertEquals(
        Main.DAMAGED,
        run("store", "salvage", "--data-dir", dir.toString(), "--to", to.toString()),
        out());
    assertTrue(out().contains("LOST in column family"), out());
    assertTrue(out().contains(sst.toString()), out());
    assertEquals(Main.OK, run("store", "verify", "--data-dir", to.toString()), out());
    try (QueueEngine engine =
        QueueEngine.builder().journal(RocksJournal.open(to, Durability.sync())).build()) {
      long depth = engine.stats("orders").depth();
      assertTrue(depth > 0 && depth < 500, "salvaged " + depth);
    }
  }

  @Test
  void verify_ofADirectoryWithoutAStore_isRefusedClearly() {
    assertEquals(Main.REFUSED, run("store", "verify", "--data-dir", other.toString()));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("no store in it"), err.toString());
  }
}
