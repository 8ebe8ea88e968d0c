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
 * Runs {@link ColdFilterBench} tiny so that the {@code backlog-filtered} entry cannot rot: two
 * depths behind a window of 16, 20 filtered receives each. Checks that every figure is there and
 * that the queue's heap did not grow with the cold backlog (the queue stayed windowed); the real
 * figures are in docs/benchmarks.md, "Backlog on disk".
 */
class ColdFilterBenchSmokeTest {

  @TempDir Path dir;
  @TempDir Path out;

  @Test
  void tiny_reportsEveryFigure_andTheHeapDoesNotFollowTheDepth() throws Exception {
    ColdFilterBench.main(
        new String[] {
          "--depths", "300,3000",
          "--window", "16",
          "--body", "256",
          "--rounds", "20",
          "--dir", dir.toString(),
          "--out", out.toString()
        });
    List<String> lines = Files.readAllLines(out.resolve("backlog-filtered.csv"));
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("# commit: ")), "the run's header");
    List<String> table = lines.stream().filter(l -> !l.startsWith("# ")).toList();
    assertEquals("figure,value", table.get(0));
    List<String> rows = table.subList(1, table.size());
    assertEquals(7, rows.size(), String.join("\n", rows));
    long shallow = heapKiB(rows, 300);
    long deep = heapKiB(rows, 3000);
    // 2,700 more cold messages of 256 bytes would be ~675 KiB more if the filter pinned the queue
    assertTrue(
        deep < shallow + 100,
        "the queue stays windowed: " + shallow + " KiB at 300, " + deep + " KiB at 3000");
  }

  private static long heapKiB(List<String> rows, long depth) {
    String label = "server heap of the queue at depth " + depth + " (queued bytes, KiB)";
    return rows.stream()
        .map(ReportFiles::cells)
        .filter(c -> c[0].replace("\"", "").equals(label))
        .mapToLong(c -> Long.parseLong(c[1]))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no row " + label + " in " + rows));
  }
}
