package io.switchboard.bench.report;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {

  @TempDir Path dir;

  private static RunInfo info() {
    return new RunInfo(
        Map.of(
            "jdk", "test JDK",
            "cpus", "2",
            "commit", "abc1234",
            "date", "2026-11-22T00:00:00Z",
            "command", "java -cp x Main --flag a,b"));
  }

  @Test
  void writesTableCsvAndChart_withTheRunBesideTheFigures() throws Exception {
    Report r =
        Report.create("demo", "A demo", "case", "system", "msg/s", "note")
            .row("batch ×8", "switchboard", 12_345.678, "fast, \"quoted\"")
            .row("batch ×8", "elasticmq", 1_234.5, "x")
            .row("single ×8", "switchboard", 2_000L, "y")
            .note("ratios within one run")
            .chart(ChartSpec.bars("msg/s", "messages/s", "case", "system", "msg/s").log());
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    r.write(dir, info(), new PrintStream(printed, true, StandardCharsets.UTF_8));

    List<String> rows = ReportFiles.check(dir, "demo", "case,system,msg/s,note", 3);
    assertEquals("batch ×8,switchboard,12345.678,\"fast, \"\"quoted\"\"\"", rows.get(0));
    assertEquals("single ×8,switchboard,2000,y", rows.get(2));
    String text = printed.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("| batch ×8 | switchboard | 12,346 | fast, \"quoted\" |"), text);
    assertTrue(text.contains("commit: abc1234") && text.contains("note: ratios"), text);
  }

  /**
   * Regression: {@code bench/run.sh sqs --systems switchboard} failed after writing its table
   * because the "÷ ElasticMQ" chart had no value to plot. Such a chart is left out of the PNG.
   */
  @Test
  void aChartWithNothingToPlot_isLeftOut_andTheRestIsWritten() throws Exception {
    Report r =
        Report.create("demo", "A demo", "case", "msg/s", "× peer")
            .row("batch ×8", 12_345.0, Double.NaN)
            .chart(ChartSpec.bars("msg/s", "messages/s", "case", null, "msg/s"))
            .chart(ChartSpec.bars("÷ peer", "×", "case", null, "× peer"));

    r.write(
        dir, info(), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

    BufferedImage png = ImageIO.read(dir.resolve("demo.png").toFile());
    assertEquals(Charts.HEIGHT + 40, png.getHeight(), "one chart and the footer");
  }

  @Test
  void rejectsRowsThatDoNotFitTheColumns() {
    Report r = Report.create("demo", "A demo", "a", "b");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> r.row("x"));
    assertTrue(e.getMessage().contains("has 2 cells (a, b), got 1"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> r.row("x", List.of()));
    assertThrows(
        IllegalArgumentException.class,
        () -> r.chart(ChartSpec.bars("t", "y", "a", null, "missing")));
    assertThrows(IllegalArgumentException.class, () -> Report.create("Bad Name", "t", "a"));
  }

  @Test
  void outOption_isTakenOutOfTheArguments() {
    ReportArgs a = ReportArgs.parse("sqs", new String[] {"--threads", "8", "--out", "/tmp/x"});
    assertEquals(Path.of("/tmp/x"), a.out());
    assertEquals(List.of("--threads", "8"), List.of(a.rest()));
    assertEquals(Path.of("bench/results/sqs"), ReportArgs.parse("sqs", new String[0]).out());
    assertEquals(Path.of("y"), ReportArgs.parse("sqs", new String[] {"--out=y"}).out());
  }

  @Test
  void captureRecordsTheMachine() {
    RunInfo i = RunInfo.capture("java Main");
    assertEquals(
        String.valueOf(Runtime.getRuntime().availableProcessors()), i.values().get("cpus"));
    assertTrue(i.values().get("jdk").contains(System.getProperty("java.runtime.version")));
    assertEquals("java Main", i.values().get("command"));
    assertTrue(i.values().get("commit").matches("[0-9a-f]{7,}|unknown"), i.values().toString());
  }

  @Test
  void endedAddsTheLoadAverageAtTheEnd_keepingTheOneAtTheStart() {
    RunInfo start = RunInfo.capture("java Main", loads("1.00 2.00 3.00"));
    RunInfo end = start.ended(loads("4.00 5.00 6.00"));
    assertEquals("1.00 2.00 3.00", end.values().get("load_average"));
    assertEquals("4.00 5.00 6.00", end.values().get("load_average_end"));
  }

  @Test
  void aMachineWithoutLoadAverages_recordsThemAsNotMeasured() {
    RunInfo i = RunInfo.capture("java Main", Machine.UNMEASURABLE).ended(Machine.UNMEASURABLE);
    assertEquals("n/a", i.values().get("load_average"));
    assertEquals("n/a", i.values().get("load_average_end"));
  }

  /**
   * Regression: a figure this machine cannot give (here a server's CPU time) was an empty CSV cell
   * with nothing saying why, which the smoke checks failed to parse. It reads n/a in the table, is
   * empty in the CSV with a "# note: not measured" line, and the smoke check accepts it.
   */
  @Test
  void unmeasurableServerCpu_isNaInTheTable_emptyWithANoteInTheCsv_andAcceptedByTheCheck()
      throws Exception {
    Report r =
        Report.create("demo", "A demo", "system", "msg/s", "server CPU µs/msg")
            .row(
                "switchboard",
                1000.0,
                Report.measured(
                    java.util.OptionalDouble.empty(), "no CPU time for the server on this machine"))
            .row("baseline", 500.0, Report.measured(java.util.OptionalDouble.of(3.5), "-"))
            .chart(ChartSpec.bars("msg/s", "msg/s", "system", null, "server CPU µs/msg"));
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    r.write(dir, info(), new PrintStream(printed, true, StandardCharsets.UTF_8));

    String header = "system,msg/s,server CPU µs/msg";
    List<String> rows = ReportFiles.check(dir, "demo", header, 2);
    assertEquals("switchboard,1000.0,", rows.get(0));
    assertEquals("baseline,500.0,3.5", rows.get(1));
    String csv = Files.readString(dir.resolve("demo.csv"));
    assertTrue(
        csv.contains(
            "# note: not measured: server CPU µs/msg: no CPU time for the server on this machine\n"),
        csv);
    for (String row : rows) {
      ReportFiles.measuredAbove(dir, "demo", header, row, "server CPU µs/msg", 0);
    }
    String text = printed.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("| switchboard | 1,000 | n/a |"), text);
    assertTrue(text.contains("note: not measured: server CPU µs/msg: no CPU time"), text);
  }

  @Test
  void anEmptyCellWithoutANote_failsTheSmokeCheck() throws Exception {
    Report.create("demo", "A demo", "system", "server CPU µs/msg")
        .row("switchboard", Double.NaN)
        .write(dir, info(), new PrintStream(new ByteArrayOutputStream(), true, UTF_8));
    String row = Files.readAllLines(dir.resolve("demo.csv")).getLast();
    assertThrows(
        AssertionError.class,
        () ->
            ReportFiles.measuredAbove(
                dir, "demo", "system,server CPU µs/msg", row, "server CPU µs/msg", 0));
  }

  @Test
  void aNotMeasuredCellSaysWhy() {
    assertThrows(IllegalArgumentException.class, () -> Report.notMeasured(" "));
  }

  /** A machine whose load averages are {@code value} and which measures nothing else. */
  private static Machine loads(String value) {
    return new Machine() {
      @Override
      public java.util.OptionalLong cpuNanos(long pid) {
        return java.util.OptionalLong.empty();
      }

      @Override
      public java.util.OptionalLong parentTreeCpuNanos(long pid) {
        return java.util.OptionalLong.empty();
      }

      @Override
      public java.util.Optional<String> loadAverages() {
        return java.util.Optional.of(value);
      }
    };
  }
}
