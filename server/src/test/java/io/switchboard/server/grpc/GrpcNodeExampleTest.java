package io.switchboard.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.switchboard.queue.QueueConfig;
import io.switchboard.server.auth.Principal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Node example client (examples/node, @grpc/grpc-js from npm) against a server with access
 * keys: it publishes on a Publish stream and consumes on a Consume stream with credit 2. Needs node
 * and npm on PATH (.ci/run installs them); skipped, loudly, without.
 */
class GrpcNodeExampleTest {

  private static final Path EXAMPLE = Path.of("..", "examples", "node");

  @Test
  void theNodeExample_publishesAndConsumes() throws Exception {
    boolean tools = runs(List.of("node", "--version")) && runs(List.of("npm", "--version"));
    if (!tools) {
      System.err.println("!!!!! GrpcNodeExampleTest SKIPPED: no node/npm on PATH !!!!!");
    }
    assumeTrue(tools, "node and npm are needed");
    if (!Files.isDirectory(EXAMPLE.resolve("node_modules"))) {
      Result install = run(List.of("npm", "ci", "--no-audit", "--no-fund"), List.of(), 300);
      assertEquals(0, install.code(), "npm ci: " + install.output());
    }
    try (GrpcHarness h = new GrpcHarness(c -> c)) {
      h.server.keys().put(Principal.admin("NODE", "node-secret"));
      h.engine.createQueue("node-jobs", QueueConfig.defaults());
      Result r =
          run(
              List.of(
                  "node",
                  "queues.js",
                  "127.0.0.1:" + h.server.grpcPort().orElseThrow(),
                  "node-jobs",
                  "25"),
              List.of("SWITCHBOARD_ACCESS_KEY=NODE", "SWITCHBOARD_SECRET_KEY=node-secret"),
              60);
      assertEquals(0, r.code(), r.output());
      assertTrue(r.output().contains("published 25, consumed 25, at most 2 unacked"), r.output());
      assertEquals(0, h.engine.stats("node-jobs").depth(), "every message acked");
    }
  }

  private record Result(int code, String output) {}

  private static boolean runs(List<String> command) {
    try {
      return run(command, List.of(), 30).code() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  private static Result run(List<String> command, List<String> env, int seconds)
      throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command).directory(EXAMPLE.toFile());
    pb.redirectErrorStream(true);
    for (String e : env) {
      int eq = e.indexOf('=');
      pb.environment().put(e.substring(0, eq), e.substring(eq + 1));
    }
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return new Result(-1, "timed out after " + seconds + " s");
    }
    return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
  }
}
