package io.switchboard.routing;

import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Parsed requirements by their text, so that the contacts of a contact center, which use a few
 * thousand distinct requirement texts over and over, are not parsed and compiled once each. A
 * bounded memo of a pure function: parsing is deterministic and a {@link Requirement} is immutable,
 * so sharing one between contacts, calls and threads changes nothing but the cost. The cache is
 * emptied when full (simple, and the common texts come back at once); texts longer than {@link
 * #MAX_TEXT} are parsed every time, so a few huge selectors cannot pin much memory. Errors are
 * never cached.
 */
final class Requirements {

  /** Texts kept: more than the distinct requirement sets of a large contact center. */
  static final int CAPACITY = 16_384;

  /** Characters kept, summed over the texts. */
  static final long MAX_CHARS = 1 << 20;

  /** Longer texts are not kept. */
  static final int MAX_TEXT = 512;

  private final ConcurrentHashMap<String, Requirement> byText = new ConcurrentHashMap<>();
  private final AtomicLong chars = new AtomicLong();

  /** The requirement {@code text} describes; fails with INVALID_SELECTOR naming {@code field}. */
  Requirement parse(String field, String text) {
    Requirement known = byText.get(text);
    if (known != null) {
      return known;
    }
    Requirement parsed = Requirement.of(Checks.requirement(field, text));
    if (text.length() <= MAX_TEXT) {
      if (byText.size() >= CAPACITY || chars.get() + text.length() > MAX_CHARS) {
        byText.clear();
        chars.set(0);
      }
      if (byText.putIfAbsent(text, parsed) == null) {
        chars.addAndGet(text.length());
      }
    }
    return parsed;
  }

  /** {@link Requirement#ANY} when {@code text} is empty. */
  Requirement parse(String field, Optional<String> text) {
    return text.isEmpty() ? Requirement.ANY : parse(field, text.get());
  }
}
