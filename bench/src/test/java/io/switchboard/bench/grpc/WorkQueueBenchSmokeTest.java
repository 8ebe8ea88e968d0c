package io.switchboard.bench.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.bench.report.ReportFiles;
import io.switchboard.bench.report.RunInfo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the work-queue bench for about a second on its Switchboard targets (each server in a child
 * JVM); the RabbitMQ targets need a RabbitMQ node, which CI does not have.
 */
class WorkQueueBenchSmokeTest {

  @TempDir Path out;

  @Test
  @Timeout(120) // two servers in child JVMs
  void measuresBothSwitchboardTargets() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    WorkQueueBench.Options o =
        new WorkQueueBench.Options(
            2,
            2,
            10,
            100,
            20,
            Duration.ofMillis(200),
            Duration.ofMillis(500),
            List.of("grpc-memory", "grpc"));

    List<WorkQueueBench.Result> rows =
        WorkQueueBench.run(
            o,
            out,
            RunInfo.capture("smoke"),
            new PrintStream(printed, true, StandardCharsets.UTF_8));

    assertEquals(2, rows.size());
    for (WorkQueueBench.Result r : rows) {
      assertTrue(r.perSecond() > 0, "messages went through: " + r);
    }
    String text = printed.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("| grpc-memory |") && text.contains("| grpc |"), text);
    ReportFiles.check(out, "workqueue", "target,msgs/s,server CPU µs/msg,client CPU µs/msg", 2);
  }
}
