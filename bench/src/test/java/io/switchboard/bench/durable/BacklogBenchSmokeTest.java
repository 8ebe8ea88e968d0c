package io.switchboard.bench.durable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.bench.report.ReportFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@link BacklogBench} tiny so that the {@code backlog} entry cannot rot: a server in its own
 * JVM with a window of 50, 2,000 messages of 100 bytes in one queue indexing one attribute, two
 * steady rounds of 100 in FIFO and again after a change to LIFO, five filtered receives, a restart,
 * then 2,000 again over 4 queues. Checks only that every figure is there and that no message was
 * refused for good; the real figures are in docs/benchmarks.md, "Backlog on disk".
 */
class BacklogBenchSmokeTest {

  @TempDir Path dir;
  @TempDir Path out;

  @Test
  void tiny_reportsEveryFigure_andTakesEveryMessage() throws Exception {
    BacklogBench.main(
        new String[] {
          "--messages",
          "2000",
          "--queues",
          "4",
          "--body",
          "100",
          "--heap",
          "256m",
          "--window",
          "50",
          "--threads",
          "2",
          "--rounds",
          "2",
          "--step",
          "100",
          "--filtered",
          "--filter-rounds",
          "5",
          "--then-lifo",
          "--dir",
          dir.toString(),
          "--out",
          out.toString()
        });
    // a table of figures, not a chart: the CSV only (ReportFiles.check also wants a chart)
    List<String> lines = Files.readAllLines(out.resolve("backlog.csv"));
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("# commit: ")), "the run's header");
    List<String> table = lines.stream().filter(l -> !l.startsWith("# ")).toList();
    assertEquals("figure,value", table.get(0));
    List<String> rows = table.subList(1, table.size());
    // 12 of the fill, 13 of each steady phase (FIFO, then LIFO), 3 filtered, 3 of the restart, 6
    // of the 4 queues
    assertEquals(50, rows.size(), String.join("\n", rows));
    for (String row : rows) {
      assertEquals(2, ReportFiles.cells(row).length, row);
    }
    assertTrue(
        rows.get(0).startsWith("\"restart to /health 200 with an empty store"),
        "the empty store's restart comes first: " + rows.get(0));
    assertTrue(rows.contains("messages in one queue,2000"), String.join("\n", rows));
    assertTrue(
        rows.contains("messages over 4 queues (of 2000 sent),2000"),
        "every message over the 4 queues was taken: " + rows);
  }
}
