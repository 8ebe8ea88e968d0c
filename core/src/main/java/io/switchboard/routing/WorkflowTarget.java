package io.switchboard.routing;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One step of a workflow filter: where a contact waits, and for how long.
 *
 * @param queue the task queue it waits in (its worker expression, order and statistics apply)
 * @param expression an extra worker expression, ANDed with the queue's; it may refer to the
 *     contact's attributes as {@code contact.<name>} ({@code docs/selectors.md}); empty for none
 * @param priority the contact's priority while in this target, -1000..1000; empty to keep it
 * @param timeout how long the contact waits in this target before it moves to the next, 1 ms..7
 *     days; required on every target but the last, refused on the last (which waits until matched;
 *     give the contact a {@code maxWait} to bound that)
 * @param skipIfNoneAvailable move on to the next target at once if no agent the target admits can
 *     take the contact when it enters; not on the last target
 */
public record WorkflowTarget(
    String queue,
    Optional<String> expression,
    Optional<Integer> priority,
    Optional<Duration> timeout,
    boolean skipIfNoneAvailable) {

  public WorkflowTarget {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(expression, "expression");
    Objects.requireNonNull(priority, "priority");
    Objects.requireNonNull(timeout, "timeout");
  }

  /** A target waiting in {@code queue} with no extra expression, until matched. */
  public static WorkflowTarget queue(String queue) {
    return new WorkflowTarget(queue, Optional.empty(), Optional.empty(), Optional.empty(), false);
  }

  public WorkflowTarget withExpression(String expression) {
    return new WorkflowTarget(
        queue, Optional.of(expression), priority, timeout, skipIfNoneAvailable);
  }

  public WorkflowTarget withTimeout(Duration timeout) {
    return new WorkflowTarget(
        queue, expression, priority, Optional.of(timeout), skipIfNoneAvailable);
  }

  public WorkflowTarget withPriority(int priority) {
    return new WorkflowTarget(
        queue, expression, Optional.of(priority), timeout, skipIfNoneAvailable);
  }

  public WorkflowTarget skippingIfNoneAvailable() {
    return new WorkflowTarget(queue, expression, priority, timeout, true);
  }

  /** Checks the target as the {@code index}-th of {@code count} in {@code where}. */
  void check(String where, int index, int count) {
    String field = where + ".targets[" + index + "]";
    Checks.channel(field + ".queue", queue);
    expression.ifPresent(e -> ContactReferences.check(field + ".expression", e));
    priority.ifPresent(
        p -> Checks.range(field + ".priority", p, Checks.MIN_PRIORITY, Checks.MAX_PRIORITY));
    boolean last = index == count - 1;
    if (last) {
      if (timeout.isPresent()) {
        throw RoutingException.invalid(
            field
                + ".timeout: the last target waits until the contact is matched, got a timeout of "
                + Checks.show(timeout.get())
                + "; bound the wait with the contact's maxWait instead");
      }
      if (skipIfNoneAvailable) {
        throw RoutingException.invalid(
            field + ".skipIfNoneAvailable: the last target has no target to skip to");
      }
    } else {
      if (timeout.isEmpty()) {
        throw RoutingException.invalid(
            field + ".timeout is required on every target but the last (1 ms..7 days)");
      }
      Checks.duration(
          field + ".timeout", timeout.get(), Duration.ofMillis(1), Checks.MAX_CONTACT_TIME);
    }
  }
}
