package io.switchboard.bench.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.bench.report.Machine;
import io.switchboard.bench.report.ReportFiles;
import io.switchboard.bench.report.RunInfo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the PostgreSQL benchmark with tiny sizes on its embedded database: both engine set-ups, the
 * baseline and a small soak, and checks what it reports.
 */
class PostgresBenchSmokeTest {

  @TempDir Path out;

  static final String HEADER =
      "round,system,msg/s,× baseline,statements/msg,transactions/msg,updates/msg,HOT share,"
          + "client CPU µs/msg,server CPU µs/msg,load avg";

  @Test
  @Timeout(180)
  void measuresEngineAndBaseline_andReportsStatementsHotShareAndSizes() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PostgresBench.run(
        new PostgresBench.Options(300, 2, 10, 1, 600, 0, 100, 10, false),
        out,
        RunInfo.capture("smoke"),
        Machine.LOCAL,
        new PrintStream(printed, true, StandardCharsets.UTF_8));

    List<String> rows = ReportFiles.check(out, "postgres", HEADER, 3);
    for (String row : rows) {
      String[] c = ReportFiles.cells(row);
      assertTrue(Double.parseDouble(c[2]) > 0, "messages moved: " + row);
      assertTrue(Double.parseDouble(c[4]) > 0, "statements counted: " + row);
      // CPU times come from this machine's /proc, which may not show them: then "not measured"
      ReportFiles.measuredAbove(out, "postgres", HEADER, row, "client CPU µs/msg", 0);
      ReportFiles.measuredAbove(out, "postgres", HEADER, row, "server CPU µs/msg", 0);
      ReportFiles.measuredAbove(out, "postgres", HEADER, row, "load avg", -1);
    }
    String[] engine = ReportFiles.cells(rows.get(0));
    assertEquals("\"switchboard, 1 engine\"", engine[1]);
    assertTrue(Double.parseDouble(engine[6]) >= 1, "a lease per message: " + rows.get(0));
    assertTrue(Double.parseDouble(engine[7]) > 0.5, "leases are mostly HOT: " + rows.get(0));
    String[] base = ReportFiles.cells(rows.get(2));
    assertEquals("1.0", base[3], "the baseline is its own reference");

    List<String> sizes =
        ReportFiles.check(
            out,
            "postgres-soak",
            "table,when,total MB,heap MB,indexes MB",
            2 * (PostgresBench.SOAK_TABLES.size() + 1));
    assertTrue(sizes.get(0).startsWith("sb_message,right after its soak,"), sizes.get(0));
    assertTrue(
        sizes.get(PostgresBench.SOAK_TABLES.size()).startsWith("pgmq_soak,right after its soak,"),
        sizes.toString());
  }

  /**
   * Regression: on a machine where the PostgreSQL process tree cannot be read the server-CPU cell
   * was empty and the smoke test failed parsing it ("NumberFormatException: empty String"). What
   * the machine cannot give is now reported as not measured, and the benchmark's own figures are
   * still there.
   */
  @Test
  @Timeout(120)
  void unmeasurableServerCpu_isReportedAsNotMeasured_andTheSmokeCheckAcceptsIt() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PostgresBench.run(
        new PostgresBench.Options(100, 1, 10, 1, 0, 0, 100, 10, false),
        out,
        RunInfo.capture("smoke", Machine.UNMEASURABLE),
        Machine.UNMEASURABLE,
        new PrintStream(printed, true, StandardCharsets.UTF_8));

    List<String> rows = ReportFiles.check(out, "postgres", HEADER, 3);
    for (String row : rows) {
      String[] c = ReportFiles.cells(row);
      assertTrue(Double.parseDouble(c[2]) > 0, "messages moved: " + row);
      assertTrue(Double.parseDouble(c[4]) > 0, "statements counted: " + row);
      assertEquals(List.of("", "", ""), List.of(c[8], c[9], c[10]), "not measured: " + row);
      ReportFiles.measuredAbove(out, "postgres", HEADER, row, "client CPU µs/msg", 0);
      ReportFiles.measuredAbove(out, "postgres", HEADER, row, "server CPU µs/msg", 0);
      ReportFiles.measuredAbove(out, "postgres", HEADER, row, "load avg", -1);
    }
    String csv = Files.readString(out.resolve("postgres.csv"));
    assertTrue(
        csv.contains("# note: not measured: server CPU µs/msg: no CPU time for the PostgreSQL"),
        csv);
    assertTrue(csv.contains("# load_average: n/a"), csv);
    String table = printed.toString(StandardCharsets.UTF_8);
    assertTrue(table.contains("| n/a | n/a | n/a |"), table);
    assertTrue(table.contains("note: not measured: server CPU µs/msg: "), table);
  }

  /**
   * The SQL experiments (docs/bench-history/postgresql.md) run in the same round as the baseline:
   * each variant moves every message (a variant whose ack misses a claimed message fails the run)
   * and is reported against the round's baseline.
   */
  @Test
  @Timeout(180)
  void alternatives_runInTheBaselinesRound_andEachMovesEveryMessage() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PostgresBench.run(
        new PostgresBench.Options(200, 1, 10, 1, 0, 0, 100, 10, true),
        out,
        RunInfo.capture("smoke"),
        Machine.LOCAL,
        new PrintStream(printed, true, StandardCharsets.UTF_8));

    int variants = Alternatives.Variant.values().length;
    List<String> rows = ReportFiles.check(out, "postgres", HEADER, 3 + variants);
    for (int i = 0; i < variants; i++) {
      String[] c = ReportFiles.cells(rows.get(3 + i));
      String label = Alternatives.Variant.values()[i].label;
      assertTrue(c[1].contains(label), label + " in " + rows.get(3 + i));
      assertTrue(Double.parseDouble(c[2]) > 0, "messages moved: " + rows.get(3 + i));
      assertTrue(Double.parseDouble(c[4]) > 0, "statements counted: " + rows.get(3 + i));
    }
  }

  @Test
  void badOptions_areRefusedNamingTheOptionAndTheValue() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> PostgresBench.Options.parse(new String[] {"--batch", "11"}));
    assertEquals("--batch must be an integer 1..10, got 11", e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> PostgresBench.Options.parse(new String[] {"--size", "1"}));
    assertTrue(e.getMessage().startsWith("unknown option --size"), e.getMessage());
  }
}
