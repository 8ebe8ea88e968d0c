package io.switchboard.bench.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.bench.report.Report;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Runs {@link CapsBench} tiny, so that it keeps compiling and running. */
class CapsBenchSmokeTest {

  @Test
  void capsBench_tiny_reportsEachScenario() throws Exception {
    try (Socket s = new Socket()) {
      s.bind(new InetSocketAddress("127.0.0.2", 0));
    } catch (java.io.IOException e) {
      Assumptions.abort("127.0.0.2 is not a loopback address here");
    }
    Report r = CapsBench.run(20, 10, 20);
    assertEquals(3, r.rows().size());
    assertEquals(20, ((Number) r.rows().get(1)[2]).intValue(), "idle connections held");
    assertEquals(11, ((Number) r.rows().get(2)[2]).intValue(), "streams held (all, under the cap)");
    assertTrue(((Number) r.rows().get(0)[5]).doubleValue() > 0, "a send p99");
  }
}
