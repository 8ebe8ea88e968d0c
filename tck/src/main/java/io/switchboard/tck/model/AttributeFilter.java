package io.switchboard.tck.model;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.MessageFilter;
import io.switchboard.queue.SelectorFilter;
import java.math.BigDecimal;
import java.util.Map;

/**
 * A receive or browse filter the driver can hand to both sides: to the engine as a {@link
 * MessageFilter}, to the model over its plain attribute map. A missing attribute or a type mismatch
 * never matches.
 */
public record AttributeFilter(Kind kind, String name, String value) {

  /** The predicates the randomized test draws from. */
  public enum Kind {
    EQUALS,
    NOT_EQUALS,
    LESS_THAN,
    HAS,
    PRIORITY_AT_LEAST
  }

  public MessageFilter toEngine() {
    return view -> test(view.attributes(), view.priority());
  }

  /**
   * As {@link #toEngine()}, or with {@code selector}, as the selector with the same meaning where
   * there is one ({@code =}, {@code <}, {@code HAS}: the kinds an attribute index answers), so an
   * engine that indexes the attribute answers it from its partitions.
   */
  public MessageFilter toEngine(boolean selector) {
    if (!selector) {
      return toEngine();
    }
    return switch (kind) {
      case EQUALS -> SelectorFilter.parse(name + " = '" + value + "'");
      case LESS_THAN -> SelectorFilter.parse(name + " < " + value);
      case HAS -> SelectorFilter.parse(name + " HAS '" + value + "'");
      case NOT_EQUALS, PRIORITY_AT_LEAST -> toEngine();
    };
  }

  boolean test(Map<String, AttributeValue> attributes, int priority) {
    if (kind == Kind.PRIORITY_AT_LEAST) {
      return priority >= Integer.parseInt(value);
    }
    AttributeValue v = attributes.get(name);
    return switch (kind) {
      case EQUALS -> v instanceof AttributeValue.StringValue s && s.value().equals(value);
      case NOT_EQUALS -> v instanceof AttributeValue.StringValue s && !s.value().equals(value);
      case LESS_THAN ->
          v instanceof AttributeValue.NumberValue n
              && n.decimal().compareTo(new BigDecimal(value)) < 0;
      case HAS -> v instanceof AttributeValue.StringListValue l && l.value().contains(value);
      case PRIORITY_AT_LEAST -> throw new AssertionError("handled above");
    };
  }

  @Override
  public String toString() {
    return kind == Kind.PRIORITY_AT_LEAST
        ? "priority >= " + value
        : name + " " + kind.name().toLowerCase(java.util.Locale.ROOT) + " " + value;
  }
}
