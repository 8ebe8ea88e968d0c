package io.switchboard.routing.spi;

import io.switchboard.routing.ContactState;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A contact as stored, live or finished. Requirements are kept in their normalized selector text
 * and parsed again on recovery.
 *
 * @param seq arrival order; with the priority, the contact's place in line
 * @param deadline clock millis of the maximum wait, {@code Long.MAX_VALUE} for none
 * @param requirement the requirement in force (after {@code step} escalation steps)
 * @param agentId the agent offered, assigned or in wrap-up with the contact, or that completed it
 * @param reservationId the pending or accepted reservation
 * @param answeredAt clock millis of the accept, -1 if none
 * @param endedAt clock millis the contact finished, -1 if it has not
 * @param wrapUpUntil clock millis the wrap-up ends, -1 if not in wrap-up
 * @param timerSeq the timer order number of the first escalation step (the next steps and the
 *     maximum wait follow it)
 * @param wrapUpTimerSeq the timer order number of the wrap-up's end
 * @param retireSeq the order in which the contact finished, 0 while live
 * @param queue the task queue it was routed through, if any
 * @param workflow the workflow that routed it, if any
 */
public record StoredContact(
    String id,
    String channel,
    Map<String, Object> attributes,
    int priority,
    long seq,
    long createdAt,
    List<Step> steps,
    long deadline,
    Optional<String> requirement,
    int step,
    ContactState state,
    Optional<String> agentId,
    Optional<String> reservationId,
    long answeredAt,
    long endedAt,
    long wrapUpUntil,
    long timerSeq,
    long wrapUpTimerSeq,
    long retireSeq,
    Optional<String> queue,
    Optional<String> workflow) {

  /**
   * A builder of a queued contact with no optional parts: no attributes, steps, requirement, agent,
   * reservation, queue or workflow; priority, arrival order, creation time, step and timer order
   * numbers 0; no maximum wait ({@code Long.MAX_VALUE}); not answered, ended or in wrap-up (-1).
   */
  public static Builder builder(String id, String channel) {
    return new Builder(id, channel);
  }

  /** Builds a {@link StoredContact}; each setter sets the component of its name. */
  public static final class Builder {
    private final String id;
    private final String channel;
    private Map<String, Object> attributes = Map.of();
    private int priority;
    private long seq;
    private long createdAt;
    private List<Step> steps = List.of();
    private long deadline = Long.MAX_VALUE;
    private Optional<String> requirement = Optional.empty();
    private int step;
    private ContactState state = ContactState.QUEUED;
    private Optional<String> agentId = Optional.empty();
    private Optional<String> reservationId = Optional.empty();
    private long answeredAt = -1;
    private long endedAt = -1;
    private long wrapUpUntil = -1;
    private long timerSeq;
    private long wrapUpTimerSeq;
    private long retireSeq;
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

    public Builder priority(int priority) {
      this.priority = priority;
      return this;
    }

    public Builder seq(long seq) {
      this.seq = seq;
      return this;
    }

    public Builder createdAt(long createdAt) {
      this.createdAt = createdAt;
      return this;
    }

    public Builder steps(List<Step> steps) {
      this.steps = Objects.requireNonNull(steps, "steps");
      return this;
    }

    public Builder deadline(long deadline) {
      this.deadline = deadline;
      return this;
    }

    public Builder requirement(Optional<String> requirement) {
      this.requirement = Objects.requireNonNull(requirement, "requirement");
      return this;
    }

    public Builder step(int step) {
      this.step = step;
      return this;
    }

    public Builder state(ContactState state) {
      this.state = Objects.requireNonNull(state, "state");
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

    public Builder answeredAt(long answeredAt) {
      this.answeredAt = answeredAt;
      return this;
    }

    public Builder endedAt(long endedAt) {
      this.endedAt = endedAt;
      return this;
    }

    public Builder wrapUpUntil(long wrapUpUntil) {
      this.wrapUpUntil = wrapUpUntil;
      return this;
    }

    public Builder timerSeq(long timerSeq) {
      this.timerSeq = timerSeq;
      return this;
    }

    public Builder wrapUpTimerSeq(long wrapUpTimerSeq) {
      this.wrapUpTimerSeq = wrapUpTimerSeq;
      return this;
    }

    public Builder retireSeq(long retireSeq) {
      this.retireSeq = retireSeq;
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

    public StoredContact build() {
      return new StoredContact(
          id,
          channel,
          attributes,
          priority,
          seq,
          createdAt,
          steps,
          deadline,
          requirement,
          step,
          state,
          agentId,
          reservationId,
          answeredAt,
          endedAt,
          wrapUpUntil,
          timerSeq,
          wrapUpTimerSeq,
          retireSeq,
          queue,
          workflow);
    }
  }

  /**
   * An escalation step: after {@code afterMillis} from arrival, this requirement (none: any), and
   * (a workflow's target) this task queue and priority, and whether to skip it at once when no
   * agent takes the contact on entry.
   */
  public record Step(
      long afterMillis,
      Optional<String> requirement,
      Optional<String> queue,
      Optional<Integer> priority,
      boolean skipIfNoneAvailable) {

    /** A step that changes the requirement only. */
    public Step(long afterMillis, Optional<String> requirement) {
      this(afterMillis, requirement, Optional.empty(), Optional.empty(), false);
    }
  }
}
