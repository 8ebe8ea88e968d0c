package io.switchboard.bench.dynamodb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.bench.report.ReportFiles;
import io.switchboard.storage.dynamodb.MotoProcess;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
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
    // fifo: 2 modes, the engine on one shard and on 4; the three others with their seed
    List<String> rows = ReportFiles.check(out, "dynamodb", HEADER, 2 * 2 + 3 * 2 * 2);
    Set<String> targets = new HashSet<>();
    Map<String, Double> busiestFifoKey = new HashMap<>();
    double engineFifoWrites = 0;
    for (String row : rows) {
      String[] c = ReportFiles.cells(row);
      targets.add(c[0]);
      if (c[1].equals("fifo") && c[3].equals("single")) {
        busiestFifoKey.put(c[0], Double.parseDouble(c[14]));
        if (c[0].equals("switchboard")) {
          engineFifoWrites = Double.parseDouble(c[7]);
        }
      }
      assertEquals("3", c[5], row);
      assertTrue(Double.parseDouble(c[6]) >= 1, "a request or more per message: " + row);
      // every message is written once at least: one unit or more
      assertTrue(Double.parseDouble(c[7]) >= 1, "write units: " + row);
      assertTrue(Double.parseDouble(c[9]) > 0, "read units: " + row);
      assertTrue(Double.parseDouble(c[10]) > 0, "dollars: " + row);
    }
    assertEquals(
        Set.of("switchboard", DynamoBench.SHARDED, "seed 000", "seed 001", "seed 002"), targets);
    // 1,024-byte bodies stored compressed: a put, a claim and a delete of one unit each, and over
    // 3 messages the one-off writes (the serial block, the queue's priorities) add 2/3 a message
    assertEquals(3 + 2.0 / 3, engineFifoWrites, 0.01, "the engine's fifo single write units");
    // the sharded queue's messages spread over its keys: its busiest key takes a smaller share
    assertTrue(
        busiestFifoKey.get(DynamoBench.SHARDED) < busiestFifoKey.get("switchboard"),
        () -> "busiest key's share of the write units: " + busiestFifoKey);
  }
}
