package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash test's harness must hand the parent every line a child wrote before it was killed: the
 * parent's model excuses a lost message only by the ack lines it read ("a"), so a line that is
 * dropped turns a legitimate ack into a "lost" acknowledged send. {@code Process.destroyForcibly()}
 * closed the parent's end of the pipe, dropping whatever the reader had not taken yet.
 */
class ChildJvmTest {

  @TempDir Path dir;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void kill_keepsEveryLineTheChildWroteBeforeItDied() throws Exception {
    Random random = new Random();
    for (int round = 0; round < 20; round++) {
      Path written = dir.resolve("written-" + round);
      List<ChildJvm.Line> read;
      try (ChildJvm child = ChildJvm.start(WritesLines.class, written.toString())) {
        // Kill while the child writes as fast as it can: the pipe may hold lines not read yet.
        read = child.awaitLines(1 + random.nextInt(2000), 60);
        child.kill();
        read.addAll(child.drain());
      }
      Set<Long> seen = new HashSet<>();
      for (ChildJvm.Line line : read) {
        seen.add(Long.parseLong(line.text().split(" ")[1]));
      }
      // Every line whose write had returned when the child died: it logged them after each write.
      Set<Long> missing = new TreeSet<>();
      ByteBuffer log = ByteBuffer.wrap(Files.readAllBytes(written));
      while (log.remaining() >= Long.BYTES) {
        long n = log.getLong();
        if (!seen.contains(n)) {
          missing.add(n);
        }
      }
      assertEquals(
          Set.of(),
          missing,
          "round "
              + round
              + ": lines written before the kill but not read (of "
              + read.size()
              + ")");
    }
  }

  /**
   * Writes numbered lines on stdout as {@link CrashWorkload} reports events, one flushed line at a
   * time, and after each write returned appends the line's number to the file given as argument.
   */
  static final class WritesLines {
    public static void main(String[] args) throws IOException {
      BufferedWriter out =
          new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
      try (FileChannel log =
          FileChannel.open(Path.of(args[0]), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
        ByteBuffer number = ByteBuffer.allocate(Long.BYTES);
        for (long n = 0; ; n++) {
          out.write("L " + n + " a line about as long as the crash workload's event reports");
          out.newLine();
          out.flush();
          log.write(number.clear().putLong(n).flip());
        }
      }
    }
  }
}
