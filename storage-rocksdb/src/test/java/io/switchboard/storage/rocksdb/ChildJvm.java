package io.switchboard.storage.rocksdb;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A test's {@code main} class run in a separate JVM: the same java binary and the test classpath.
 * The child talks back line by line on stdout; each line is stamped with the parent's {@link
 * System#nanoTime()} when read, which is never earlier than when the child wrote it.
 */
final class ChildJvm implements AutoCloseable {

  /** One line of the child's stdout and when the parent read it. */
  record Line(String text, long readNanos) {}

  private static final Line EOF = new Line("", 0);

  private final Process process;
  private final BlockingQueue<Line> lines = new LinkedBlockingQueue<>();
  private final Thread reader;

  private ChildJvm(Process process) {
    this.process = process;
    this.reader =
        Thread.ofPlatform()
            .daemon()
            .name("child-jvm-reader")
            .start(
                () -> {
                  try (BufferedReader in =
                      new BufferedReader(
                          new InputStreamReader(
                              process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = in.readLine()) != null; ) {
                      lines.add(new Line(line, System.nanoTime()));
                    }
                  } catch (IOException e) {
                    // the child died mid-line; what was read is kept
                  } finally {
                    lines.add(EOF);
                  }
                });
  }

  static ChildJvm start(Class<?> main, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.add("-Xmx256m");
    command.add("--enable-native-access=ALL-UNNAMED");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(List.of(args));
    return new ChildJvm(
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
  }

  /**
   * Reads lines until one equals {@code marker}; returns those before it. Fails if the child ends
   * or {@code timeoutSeconds} pass first.
   */
  List<Line> awaitLine(String marker, long timeoutSeconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    List<Line> before = new ArrayList<>();
    while (true) {
      Line line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (line == null || line == EOF) {
        throw new AssertionError(
            "child "
                + (line == null ? "did not print " : "ended before printing ")
                + marker
                + "; last lines: "
                + before.subList(Math.max(0, before.size() - 5), before.size()));
      }
      if (line.text().equals(marker)) {
        return before;
      }
      before.add(line);
    }
  }

  /**
   * Reads the next {@code n} lines (the child's progress, not the clock, decides when a test acts).
   * Fails if the child ends or {@code timeoutSeconds} pass first.
   */
  List<Line> awaitLines(int n, long timeoutSeconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    List<Line> read = new ArrayList<>(n);
    while (read.size() < n) {
      Line line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (line == null || line == EOF) {
        throw new AssertionError(
            "child printed "
                + read.size()
                + " of "
                + n
                + " lines before it "
                + (line == null ? "stalled" : "ended"));
      }
      read.add(line);
    }
    return read;
  }

  /**
   * Kills the child with SIGKILL (what {@link Process#destroyForcibly()} sends on Linux) and
   * returns when it is dead; the kill's time is the returned {@link System#nanoTime()}.
   */
  long kill() throws InterruptedException {
    long at = System.nanoTime();
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("child survived SIGKILL for 30 s");
    }
    return at;
  }

  /** Every line after the last {@link #awaitLine}, up to the child's end (call after it ended). */
  List<Line> drain() throws InterruptedException {
    reader.join(TimeUnit.SECONDS.toMillis(30));
    List<Line> rest = new ArrayList<>();
    lines.drainTo(rest);
    rest.remove(EOF);
    return rest;
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
