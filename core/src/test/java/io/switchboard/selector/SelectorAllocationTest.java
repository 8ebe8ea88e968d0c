package io.switchboard.selector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Evaluation sits on the hot path of every receive and every match, so it must not allocate. */
class SelectorAllocationTest {

  private static final int EVALUATIONS = 100_000;

  @Test
  void evaluate_everyOperatorOnEveryNumberClass_allocatesNothing() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assumeTrue(threads.isThreadAllocatedMemorySupported());
    threads.setThreadAllocatedMemoryEnabled(true);
    Selector selector =
        Selector.parse(
            "(l = 5 AND i <= 5.5 AND d > 0.1 AND bd BETWEEN 1 AND 10 AND l IN (1, 2, 5)"
                + " AND d IN (0.5, 5.5) AND s LIKE 'ab%d_' AND s IN ('x', 'abcde')"
                + " AND skills HAS ANY ('x', 'spanish') AND skills HAS ALL ('billing', 'spanish')"
                + " AND s <> 'x' AND t = TRUE AND NOT missing IS NOT NULL) OR missing = 1");
    Map<String, Object> map = new HashMap<>();
    map.put("l", 5L);
    map.put("i", 5);
    map.put("d", 5.5d);
    map.put("bd", new BigDecimal("5.0"));
    map.put("s", "abcde");
    map.put("t", true);
    map.put("skills", List.of("billing", "spanish"));
    Attributes attributes = Attributes.of(map);
    assertEquals(Truth.TRUE, selector.evaluate(attributes));
    for (int i = 0; i < EVALUATIONS; i++) { // warm up: let the JIT compile the path
      selector.evaluate(attributes);
    }

    long before = threads.getCurrentThreadAllocatedBytes();
    int matches = 0;
    for (int i = 0; i < EVALUATIONS; i++) {
      matches += selector.matches(attributes) ? 1 : 0;
    }
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;

    assertEquals(EVALUATIONS, matches);
    // A single boxed value per evaluation would be 1.6 MB; allow for the measurement itself.
    assertTrue(allocated < 64 * 1024, "allocated " + allocated + " bytes");
  }
}
