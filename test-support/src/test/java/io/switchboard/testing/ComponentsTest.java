package io.switchboard.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ComponentsTest {

  record Sample(
      String text,
      int small,
      long big,
      boolean flag,
      Instant at,
      Duration delay,
      ChronoUnit unit,
      Optional<String> present,
      Optional<Instant> absent,
      List<String> other) {}

  private static final Sample BASE =
      new Sample(
          "a",
          1,
          2L,
          false,
          Instant.EPOCH,
          Duration.ZERO,
          ChronoUnit.DAYS,
          Optional.of("p"),
          Optional.empty(),
          List.of("x"));

  @Test
  void eachCopy_differsFromTheBase_inItsOwnComponentOnly() throws Exception {
    Map<String, Sample> copies =
        Components.eachChanged(
            BASE,
            (type, value) ->
                value instanceof List<?>
                    ? List.of("y")
                    : type == Instant.class ? Instant.MAX : null);
    RecordComponent[] components = Sample.class.getRecordComponents();
    assertEquals(components.length, copies.size());
    for (RecordComponent c : components) {
      Sample copy = copies.get(c.getName());
      for (RecordComponent d : components) {
        Object was = d.getAccessor().invoke(BASE);
        Object is = d.getAccessor().invoke(copy);
        assertEquals(c == d, !was.equals(is), c.getName() + " changed, " + d.getName() + " read");
      }
    }
    assertEquals(Optional.of("p~"), copies.get("present").present());
    assertEquals(Optional.of(Instant.MAX), copies.get("absent").absent());
    assertEquals(ChronoUnit.WEEKS, copies.get("unit").unit());
  }

  @Test
  void aTypeWithNoChangedValue_isRefused_namingTheType() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> Components.eachChanged(BASE, (t, v) -> null));
    assertTrue(e.getMessage().contains("no changed value"), e.getMessage());
  }

  @Test
  void aChangedValueEqualToTheOriginal_isRefused_namingTheComponent() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Components.eachChanged(BASE, (t, v) -> v instanceof List<?> ? v : Instant.MAX));
    assertTrue(e.getMessage().startsWith("other:"), e.getMessage());
  }
}
