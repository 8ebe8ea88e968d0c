package io.switchboard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A graceful stop by SIGTERM (what systemd and container orchestrators send) ends the process with
 * 0 when it completed, so {@code Restart=on-failure} does not restart a server that was stopped on
 * purpose; a stop that failed still ends with a non-zero code. Each case runs a child JVM and sends
 * it SIGTERM ({@link ProcessHandle#destroy()}).
 */
class GracefulStopTest {

  @TempDir Path dir;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aServerStoppedBySigterm_exitsWithZero() throws Exception {
    Process p =
        start(
            Main.class.getName(),
            "server",
            "--port",
            "0",
            "--data-dir",
            dir.resolve("data").toString());
    String output = readUntil(p, "Switchboard is listening on");
    p.toHandle().destroy(); // SIGTERM; Process.destroy() would also close the pipes
    assertTrue(p.waitFor(90, TimeUnit.SECONDS), "the server did not stop within 90 s");
    output += new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), output);
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aStopThatFails_exitsNonZero() throws Exception {
    Process p = start(FailingStop.class.getName());
    String output = readUntil(p, "READY");
    p.toHandle().destroy(); // SIGTERM; Process.destroy() would also close the pipes
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the child did not stop within 30 s");
    output += new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(Main.SERVER_ERROR, p.exitValue(), output);
    assertTrue(output.contains("the server did not stop cleanly"), output);
    assertTrue(output.contains("the store did not close"), output);
  }

  @Test
  void run_isZeroWhenTheStopCompletes_andOneWhenItThrows() {
    var err = new java.io.ByteArrayOutputStream();
    var print = new java.io.PrintStream(err, true, StandardCharsets.UTF_8);
    assertEquals(0, GracefulStop.run(() -> {}, print));
    assertEquals("", err.toString(StandardCharsets.UTF_8));
    assertEquals(
        1,
        GracefulStop.run(
            () -> {
              throw new IllegalStateException("boom");
            },
            print));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("boom"));
  }

  /** Installs the SIGTERM handling with a stop that fails, says READY, and waits for the signal. */
  public static final class FailingStop {
    public static void main(String[] args) throws InterruptedException {
      GracefulStop.install(
          () -> {
            throw new IllegalStateException("the store did not close");
          });
      System.out.println("READY");
      System.out.flush();
      Thread.sleep(TimeUnit.SECONDS.toMillis(50));
    }
  }

  private static Process start(String main, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("--enable-native-access=ALL-UNNAMED");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main);
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectErrorStream(true).start();
  }

  /** Reads the child's output line by line until a line contains {@code marker}; returns it all. */
  private static String readUntil(Process p, String marker) throws Exception {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    StringBuilder seen = new StringBuilder();
    for (String line; (line = in.readLine()) != null; ) {
      seen.append(line).append('\n');
      if (line.contains(marker)) {
        return seen.toString();
      }
    }
    throw new AssertionError("the child ended before printing " + marker + ":\n" + seen);
  }
}
