package io.switchboard.routing;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A snapshot of a contact.
 *
 * @param id the contact id
 * @param channel the channel it needs an agent on
 * @param attributes facts about the contact
 * @param requirements the current requirement selector in normalized form, or empty for any agent
 * @param escalationStep how many escalation steps have applied (0: the original requirements)
 * @param priority higher is served first
 * @param state where the contact is in its life
 * @param createdAt when it arrived; with the priority it fixes the contact's place in line
 * @param agentId the agent it is offered or assigned to (kept once it completed); empty while it
 *     waits
 * @param reservationId the reservation that offered it to that agent
 * @param answeredAt when an agent accepted it
 * @param endedAt when it completed, was abandoned or timed out
 * @param queue the workspace task queue it was routed through (or, for a workflow's contact, the
 *     queue of the target it is in), if any
 * @param workflow the workflow that routed it, if any
 */
public record Contact(
    String id,
    String channel,
    Map<String, Object> attributes,
    Optional<String> requirements,
    int escalationStep,
    int priority,
    ContactState state,
    Instant createdAt,
    Optional<String> agentId,
    Optional<String> reservationId,
    Optional<Instant> answeredAt,
    Optional<Instant> endedAt,
    Optional<String> queue,
    Optional<String> workflow) {

  public Contact {
    attributes = Map.copyOf(attributes);
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(workflow, "workflow");
  }

  /** A contact routed by no workflow. */
  public Contact(
      String id,
      String channel,
      Map<String, Object> attributes,
      Optional<String> requirements,
      int escalationStep,
      int priority,
      ContactState state,
      Instant createdAt,
      Optional<String> agentId,
      Optional<String> reservationId,
      Optional<Instant> answeredAt,
      Optional<Instant> endedAt,
      Optional<String> queue) {
    this(
        id,
        channel,
        attributes,
        requirements,
        escalationStep,
        priority,
        state,
        createdAt,
        agentId,
        reservationId,
        answeredAt,
        endedAt,
        queue,
        Optional.empty());
  }

  /** A contact routed through no task queue. */
  public Contact(
      String id,
      String channel,
      Map<String, Object> attributes,
      Optional<String> requirements,
      int escalationStep,
      int priority,
      ContactState state,
      Instant createdAt,
      Optional<String> agentId,
      Optional<String> reservationId,
      Optional<Instant> answeredAt,
      Optional<Instant> endedAt) {
    this(
        id,
        channel,
        attributes,
        requirements,
        escalationStep,
        priority,
        state,
        createdAt,
        agentId,
        reservationId,
        answeredAt,
        endedAt,
        Optional.empty());
  }
}
