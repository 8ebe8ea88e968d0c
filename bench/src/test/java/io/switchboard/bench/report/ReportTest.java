package io.switchboard.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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
    RunInfo start = RunInfo.capture("java Main");
    RunInfo end = start.ended();
    assertEquals(start.values().get("load_average"), end.values().get("load_average"));
    assertTrue(end.values().containsKey("load_average_end"), end.values().toString());
    if (Files.isReadable(Path.of("/proc/loadavg"))) {
      String numbers = "[0-9]+\\.[0-9]+ [0-9]+\\.[0-9]+ [0-9]+\\.[0-9]+";
      assertTrue(end.values().get("load_average").matches(numbers), end.values().toString());
      assertTrue(end.values().get("load_average_end").matches(numbers), end.values().toString());
    }
  }
}
