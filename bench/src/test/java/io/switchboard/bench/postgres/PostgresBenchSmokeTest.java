package io.switchboard.bench.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * Runs the PostgreSQL benchmark with tiny sizes on its embedded database: both engine set-ups, the
 * baseline and a small soak, and checks what it reports.
 */
class PostgresBenchSmokeTest {

  @TempDir Path out;

  @Test
  @Timeout(180)
  void measuresEngineAndBaseline_andReportsStatementsHotShareAndSizes() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PostgresBench.run(
        new PostgresBench.Options(300, 2, 10, 1, 600, 0, 100, 10),
        out,
        RunInfo.capture("smoke"),
        new PrintStream(printed, true, StandardCharsets.UTF_8));

    List<String> rows =
        ReportFiles.check(
            out,
            "postgres",
            "round,system,msg/s,× baseline,statements/msg,transactions/msg,updates/msg,HOT share,"
                + "client CPU µs/msg,server CPU µs/msg,load avg",
            3);
    for (String row : rows) {
      String[] c = row.split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)");
      assertTrue(Double.parseDouble(c[2]) > 0, "messages moved: " + row);
      assertTrue(Double.parseDouble(c[4]) > 0, "statements counted: " + row);
      assertTrue(Double.parseDouble(c[8]) > 0, "client CPU measured: " + row);
      assertTrue(Double.parseDouble(c[9]) > 0, "server CPU measured: " + row);
    }
    String[] engine = rows.get(0).split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)");
    assertEquals("\"switchboard, 1 engine\"", engine[1]);
    assertTrue(Double.parseDouble(engine[6]) >= 1, "a lease per message: " + rows.get(0));
    assertTrue(Double.parseDouble(engine[7]) > 0.5, "leases are mostly HOT: " + rows.get(0));
    String[] base = rows.get(2).split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)");
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
