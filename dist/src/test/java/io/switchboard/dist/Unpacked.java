package io.switchboard.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The release archive unpacked into an empty directory, and commands run from there as a user would
 * run them: {@code bin/switchboard ...} with only JAVA_HOME set (to the JVM running the test, a
 * Java 21+).
 */
final class Unpacked {

  static final String VERSION = System.getProperty("switchboard.version");
  static final Path ARCHIVE = Path.of(System.getProperty("switchboard.archive"));

  private static final Pattern LISTENING =
      Pattern.compile("Switchboard is listening on (https?://[^\\s;]+)");

  /** The archive's own directory, {@code switchboard-VERSION}. */
  final Path home;

  private Unpacked(Path home) {
    this.home = home;
  }

  /** Unpacks the archive with {@code tar}, as a user would, into {@code into} (empty). */
  static Unpacked tarGz(Path into) throws Exception {
    Result untar = exec(into, Map.of(), List.of("tar", "-xzf", ARCHIVE.toString()));
    assertEquals(0, untar.code(), untar.output());
    Path home = into.resolve("switchboard-" + VERSION);
    assertTrue(Files.isDirectory(home), "the archive unpacks into switchboard-" + VERSION);
    return new Unpacked(home);
  }

  record Result(int code, String output) {}

  /** The environment of a user with only JAVA_HOME set (no PATH java is needed). */
  static Map<String, String> javaHome() {
    return Map.of("JAVA_HOME", System.getProperty("java.home"));
  }

  /** Runs {@code bin/switchboard args...} and waits for it (stdout and stderr together). */
  Result run(Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(home.resolve("bin/switchboard").toString());
    command.addAll(List.of(args));
    return exec(home, env, command);
  }

  static Result exec(Path dir, Map<String, String> env, List<String> command) throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
    pb.environment().clear();
    pb.environment().put("PATH", "/usr/bin:/bin");
    pb.environment().put("HOME", dir.toString());
    pb.environment().putAll(env);
    Process p = pb.start();
    p.getOutputStream().close();
    CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> readAll(p));
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("still running after 120 s: " + command);
    }
    return new Result(p.exitValue(), out.get());
  }

  private static String readAll(Process p) {
    try {
      return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  /** A server started by {@code bin/switchboard server ...} on a free port. */
  static final class Server implements AutoCloseable {
    final Process process;
    final URI url;
    private final StringBuilder log;

    private Server(Process process, URI url, StringBuilder log) {
      this.process = process;
      this.url = url;
      this.log = log;
    }

    /** What the server printed so far. */
    String log() {
      synchronized (log) {
        return log.toString();
      }
    }

    /** Starts {@code command} (which must print the listening line) and waits until it serves. */
    static Server start(Path dir, Map<String, String> env, List<String> command) throws Exception {
      ProcessBuilder pb =
          new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
      pb.environment().clear();
      pb.environment().put("PATH", "/usr/bin:/bin");
      pb.environment().put("HOME", dir.toString());
      pb.environment().putAll(env);
      Process p = pb.start();
      StringBuilder log = new StringBuilder();
      BufferedReader lines =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      CompletableFuture<URI> listening = new CompletableFuture<>();
      Thread reader =
          new Thread(
              () -> {
                try {
                  for (String line; (line = lines.readLine()) != null; ) {
                    synchronized (log) {
                      log.append(line).append('\n');
                    }
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                      listening.complete(URI.create(m.group(1)));
                    }
                  }
                } catch (IOException ignored) {
                  // the process ended
                }
                listening.completeExceptionally(new IllegalStateException("server ended"));
              },
              "server-output");
      reader.setDaemon(true);
      reader.start();
      URI url;
      try {
        url = listening.get(120, TimeUnit.SECONDS);
      } catch (Exception e) {
        p.destroyForcibly();
        synchronized (log) {
          throw new AssertionError("the server did not start: " + e + "\n" + log, e);
        }
      }
      return new Server(p, url, log);
    }

    String get(String path) throws Exception {
      try (HttpClient http = HttpClient.newHttpClient()) {
        HttpResponse<String> answer =
            http.send(
                HttpRequest.newBuilder(url.resolve(path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, answer.statusCode(), path + ": " + answer.body());
        return answer.body();
      }
    }

    /**
     * Stops it as a supervisor would (SIGTERM) and waits for it to end; the processes it started
     * too (a server run through {@code unshare} and {@code chroot} is its descendant, and would
     * outlive it).
     */
    @Override
    public void close() throws Exception {
      List<ProcessHandle> descendants = process.descendants().toList();
      descendants.forEach(ProcessHandle::destroy);
      process.destroy();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
      }
      for (ProcessHandle p : descendants) {
        try {
          p.onExit().get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
          p.destroyForcibly();
        }
      }
    }
  }
}
