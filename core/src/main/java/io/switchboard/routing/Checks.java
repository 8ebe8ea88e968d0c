package io.switchboard.routing;

import io.switchboard.selector.Selector;
import io.switchboard.selector.SelectorException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** Input rules of the routing API, each failing with a message that names field, range, value. */
final class Checks {

  static final Pattern ID = Pattern.compile("[A-Za-z0-9_.:@-]{1,128}");
  static final Pattern CHANNEL = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.-]{0,255}");
  static final int MAX_ATTRIBUTES = 64;
  static final int MAX_LIST = 1000;
  static final int MAX_CAPACITY = 100;
  static final int MIN_PRIORITY = -1000;
  static final int MAX_PRIORITY = 1000;
  static final int MAX_ESCALATIONS = 16;
  static final int MAX_REASON = 256;
  static final Duration MAX_CONTACT_TIME = Duration.ofDays(7);
  static final Duration MAX_WRAP_UP = Duration.ofHours(1);

  private Checks() {}

  static String id(String field, String value) {
    Objects.requireNonNull(value, field);
    if (!isId(value)) {
      throw RoutingException.invalid(
          field + " must match " + ID.pattern() + ", got '" + clip(value) + "'");
    }
    return value;
  }

  static String channel(String field, String value) {
    Objects.requireNonNull(value, field);
    if (!isChannel(value)) {
      throw RoutingException.invalid(
          field + " must match " + CHANNEL.pattern() + ", got '" + clip(value) + "'");
    }
    return value;
  }

  /** {@link #ID} without a regular expression: checked on every call, so kept cheap. */
  static boolean isId(String value) {
    int n = value.length();
    if (n < 1 || n > 128) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      char c = value.charAt(i);
      if (!isWordChar(c) && c != '.' && c != ':' && c != '@') {
        return false;
      }
    }
    return true;
  }

  /** {@link #CHANNEL} without a regular expression. */
  static boolean isChannel(String value) {
    int n = value.length();
    if (n < 1 || n > 64) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      if (!isWordChar(value.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** {@code [A-Za-z0-9_-]}. */
  private static boolean isWordChar(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '_'
        || c == '-';
  }

  static int range(String field, int value, int min, int max) {
    if (value < min || value > max) {
      throw RoutingException.invalid(field + " must be " + min + ".." + max + ", got " + value);
    }
    return value;
  }

  /** Milliseconds of {@code value}, which must lie in {@code min..max}. */
  static long duration(String field, Duration value, Duration min, Duration max) {
    Objects.requireNonNull(value, field);
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw RoutingException.invalid(
          field + " must be " + show(min) + ".." + show(max) + ", got " + show(value));
    }
    return value.toMillis();
  }

  static Map<String, Integer> capacity(Map<String, Integer> capacity) {
    Objects.requireNonNull(capacity, "capacity");
    for (Map.Entry<String, Integer> e : capacity.entrySet()) {
      channel("capacity channel", e.getKey());
      range("capacity of channel '" + e.getKey() + "'", e.getValue(), 0, MAX_CAPACITY);
    }
    return Map.copyOf(capacity);
  }

  /** Parses a requirement; the error names the field and keeps the selector's column. */
  static Selector requirement(String field, String text) {
    try {
      return Selector.parse(text);
    } catch (SelectorException e) {
      throw new RoutingException(
          RoutingErrorCode.INVALID_SELECTOR, field + ": " + e.getMessage(), e);
    }
  }

  /**
   * An immutable copy of attributes, checked: names as in selectors, values strings, finite
   * numbers, booleans or lists of strings.
   */
  static Map<String, Object> copyAttributes(Map<String, ?> attributes) {
    Objects.requireNonNull(attributes, "attributes");
    if (attributes.size() > MAX_ATTRIBUTES) {
      throw RoutingException.invalid(
          "attributes must be at most " + MAX_ATTRIBUTES + ", got " + attributes.size());
    }
    Map<String, Object> copy = new LinkedHashMap<>();
    for (Map.Entry<String, ?> e : attributes.entrySet()) {
      String name = Objects.requireNonNull(e.getKey(), "attribute name");
      if (!NAME.matcher(name).matches() || name.startsWith("sys.")) {
        throw RoutingException.invalid(
            "attribute name must match "
                + NAME.pattern()
                + " and not start with sys., got '"
                + clip(name)
                + "'");
      }
      copy.put(name, value(name, e.getValue()));
    }
    return Map.copyOf(copy);
  }

  private static Object value(String name, Object value) {
    return switch (value) {
      case null -> throw RoutingException.invalid("attribute '" + name + "' has no value");
      case String s -> s;
      case Boolean b -> b;
      case Double d when d.isNaN() || d.isInfinite() -> throw notFinite(name, d);
      case Float f when f.isNaN() || f.isInfinite() -> throw notFinite(name, f);
      case Integer i -> i;
      case Long l -> l;
      case Double d -> d;
      case Float f -> f;
      case Short s -> s;
      case Byte b -> b;
      case BigDecimal d -> d;
      case BigInteger i -> i;
      case Collection<?> list -> stringList(name, list);
      default ->
          throw RoutingException.invalid(
              "attribute '"
                  + name
                  + "' must be a string, number, boolean or list of strings, got "
                  + value.getClass().getSimpleName());
    };
  }

  private static List<String> stringList(String name, Collection<?> list) {
    if (list.size() > MAX_LIST) {
      throw RoutingException.invalid(
          "attribute '" + name + "' must have at most " + MAX_LIST + " items, got " + list.size());
    }
    for (Object item : list) {
      if (!(item instanceof String)) {
        throw RoutingException.invalid(
            "attribute '" + name + "' must be a list of strings, got an item " + item);
      }
    }
    @SuppressWarnings("unchecked")
    List<String> strings = List.copyOf((Collection<String>) list);
    return strings;
  }

  private static RoutingException notFinite(String name, Object value) {
    return RoutingException.invalid("attribute '" + name + "' must be finite, got " + value);
  }

  /** The value of a numeric attribute for ranking, or null when it is not a number. */
  static @Nullable BigDecimal number(@Nullable Object value) {
    return switch (value) {
      case null -> null;
      case BigDecimal d -> d;
      case BigInteger i -> new BigDecimal(i);
      case Double d -> new BigDecimal(d);
      case Float f -> new BigDecimal(f);
      case Number n -> BigDecimal.valueOf(n.longValue());
      default -> null;
    };
  }

  static String show(Duration d) {
    if (d.toMillis() % 1000 != 0) {
      return d.toMillis() + " ms";
    }
    long s = d.toSeconds();
    return s % 3600 == 0 && s != 0 ? (s / 3600) + " h" : s + " s";
  }

  private static String clip(String value) {
    return value.length() <= 64 ? value : value.substring(0, 64) + "...";
  }
}
