package io.switchboard.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

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

  /**
   * An empty map holds no arrays of its own (one per idle queue adds up: two maps per queue were
   * 450 bytes of a million idle queues' heap); its shared placeholder is never written, so one
   * map's puts, removals and clears are never seen by another.
   */
  @Test
  void emptyMaps_shareNoState_andStartWithoutArrays() {
    LongObjectMap<String> a = new LongObjectMap<>();
    LongObjectMap<String> b = new LongObjectMap<>();
    assertEquals("LongObjectMap[size=0, capacity=1]", b.toString(), "no arrays of its own");
    assertEquals(null, a.get(5));
    assertEquals(null, a.remove(5));
    a.put(5, "five");
    assertEquals("five", a.get(5));
    assertEquals(null, b.get(5));
    b.forEachValue(v -> fail("an empty map visits nothing, got " + v));
    a.clear();
    assertEquals(null, a.get(5));
    assertEquals("LongObjectMap[size=0, capacity=1]", a.toString(), "cleared, it gives them back");
    a.put(7, "seven");
    b.put(5, "cinq");
    assertEquals("seven", a.get(7));
    assertEquals(null, a.get(5));
    assertEquals("cinq", b.remove(5));
    assertEquals(0, b.size());
  }
}
