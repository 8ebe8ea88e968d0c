package io.switchboard.bench.dynamodb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.bench.report.ReportFiles;
import io.switchboard.storage.dynamodb.MotoProcess;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@link DynamoBench} tiny on moto, every pattern and mode, the steady shape (the backlog
 * shape drives the same calls in another order): every case takes each message once (the bench
 * checks) and reports units for it. Skipped, loudly, where Python 3 cannot import moto.
 */
class DynamoBenchSmokeTest {

  private static final String HEADER = String.join(",", DynamoBench.COLUMNS);

  @Test
  void everyCase_everyTarget_reportsItsUnits(@TempDir Path out) throws Exception {
    String why = MotoProcess.unavailable();
    if (why != null) {
      System.err.println("!!!!! " + why + ": DynamoBenchSmokeTest SKIPPED !!!!!");
    }
    Assumptions.assumeTrue(why == null, why);
    DynamoBench.main(
        new String[] {"--messages", "3", "--shapes", "steady", "--out", out.toString()});
    // fifo: 2 modes, the engine alone; the three others with their seed
    List<String> rows = ReportFiles.check(out, "dynamodb", HEADER, 2 + 3 * 2 * 2);
    Set<String> targets = new HashSet<>();
    for (String row : rows) {
      String[] c = ReportFiles.cells(row);
      targets.add(c[0]);
      assertEquals("3", c[5], row);
      assertTrue(Double.parseDouble(c[6]) >= 1, "a request or more per message: " + row);
      // every message is written once at least: one unit or more
      assertTrue(Double.parseDouble(c[7]) >= 1, "write units: " + row);
      assertTrue(Double.parseDouble(c[9]) > 0, "read units: " + row);
      assertTrue(Double.parseDouble(c[10]) > 0, "dollars: " + row);
    }
    assertEquals(Set.of("switchboard", "seed 000", "seed 001", "seed 002"), targets);
  }
}
