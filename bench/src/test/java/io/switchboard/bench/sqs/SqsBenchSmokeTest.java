package io.switchboard.bench.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.bench.report.Machine;
import io.switchboard.bench.report.ReportFiles;
import io.switchboard.bench.report.RunInfo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the SQS benchmark for about two seconds per measurement: both servers in their child JVMs,
 * both shapes, two client threads, through the lean client (the default; the AWS SDK v2 creates the
 * queues). Two seconds, not one: on a loaded CI machine a cold server's first cycle (C1 only, a
 * small heap) can take a second, and a measurement with no completed cycle is an error.
 */
class SqsBenchSmokeTest {

  @TempDir Path out;

  @Test
  @Timeout(120)
  void drivesSwitchboardAndElasticMq_andReportsRatios() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    SqsBench.Options o =
        SqsBench.Options.parse(
            new String[] {
              "--threads",
              "2",
              "--warmup-seconds",
              "0.3",
              "--measure-seconds",
              "2",
              "--server-jvm",
              "-Xmx256m -XX:TieredStopAtLevel=1",
              "--out",
              out.toString()
            },
            new PrintStream(printed, true, StandardCharsets.UTF_8));

    SqsBench.run(o, RunInfo.capture("smoke"), Machine.LOCAL);

    String header =
        "shape,threads,case,system,requests/s,messages/s,p50 µs,p99 µs,failures,"
            + "client CPU µs/req,server CPU µs/req,of ceiling,× ElasticMQ,server CPU µs/msg,"
            + "server CPU/msg ÷ ElasticMQ's";
    List<String> rows = ReportFiles.check(out, "sqs", header, 6);
    for (String row : rows) {
      String[] c = row.split(",");
      // CPU times come from this machine's /proc, which may not show them: then "not measured"
      ReportFiles.measuredAbove(out, "sqs", header, row, "client CPU µs/req", 0);
      ReportFiles.measuredAbove(out, "sqs", header, row, "server CPU µs/req", 0);
      if (!c[3].startsWith("ceiling")) {
        ReportFiles.measuredAbove(out, "sqs", header, row, "server CPU µs/msg", 0);
      }
      assertTrue(Double.parseDouble(c[5]) > 0, "messages moved: " + row);
      assertEquals("0", c[8], "no failures: " + row);
      assertTrue(Double.parseDouble(c[7]) >= Double.parseDouble(c[6]), "p99 >= p50: " + row);
      boolean hasRatio = c[3].equals("switchboard");
      assertEquals(
          hasRatio, c.length > 12 && !c[12].isEmpty(), "ratio only for Switchboard: " + row);
    }
    assertTrue(rows.get(1).startsWith("single,2,single ×2,switchboard,"), rows.get(1));
    assertTrue(rows.get(5).startsWith("batch,2,batch ×2,elasticmq,"), rows.get(5));
  }

  @Test
  void rejectsUnknownSystemsAndShapes() {
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    IllegalArgumentException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () -> SqsBench.Options.parse(new String[] {"--systems", "rabbit"}, quiet));
    assertTrue(e.getMessage().contains("got rabbit"), e.getMessage());
    e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () -> SqsBench.Options.parse(new String[] {"--shapes", "triple"}, quiet));
    assertTrue(e.getMessage().contains("got triple"), e.getMessage());
  }
}
