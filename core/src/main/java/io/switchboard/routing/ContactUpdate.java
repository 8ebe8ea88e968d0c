package io.switchboard.routing;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A change to a waiting contact ({@link Router#updateContact}): each part given replaces the
 * contact's, the others stay. Requirements given as an empty text mean any agent.
 *
 * @param priority the new priority, -1000..1000
 * @param attributes the new attributes (replacing all of them)
 * @param requirements the new requirements in force (a selector over agent attributes; empty: any)
 */
public record ContactUpdate(
    OptionalInt priority, Optional<Map<String, Object>> attributes, Optional<String> requirements) {

  public ContactUpdate {
    Objects.requireNonNull(priority, "priority");
    Objects.requireNonNull(attributes, "attributes");
    Objects.requireNonNull(requirements, "requirements");
  }

  /** Changes nothing; add parts with the {@code with...} methods. */
  public static ContactUpdate none() {
    return new ContactUpdate(OptionalInt.empty(), Optional.empty(), Optional.empty());
  }

  public ContactUpdate withPriority(int priority) {
    return new ContactUpdate(OptionalInt.of(priority), attributes, requirements);
  }

  public ContactUpdate withAttributes(Map<String, ?> attributes) {
    return new ContactUpdate(
        priority, Optional.of(Checks.copyAttributes(attributes)), requirements);
  }

  public ContactUpdate withRequirements(String requirements) {
    return new ContactUpdate(priority, attributes, Optional.of(requirements));
  }

  /** Whether the update changes nothing. */
  public boolean isEmpty() {
    return priority.isEmpty() && attributes.isEmpty() && requirements.isEmpty();
  }
}
