package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/**
 * Regression: once a queue had seen 100,000 distinct attribute names and values it stopped sharing
 * new ones for good (the intern map was full and never emptied). Shared values are now counted and
 * forgotten when their last message leaves, so sharing resumes as soon as there is room.
 */
class AttributeInterningStoppedAtLimitTest {

  private static Object[] attributes(String name, String value) {
    return new Object[] {name, AttributeValue.string(value)};
  }

  @Test
  void mapFull_newValueKeptUnshared_thenSharedOnceOldValuesLeave() {
    AttributeInterner interner = new AttributeInterner();
    Object[][] held = new Object[AttributeInterner.LIMIT / 2][];
    for (int i = 0; i < held.length; i++) {
      held[i] = attributes("k" + i, "v" + i);
      interner.hold(held[i]);
    }
    assertEquals(AttributeInterner.LIMIT, interner.size());

    Object[] first = attributes("late", "value");
    Object[] second = attributes("late", "value");
    interner.hold(first);
    interner.hold(second);
    assertNotSame(first[1], second[1], "nothing shared while full");

    for (Object[] a : held) {
      interner.release(a);
    }
    interner.release(first);
    interner.release(second);
    assertEquals(0, interner.size());

    Object[] third = attributes("late", "value");
    Object[] fourth = attributes("late", "value");
    interner.hold(third);
    interner.hold(fourth);
    assertSame(third[1], fourth[1], "sharing resumed");
    assertSame(third[0], fourth[0]);
    assertEquals(2, interner.size());
    interner.release(third);
    assertEquals(2, interner.size(), "still held by the fourth");
    interner.release(fourth);
    assertEquals(0, interner.size());
  }

  @Test
  void largeValue_neverShared_andNothingKept() {
    AttributeInterner interner = new AttributeInterner();
    String big = "x".repeat(100);
    Object[] a = attributes("k", big);
    Object[] b = attributes("k", big);
    interner.hold(a);
    interner.hold(b);
    assertNotSame(a[1], b[1]);
    assertEquals(1, interner.size()); // the name only
    interner.release(a);
    interner.release(b);
    assertEquals(0, interner.size());
  }
}
