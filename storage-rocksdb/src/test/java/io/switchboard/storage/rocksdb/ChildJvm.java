package io.switchboard.storage.rocksdb;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A test's {@code main} class run in a separate JVM: the same java binary and the test classpath.
 * The child talks back line by line on stdout; each line is stamped with the parent's {@link
 * System#nanoTime()} when read, which is never earlier than when the child wrote it.
 *
 * <p>Every line the child wrote before it died is read, also after {@link #kill}: the kill only
 * signals the child, and the pipe is read to its end (what a dead process wrote stays in the pipe).
 * {@link Process#destroyForcibly()} must not be used for that: it also closes this end of the pipe,
 * which throws away whatever the reader had not yet taken from it, so the last lines a child wrote
 * before the kill would silently go missing. {@link #drain} fails if the output did not end
 * cleanly.
 */
final class ChildJvm implements AutoCloseable {

  /** One line of the child's stdout and when the parent read it. */
  record Line(String text, long readNanos) {}

  private static final Line EOF = new Line("", 0);

  private final Process process;
  private final BlockingQueue<Line> lines = new LinkedBlockingQueue<>();
  private final Thread reader;

  /** Why reading the child's output stopped before its end, or null. */
  private volatile IOException readFailure;

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
                    readFailure = e; // lines may be lost: drain() fails
                  } finally {
                    lines.add(EOF);
                  }
                });
  }

  static ChildJvm start(Class<?> main, String... args) throws IOException {
    return startWithHeap("256m", main, args);
  }

  /** As {@link #start}, with {@code -Xmx} of {@code maxHeap} ({@code 48m}). */
  static ChildJvm startWithHeap(String maxHeap, Class<?> main, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    // this JVM's own launcher: ProcessHandle's command may be unreadable (a restricted /proc), and
    // "java" on the PATH may be missing or another JDK
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx" + maxHeap);
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

  /** Writes one line to the child's stdin. */
  void tell(String line) throws IOException {
    var in = process.getOutputStream();
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  /**
   * Kills the child with SIGKILL and returns when it is dead; the kill's time is the returned
   * {@link System#nanoTime()}. The signal goes through the {@link ProcessHandle}, which, unlike
   * {@link Process#destroyForcibly()}, leaves the pipe open, so {@link #drain} still gets every
   * line the child wrote before it died.
   */
  long kill() throws InterruptedException {
    long at = System.nanoTime();
    process.toHandle().destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("child survived SIGKILL for 30 s");
    }
    return at;
  }

  /**
   * Every line not yet returned, up to the end of the child's output (call after it ended). Fails
   * if the output could not be read to its end, since lines would be missing.
   */
  List<Line> drain() throws InterruptedException {
    reader.join(TimeUnit.SECONDS.toMillis(30));
    if (reader.isAlive()) {
      throw new AssertionError("the child's output did not end within 30 s of its death");
    }
    if (readFailure != null) {
      throw new AssertionError("reading the child's output failed; lines are lost", readFailure);
    }
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
