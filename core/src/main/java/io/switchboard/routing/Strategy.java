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
