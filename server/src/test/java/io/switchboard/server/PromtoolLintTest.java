package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.config.ServerConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A real scrape of {@code /metrics} passes Prometheus's own lint, {@code promtool check metrics}
 * (the Debian package {@code prometheus}, which {@code .ci/run} installs; where promtool is not on
 * {@code PATH} the test is skipped, loudly).
 */
class PromtoolLintTest {

  private static Path promtool() {
    String path = System.getenv().getOrDefault("PATH", "");
    return Stream.of(path.split(java.io.File.pathSeparator))
        .filter(d -> !d.isEmpty())
        .map(d -> Path.of(d, "promtool"))
        .filter(Files::isExecutable)
        .findFirst()
        .orElse(null);
  }

  @Test
  void aScrape_passesPromtoolCheckMetrics() throws IOException, InterruptedException {
    Path promtool = promtool();
    if (promtool == null) {
      String message =
          "!!!!! PromtoolLintTest is SKIPPED: no promtool on PATH (the Debian package prometheus;"
              + " .ci/run installs it when it can) !!!!!";
      System.err.println(message);
      Assumptions.abort(message);
    }
    try (SwitchboardServer server = SwitchboardServer.start(ServerConfig.forTests());
        Http http = new Http(server.uri())) {
      // every kind of series: a queue with traffic, a request of each outcome, routing
      assertEquals(201, http.post("/v1/queues", "{\"name\":\"linted\"}").status());
      http.post("/v1/queues/linted/messages", "{\"body\":\"x\"}");
      http.post("/v1/queues/linted/receive", "{}");
      http.get("/v1/queues/no-such-queue");
      String scrape = http.get("/metrics").text();
      assertTrue(scrape.contains("switchboard_"), scrape);
      Process p =
          new ProcessBuilder(promtool.toString(), "check", "metrics")
              .redirectErrorStream(true)
              .start();
      p.getOutputStream().write(scrape.getBytes(StandardCharsets.UTF_8));
      p.getOutputStream().close();
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(p.waitFor(60, TimeUnit.SECONDS), "promtool still runs");
      assertEquals(
          List.of(),
          output.lines().filter(l -> !l.isBlank()).toList(),
          "promtool check metrics found problems (exit " + p.exitValue() + ")");
      assertEquals(0, p.exitValue(), output);
    }
  }
}
