package io.switchboard.routing;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One escalation step of a contact: once the contact has existed for {@code after}, its
 * requirements become {@code requirements} (empty: any agent). The contact keeps its place in the
 * order (priority, then arrival).
 *
 * @param after time since the contact was created, 1 ms..7 days
 * @param requirements the new requirement selector, or empty for any agent
 */
public record Escalation(Duration after, Optional<String> requirements) {

  public Escalation {
    Objects.requireNonNull(after, "after");
    Objects.requireNonNull(requirements, "requirements");
  }

  public static Escalation after(Duration after, String requirements) {
    return new Escalation(after, Optional.of(requirements));
  }

  public static Escalation toAnyAgentAfter(Duration after) {
    return new Escalation(after, Optional.empty());
  }
}
