package io.switchboard.selector;

import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where a selector reads the values of the identifiers it names: message attributes, agent
 * attributes, and the {@link SystemFacts system facts} the caller binds.
 *
 * <p>Values are {@link String}, any {@link Number} (compared exactly, whatever its class), {@link
 * Boolean}, or a {@link java.util.List} of strings (skills, languages). Anything else is a type
 * mismatch for every operator except {@code IS NULL}.
 */
@FunctionalInterface
public interface Attributes {

  /**
   * The value of {@code name}, or {@code null} when there is none. The one deliberate {@code null}
   * of this API: evaluation sits on the hot path of every receive and every match, and an {@code
   * Optional} per lookup would allocate.
   */
  @Nullable Object valueOrNull(String name);

  /** A view of {@code map}; later changes to the map are seen. */
  static Attributes of(Map<String, ?> map) {
    Objects.requireNonNull(map, "map");
    return map::get;
  }
}
