package io.switchboard.routing;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One escalation step of a contact: once the contact has existed for {@code after}, its
 * requirements become {@code requirements} (empty: any agent). The contact keeps its place in the
 * order (priority, then arrival). A workflow's targets after the first are escalation steps that
 * also move the contact to another task queue and may set its priority ({@link Workflow}).
 *
 * @param after time since the contact was created (or since a workflow routed it again), 1 ms..7
 *     days
 * @param requirements the new requirement selector, or empty for any agent
 * @param queue the task queue the contact moves to; empty to stay where it is
 * @param priority the contact's new priority, -1000..1000; empty to keep it
 * @param skipIfNoneAvailable apply the next step at once if no agent takes the contact on entry
 */
public record Escalation(
    Duration after,
    Optional<String> requirements,
    Optional<String> queue,
    Optional<Integer> priority,
    boolean skipIfNoneAvailable) {

  public Escalation {
    Objects.requireNonNull(after, "after");
    Objects.requireNonNull(requirements, "requirements");
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(priority, "priority");
  }

  /** A step that changes the requirements only. */
  public Escalation(Duration after, Optional<String> requirements) {
    this(after, requirements, Optional.empty(), Optional.empty(), false);
  }

  public static Escalation after(Duration after, String requirements) {
    return new Escalation(after, Optional.of(requirements));
  }

  public static Escalation toAnyAgentAfter(Duration after) {
    return new Escalation(after, Optional.empty());
  }
}
