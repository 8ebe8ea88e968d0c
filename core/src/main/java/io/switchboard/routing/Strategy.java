package io.switchboard.routing;

import java.util.Objects;

/**
 * How a new contact chooses among the eligible agents that match its requirements. Every strategy
 * breaks ties by longest idle, and then by who became idle first.
 */
public sealed interface Strategy {

  /** The agent idle the longest (the default; "longest available agent"). */
  static Strategy longestIdle() {
    return LongestIdle.INSTANCE;
  }

  /**
   * The agent with the smallest share of its capacity in use on the contact's channel ({@code load
   * / capacity}).
   */
  static Strategy leastOccupied() {
    return LeastOccupied.INSTANCE;
  }

  /**
   * The agent with the highest value of a numeric attribute, such as a proficiency. Agents without
   * a numeric value of it come after all agents that have one.
   */
  static Strategy highest(String attribute) {
    return new HighestAttribute(attribute);
  }

  /**
   * The strategy {@code text} names: {@code longest-idle}, {@code least-occupied} or {@code
   * highest:<attribute>} ({@link #text()}); INVALID_ARGUMENT naming {@code field} otherwise.
   */
  static Strategy parse(String field, String text) {
    String t = Objects.requireNonNull(text, field).trim();
    if (t.equals("longest-idle")) {
      return longestIdle();
    }
    if (t.equals("least-occupied")) {
      return leastOccupied();
    }
    if (t.startsWith("highest:")) {
      String attribute = t.substring("highest:".length());
      if (!Checks.NAME.matcher(attribute).matches()) {
        throw RoutingException.invalid(
            field + " attribute must match " + Checks.NAME.pattern() + ", got '" + attribute + "'");
      }
      return highest(attribute);
    }
    throw RoutingException.invalid(
        field + " must be longest-idle, least-occupied or highest:<attribute>, got '" + text + "'");
  }

  /** The name {@link #parse} reads. */
  default String text() {
    return switch (this) {
      case LongestIdle l -> "longest-idle";
      case LeastOccupied l -> "least-occupied";
      case HighestAttribute h -> "highest:" + h.attribute();
    };
  }

  /** Longest idle first. */
  enum LongestIdle implements Strategy {
    INSTANCE
  }

  /** Lowest load share first. */
  enum LeastOccupied implements Strategy {
    INSTANCE
  }

  /** Highest value of {@code attribute} first. */
  record HighestAttribute(String attribute) implements Strategy {
    public HighestAttribute {
      Objects.requireNonNull(attribute, "attribute");
      if (!Checks.NAME.matcher(attribute).matches()) {
        throw RoutingException.invalid(
            "strategy attribute must match " + Checks.NAME.pattern() + ", got '" + attribute + "'");
      }
    }
  }
}
