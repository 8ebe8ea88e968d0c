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

  /**
   * A builder of a queued contact created at the epoch with no optional parts: no attributes,
   * requirements, agent, reservation, answer, end, queue or workflow; escalation step and priority
   * 0.
   */
  public static Builder builder(String id, String channel) {
    return new Builder(id, channel);
  }

  /** Builds a {@link Contact}; each setter sets the component of its name. */
  public static final class Builder {
    private final String id;
    private final String channel;
    private Map<String, Object> attributes = Map.of();
    private Optional<String> requirements = Optional.empty();
    private int escalationStep;
    private int priority;
    private ContactState state = ContactState.QUEUED;
    private Instant createdAt = Instant.EPOCH;
    private Optional<String> agentId = Optional.empty();
    private Optional<String> reservationId = Optional.empty();
    private Optional<Instant> answeredAt = Optional.empty();
    private Optional<Instant> endedAt = Optional.empty();
    private Optional<String> queue = Optional.empty();
    private Optional<String> workflow = Optional.empty();

    private Builder(String id, String channel) {
      this.id = Objects.requireNonNull(id, "id");
      this.channel = Objects.requireNonNull(channel, "channel");
    }

    public Builder attributes(Map<String, Object> attributes) {
      this.attributes = Objects.requireNonNull(attributes, "attributes");
      return this;
    }

    public Builder requirements(Optional<String> requirements) {
      this.requirements = Objects.requireNonNull(requirements, "requirements");
      return this;
    }

    public Builder escalationStep(int escalationStep) {
      this.escalationStep = escalationStep;
      return this;
    }

    public Builder priority(int priority) {
      this.priority = priority;
      return this;
    }

    public Builder state(ContactState state) {
      this.state = Objects.requireNonNull(state, "state");
      return this;
    }

    public Builder createdAt(Instant createdAt) {
      this.createdAt = Objects.requireNonNull(createdAt, "createdAt");
      return this;
    }

    public Builder agentId(Optional<String> agentId) {
      this.agentId = Objects.requireNonNull(agentId, "agentId");
      return this;
    }

    public Builder reservationId(Optional<String> reservationId) {
      this.reservationId = Objects.requireNonNull(reservationId, "reservationId");
      return this;
    }

    public Builder answeredAt(Optional<Instant> answeredAt) {
      this.answeredAt = Objects.requireNonNull(answeredAt, "answeredAt");
      return this;
    }

    public Builder endedAt(Optional<Instant> endedAt) {
      this.endedAt = Objects.requireNonNull(endedAt, "endedAt");
      return this;
    }

    public Builder queue(Optional<String> queue) {
      this.queue = Objects.requireNonNull(queue, "queue");
      return this;
    }

    public Builder workflow(Optional<String> workflow) {
      this.workflow = Objects.requireNonNull(workflow, "workflow");
      return this;
    }

    public Contact build() {
      return new Contact(
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
          workflow);
    }
  }
}
