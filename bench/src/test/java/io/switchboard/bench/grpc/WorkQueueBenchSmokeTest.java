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
 * Runs the work-queue bench for about a second on its Switchboard targets, the throughput ones and
 * the in-memory latency one (each server in a child JVM); the RabbitMQ targets need a RabbitMQ
 * node, which CI does not have.
 */
class WorkQueueBenchSmokeTest {

  @TempDir Path out;

  @Test
  @Timeout(180) // three servers in child JVMs
  void measuresTheSwitchboardTargets_throughputAndLatency() throws Exception {
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
            List.of("grpc-memory", "grpc", "latency-memory"),
            List.of("-Xms256m", "-Xmx256m"));

    List<WorkQueueBench.Result> rows =
        WorkQueueBench.run(
            o,
            out,
            RunInfo.capture("smoke"),
            new PrintStream(printed, true, StandardCharsets.UTF_8));

    assertEquals(3, rows.size());
    for (WorkQueueBench.Result r : rows) {
      assertTrue(r.perSecond() > 0, "messages went through: " + r);
    }
    WorkQueueBench.Result latency = rows.get(2);
    assertTrue(rows.get(0).p50Millis().isEmpty(), "a throughput row has no latency: " + rows);
    assertTrue(
        latency.p50Millis().orElseThrow() > 0
            && latency.p50Millis().orElseThrow() <= latency.p99Millis().orElseThrow(),
        "send to delivery measured, p50 <= p99: " + latency);
    String text = printed.toString(StandardCharsets.UTF_8);
    assertTrue(
        text.contains("| grpc-memory |")
            && text.contains("| grpc |")
            && text.contains("| latency-memory |"),
        text);
    ReportFiles.check(
        out,
        "workqueue",
        "target,msgs/s,server CPU µs/msg,client CPU µs/msg,delivery p50 ms,delivery p99 ms",
        3);
  }
}
