package io.switchboard.client.wire;

import io.switchboard.client.wire.Json.Required;
import io.switchboard.routing.AssignmentCallback;
import io.switchboard.routing.Workflow;
import io.switchboard.routing.WorkflowFilter;
import io.switchboard.routing.WorkflowTarget;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The workflow API's bodies ({@code /v1/workspaces/{ws}/workflows/{name}}, {@code docs/api.md}) as
 * records, bound by the shared Jackson mappers ({@link Json}): the same record is the server's
 * request and answer and the client's. Timeouts are whole seconds ({@code timeoutSeconds}); the
 * engine checks the values ({@link Workflow}). Public for the server; not part of the client API.
 */
public final class WorkflowWire {

  private WorkflowWire() {}

  /** A target: the queue, and optionally an extra expression, priority, timeout and skip flag. */
  public record Target(
      @Required String queue,
      @Nullable String expression,
      @Nullable Integer priority,
      @Nullable Long timeoutSeconds,
      @Nullable Boolean skipIfNoneAvailable) {

    public static Target of(WorkflowTarget t) {
      return new Target(
          t.queue(),
          t.expression().orElse(null),
          t.priority().orElse(null),
          t.timeout().map(d -> WireFormat.wholeSeconds("timeout", d)).orElse(null),
          t.skipIfNoneAvailable() ? Boolean.TRUE : null);
    }

    WorkflowTarget toTarget(String field) {
      return new WorkflowTarget(
          queue,
          Optional.ofNullable(expression),
          Optional.ofNullable(priority),
          Json.seconds(field + ".timeoutSeconds", timeoutSeconds),
          Boolean.TRUE.equals(skipIfNoneAvailable));
    }
  }

  /** A filter: its name, a selector over the contact's attributes, its targets in order. */
  public record Filter(
      @Required String name, @Required String expression, @Required List<Target> targets) {}

  /** The targets of contacts no filter takes. */
  public record DefaultFilter(@Required List<Target> targets) {}

  /** The contact attribute naming a preferred agent, and how long only that agent may take it. */
  public record PreferredAgent(@Required String attribute, @Required Long timeoutSeconds) {}

  /**
   * A workflow, as {@code PUT} takes it and every answer gives it; {@code name} may be left out of
   * a {@code PUT} (the path names the workflow) but must match the path if given.
   */
  public record WorkflowBody(
      @Nullable String name,
      @Nullable List<Filter> filters,
      @Required DefaultFilter defaultFilter,
      @Nullable PreferredAgent preferredAgent,
      @Nullable String assignmentCallbackUrl,
      @Nullable Long assignmentCallbackTimeoutSeconds) {

    public static WorkflowBody of(Workflow w) {
      return new WorkflowBody(
          w.name(),
          w.filters().stream()
              .map(
                  f ->
                      new Filter(
                          f.name(), f.expression(), f.targets().stream().map(Target::of).toList()))
              .toList(),
          new DefaultFilter(w.defaultTargets().stream().map(Target::of).toList()),
          w.preferredAgent()
              .map(
                  p ->
                      new PreferredAgent(
                          p.attribute(), WireFormat.wholeSeconds("timeout", p.timeout())))
              .orElse(null),
          w.assignmentCallback().map(AssignmentCallback::url).orElse(null),
          w.assignmentCallback()
              .map(c -> WireFormat.wholeSeconds("assignmentCallbackTimeout", c.timeout()))
              .orElse(null));
    }

    /** The workflow named {@code name} (the path's); INVALID_ARGUMENT if the body names another. */
    public Workflow toWorkflow(String name) {
      if (this.name != null && !this.name.equals(name)) {
        throw new WireFormatException(
            WireCode.INVALID_ARGUMENT,
            "the body's name '" + this.name + "' differs from the path's '" + name + "'");
      }
      List<Filter> given = Json.items(filters);
      return new Workflow(
          name,
          java.util.stream.IntStream.range(0, given.size())
              .mapToObj(
                  i ->
                      new WorkflowFilter(
                          given.get(i).name(),
                          given.get(i).expression(),
                          targets("filters[" + i + "]", given.get(i).targets())))
              .toList(),
          targets("defaultFilter", defaultFilter.targets()),
          Optional.ofNullable(preferredAgent)
              .map(
                  p ->
                      new Workflow.PreferredAgent(
                          p.attribute(),
                          Json.seconds("preferredAgent.timeoutSeconds", p.timeoutSeconds())
                              .orElse(Duration.ZERO))),
          callback());
    }

    private Optional<AssignmentCallback> callback() {
      Optional<Duration> timeout =
          Json.seconds("assignmentCallbackTimeoutSeconds", assignmentCallbackTimeoutSeconds);
      if (assignmentCallbackUrl == null) {
        if (timeout.isPresent()) {
          throw new WireFormatException(
              WireCode.INVALID_ARGUMENT,
              "assignmentCallbackTimeoutSeconds needs an assignmentCallbackUrl; got a timeout of "
                  + assignmentCallbackTimeoutSeconds
                  + " s without one");
        }
        return Optional.empty();
      }
      return Optional.of(
          new AssignmentCallback(
              assignmentCallbackUrl, timeout.orElse(AssignmentCallback.DEFAULT_TIMEOUT)));
    }

    private static List<WorkflowTarget> targets(String where, List<Target> targets) {
      return java.util.stream.IntStream.range(0, targets.size())
          .mapToObj(i -> targets.get(i).toTarget(where + ".targets[" + i + "]"))
          .toList();
    }
  }

  /** {@code GET /v1/workspaces/{ws}/workflows}. */
  public record Workflows(@Nullable List<WorkflowBody> workflows) {

    public static Workflows of(List<Workflow> all) {
      return new Workflows(all.stream().map(WorkflowBody::of).toList());
    }
  }
}
