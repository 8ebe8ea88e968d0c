package io.switchboard.bench.sqs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A server of {@link SqsServerMain} in a child JVM with this JVM's class path; closing it closes
 * the child's standard input (it stops itself) and waits for it, killing it if it lingers.
 */
final class ChildServer implements AutoCloseable {

  final String system;
  final URI uri;
  final long pid;
  private final Process process;

  private ChildServer(String system, Process process, int port) {
    this.system = system;
    this.process = process;
    this.pid = process.pid();
    this.uri = URI.create("http://127.0.0.1:" + port);
  }

  /** Starts {@code system} with the given extra JVM flags; waits up to 60 s for its port. */
  static ChildServer start(String system, List<String> jvmFlags, Path log)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmFlags);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(SqsServerMain.class.getName());
    command.add(system);
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
      // keep draining its standard output so it never blocks on a full pipe
      Thread.ofVirtual()
          .start(
              () -> {
                try {
                  while (out.readLine() != null) {
                    // discard
                  }
                } catch (IOException e) {
                  // the child is gone
                }
              });
      return new ChildServer(system, p, found);
    } catch (ExecutionException | TimeoutException e) {
      p.destroyForcibly();
      throw new IOException(system + " server did not start within 60 s; see " + log, e);
    }
  }

  ProcessHandle process() {
    return process.toHandle();
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
