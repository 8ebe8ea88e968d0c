package io.switchboard.routing;

import java.util.List;
import java.util.Objects;

/**
 * A workflow filter: the contacts whose attributes its expression matches wait in its targets, in
 * order.
 *
 * @param name {@code [A-Za-z0-9_-]}, 1..64 characters, unique in its workflow
 * @param expression a selector over the contact's attributes ({@code docs/selectors.md})
 * @param targets 1..{@value Workflow#MAX_TARGETS} targets, tried in order
 */
public record WorkflowFilter(String name, String expression, List<WorkflowTarget> targets) {

  public WorkflowFilter {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(expression, "expression");
    targets = List.copyOf(targets);
  }
}
