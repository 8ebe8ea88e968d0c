package io.switchboard.bench.sqs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A server of {@link SqsServerMain} in a child JVM with this JVM's class path; closing it closes
 * the child's standard input (it stops itself) and waits for it, killing it if it lingers.
 */
public final class ChildServer implements AutoCloseable {

  public final String system;
  public final URI uri;
  public final long pid;
  private final Process process;
  private final BlockingQueue<Long> stats = new LinkedBlockingQueue<>();

  private ChildServer(String system, Process process, int port) {
    this.system = system;
    this.process = process;
    this.pid = process.pid();
    this.uri = URI.create("http://127.0.0.1:" + port);
  }

  /** Starts {@code system} with the given extra JVM flags; waits up to 60 s for its port. */
  static ChildServer start(String system, List<String> jvmFlags, Path log)
      throws IOException, InterruptedException {
    return start(system, List.of(), jvmFlags, log);
  }

  /**
   * Starts {@code system} with extra server settings ({@code name=value}, Switchboard only) and JVM
   * flags; waits up to 60 s for its port. Its standard error goes to {@code log}.
   */
  public static ChildServer start(
      String system, List<String> serverSettings, List<String> jvmFlags, Path log)
      throws IOException, InterruptedException {
    List<String> arguments = new ArrayList<>();
    arguments.add(system);
    arguments.addAll(serverSettings);
    return start(system, SqsServerMain.class, arguments, jvmFlags, log);
  }

  /**
   * Starts {@code main} (whose {@code main} ends in {@link SqsServerMain#serve}) with {@code
   * arguments} and JVM flags, named {@code system}; waits up to 60 s for its port. Its standard
   * error goes to {@code log}.
   */
  public static ChildServer start(
      String system, Class<?> main, List<String> arguments, List<String> jvmFlags, Path log)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmFlags);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(arguments);
    Process p =
        new ProcessBuilder(command)
            .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<Integer> port =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                for (String line; (line = out.readLine()) != null; ) {
                  if (line.startsWith(SqsServerMain.READY)) {
                    return Integer.parseInt(line.substring(SqsServerMain.READY.length()).trim());
                  }
                }
                return -1;
              } catch (IOException e) {
                return -1;
              }
            });
    try {
      int found = port.get(60, TimeUnit.SECONDS);
      if (found <= 0) {
        throw new IOException(
            system + " server exited before listening (exit " + p.waitFor() + "); see " + log);
      }
      ChildServer server = new ChildServer(system, p, found);
      // keep draining its standard output so it never blocks on a full pipe; keep its stats
      Thread.ofVirtual()
          .start(
              () -> {
                try {
                  for (String line; (line = out.readLine()) != null; ) {
                    if (line.startsWith(SqsServerMain.STATS)) {
                      server.stats.add(
                          Long.parseLong(line.substring(SqsServerMain.STATS.length()).trim()));
                    }
                  }
                } catch (IOException | NumberFormatException e) {
                  // the child is gone
                }
              });
      return server;
    } catch (ExecutionException | TimeoutException e) {
      p.destroyForcibly();
      throw new IOException(system + " server did not start within 60 s; see " + log, e);
    }
  }

  public ProcessHandle process() {
    return process.toHandle();
  }

  /**
   * Heap bytes the server's threads have allocated so far, as the server reports them; empty if it
   * cannot tell or does not answer within 5 s.
   */
  public OptionalLong allocatedBytes() throws InterruptedException {
    stats.clear();
    try {
      OutputStream in = process.getOutputStream();
      in.write("stats\n".getBytes(StandardCharsets.UTF_8));
      in.flush();
    } catch (IOException e) {
      return OptionalLong.empty();
    }
    Long bytes = stats.poll(5, TimeUnit.SECONDS);
    return bytes == null || bytes < 0 ? OptionalLong.empty() : OptionalLong.of(bytes);
  }

  @Override
  public void close() throws IOException, InterruptedException {
    process.getOutputStream().close();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
