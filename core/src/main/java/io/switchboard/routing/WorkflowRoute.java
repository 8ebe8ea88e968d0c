package io.switchboard.routing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A workflow applied to one contact: the filter its attributes choose, turned into what the router
 * runs. The first target becomes the contact's requirement, queue and priority, each later target
 * an {@link Escalation} step due when the targets before it have timed out (counted from the moment
 * the contact enters the workflow), so the router's escalation timers, recovery and event log carry
 * the widening; a preferred agent comes first, as a stage of its own.
 */
final class WorkflowRoute {

  /** The reserved agent attribute holding the agent's id ({@code docs/selectors.md}). */
  static final String AGENT_ID = "sys.agentId";

  private WorkflowRoute() {}

  /** One stage: a requirement in a queue, for a time. */
  private record Stage(
      String queue,
      Optional<String> requirement,
      Optional<Integer> priority,
      Optional<Duration> timeout,
      boolean skip) {}

  /**
   * {@code contact} routed by {@code workflow} of {@code d}: its requirements, queue, priority and
   * escalation steps. A contact routed by a workflow gives neither requirements nor escalations of
   * its own (INVALID_ARGUMENT): its targets set them.
   */
  static NewContact route(WorkspaceDefinition d, Workflow workflow, NewContact contact) {
    String where = "contact '" + contact.id() + "' routed by workflow '" + workflow.name() + "'";
    if (contact.requirements().isPresent()) {
      throw RoutingException.invalid(
          where
              + " takes its requirements from the workflow's targets; give no 'requirements'"
              + " (put them in a target's expression)");
    }
    if (!contact.escalations().isEmpty()) {
      throw RoutingException.invalid(
          where
              + " takes its escalation from the workflow's targets; give no 'escalations'"
              + " (use target timeouts)");
    }
    List<Stage> stages = stages(d, workflow, contact.attributes());
    Stage first = stages.get(0);
    List<Escalation> steps = new ArrayList<>(stages.size() - 1);
    long after = 0;
    for (int i = 1; i < stages.size(); i++) {
      after += stages.get(i - 1).timeout().orElseThrow().toMillis();
      Stage s = stages.get(i);
      steps.add(
          new Escalation(
              Duration.ofMillis(after),
              s.requirement(),
              Optional.of(s.queue()),
              s.priority(),
              s.skip()));
    }
    return new NewContact(
        contact.id(),
        contact.channel(),
        contact.attributes(),
        first.requirement(),
        first.priority().orElse(contact.priority()),
        steps,
        contact.maxWait(),
        Optional.of(first.queue()),
        Optional.of(workflow.name()),
        first.skip());
  }

  private static List<Stage> stages(
      WorkspaceDefinition d, Workflow workflow, Map<String, Object> attributes) {
    List<WorkflowTarget> targets = workflow.targetsFor(attributes);
    List<Stage> stages = new ArrayList<>(targets.size() + 1);
    preferred(workflow, attributes)
        .ifPresent(
            agent ->
                stages.add(
                    new Stage(
                        targets.get(0).queue(),
                        Optional.of(AGENT_ID + " = '" + agent + "'"),
                        Optional.empty(),
                        Optional.of(workflow.preferredAgent().orElseThrow().timeout()),
                        false)));
    for (WorkflowTarget t : targets) {
      TaskQueue q =
          d.queue(t.queue())
              .orElseThrow(
                  () ->
                      new RoutingException(
                          RoutingErrorCode.TASK_QUEUE_NOT_FOUND,
                          "task queue '" + t.queue() + "' does not exist"));
      Optional<String> extra = t.expression().map(e -> ContactReferences.resolve(e, attributes));
      stages.add(
          new Stage(
              q.name(),
              and(q.workerExpression(), extra),
              t.priority(),
              t.timeout(),
              t.skipIfNoneAvailable()));
    }
    return stages;
  }

  /** The preferred agent's id, when the workflow has one and the contact names a valid id. */
  private static Optional<String> preferred(Workflow workflow, Map<String, Object> attributes) {
    return workflow
        .preferredAgent()
        .map(p -> attributes.get(p.attribute()))
        .filter(v -> v instanceof String s && Checks.isId(s))
        .map(String.class::cast);
  }

  private static Optional<String> and(Optional<String> a, Optional<String> b) {
    if (a.isEmpty()) {
      return b;
    }
    if (b.isEmpty()) {
      return a;
    }
    return Optional.of("(" + a.get() + ") AND (" + b.get() + ")");
  }
}
