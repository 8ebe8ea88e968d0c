package io.switchboard.routing.spi;

import io.switchboard.routing.ContactState;
import java.util.List;
import java.util.Map;
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

  /** A contact routed by no workflow. */
  public StoredContact(
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
      Optional<String> queue) {
    this(
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
        Optional.empty());
  }

  /** A contact routed through no task queue. */
  public StoredContact(
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
      long retireSeq) {
    this(
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
        Optional.empty(),
        Optional.empty());
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
