package io.switchboard.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link LongObjectMap} against a {@link HashMap} under seeded random puts and removals. */
class LongObjectMapTest {

  @Test
  void randomPutsAndRemovals_agreeWithAHashMap() {
    Random random = new Random(7);
    LongObjectMap<String> map = new LongObjectMap<>();
    Map<Long, String> ref = new HashMap<>();
    for (int step = 0; step < 200_000; step++) {
      // few distinct keys so that probe runs collide, grow and shrink
      long key = 1 + random.nextInt(step < 100_000 ? 5_000 : 50);
      if (random.nextInt(3) == 0) {
        assertEquals(ref.remove(key), map.remove(key), "remove " + key);
      } else {
        String value = "v" + step;
        ref.put(key, value);
        map.put(key, value);
      }
      assertEquals(ref.size(), map.size());
      long probe = 1 + random.nextInt(5_000);
      assertEquals(ref.get(probe), map.get(probe), "get " + probe);
    }
  }

  @Test
  void keyZeroIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new LongObjectMap<String>().put(0, "x"));
  }
}
