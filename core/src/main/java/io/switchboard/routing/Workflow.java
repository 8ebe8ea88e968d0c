package io.switchboard.routing;

import io.switchboard.selector.Attributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How a workspace routes a contact created through it: the first filter whose expression matches
 * the contact's attributes takes it, else the default targets. The contact then waits in the first
 * target until an agent takes it or the target's timeout passes, then in the next, keeping its
 * arrival (its place among contacts of equal priority, and its waiting time in the statistics).
 * Workflows name task queues only, never other workflows, so they cannot form cycles.
 *
 * @param name {@code [A-Za-z0-9_-]}, 1..64 characters, unique in its workspace
 * @param filters 0..{@value #MAX_FILTERS} filters, tried in order
 * @param defaultTargets the targets of a contact no filter matches, 1..{@value #MAX_TARGETS}
 * @param preferredAgent a contact attribute naming an agent who is offered the contact first, and
 *     for how long; empty for none
 * @param assignmentCallback where each offer of a contact the workflow routes is POSTed for an
 *     accept or reject ({@code docs/routing.md}, "Assignment callbacks"); empty for none
 */
public record Workflow(
    String name,
    List<WorkflowFilter> filters,
    List<WorkflowTarget> defaultTargets,
    Optional<PreferredAgent> preferredAgent,
    Optional<AssignmentCallback> assignmentCallback) {

  /** A workflow without an assignment callback. */
  public Workflow(
      String name,
      List<WorkflowFilter> filters,
      List<WorkflowTarget> defaultTargets,
      Optional<PreferredAgent> preferredAgent) {
    this(name, filters, defaultTargets, preferredAgent, Optional.empty());
  }

  public static final int MAX_FILTERS = 100;

  /**
   * Targets per filter: each but the first is an escalation step of the contact, and a contact has
   * at most {@value Checks#MAX_ESCALATIONS} steps (one more when a preferred agent comes first).
   */
  public static final int MAX_TARGETS = Checks.MAX_ESCALATIONS;

  /**
   * A preferred agent: the contact attribute {@code attribute} holds the id of an agent who alone
   * may take the contact for {@code timeout}, before its filter's targets apply. A contact without
   * that attribute goes straight to its targets.
   */
  public record PreferredAgent(String attribute, java.time.Duration timeout) {
    public PreferredAgent {
      Objects.requireNonNull(attribute, "attribute");
      Objects.requireNonNull(timeout, "timeout");
    }
  }

  public Workflow {
    Checks.channel("workflow name", Objects.requireNonNull(name, "workflow name"));
    filters = List.copyOf(filters);
    defaultTargets = List.copyOf(defaultTargets);
    Objects.requireNonNull(preferredAgent, "preferredAgent");
    Objects.requireNonNull(assignmentCallback, "assignmentCallback");
    String where = "workflow '" + name + "'";
    if (filters.size() > MAX_FILTERS) {
      throw RoutingException.invalid(
          where + " has at most " + MAX_FILTERS + " filters, got " + filters.size());
    }
    List<String> seen = new ArrayList<>();
    for (int i = 0; i < filters.size(); i++) {
      WorkflowFilter f = filters.get(i);
      String field = where + " filters[" + i + "]";
      Checks.channel(field + ".name", f.name());
      if (seen.contains(f.name())) {
        throw RoutingException.invalid(
            where + ": filter names must be unique, got '" + f.name() + "' twice");
      }
      seen.add(f.name());
      Checks.requirement(field + ".expression", f.expression());
      checkTargets(field, f.targets());
    }
    checkTargets(where + " defaultFilter", defaultTargets);
    filters = new WorkflowFilters(filters);
    preferredAgent.ifPresent(
        p -> {
          if (!Checks.NAME.matcher(p.attribute()).matches()) {
            throw RoutingException.invalid(
                where
                    + " preferredAgent.attribute must be an attribute name ("
                    + Checks.NAME.pattern()
                    + "), got '"
                    + p.attribute()
                    + "'");
          }
          Checks.duration(
              where + " preferredAgent.timeout",
              p.timeout(),
              java.time.Duration.ofMillis(1),
              Checks.MAX_CONTACT_TIME);
        });
  }

  /** This workflow with {@code callback} as its assignment callback (empty: none). */
  public Workflow withAssignmentCallback(Optional<AssignmentCallback> callback) {
    return new Workflow(name, filters, defaultTargets, preferredAgent, callback);
  }

  private static void checkTargets(String where, List<WorkflowTarget> targets) {
    if (targets.isEmpty() || targets.size() > MAX_TARGETS) {
      throw RoutingException.invalid(
          where + " needs 1.." + MAX_TARGETS + " targets, got " + targets.size());
    }
    for (int i = 0; i < targets.size(); i++) {
      targets.get(i).check(where, i, targets.size());
    }
  }

  /** The task queues the workflow's targets name, each once. */
  public List<String> queues() {
    List<String> queues = new ArrayList<>();
    for (WorkflowFilter f : filters) {
      f.targets().forEach(t -> add(queues, t.queue()));
    }
    defaultTargets.forEach(t -> add(queues, t.queue()));
    return queues;
  }

  private static void add(List<String> list, String value) {
    if (!list.contains(value)) {
      list.add(value);
    }
  }

  /**
   * The filter that takes a contact with these attributes: the first that matches, or empty for the
   * default targets.
   */
  public Optional<WorkflowFilter> filterFor(Map<String, Object> attributes) {
    Attributes view = Attributes.of(attributes);
    WorkflowFilters parsed = (WorkflowFilters) filters;
    for (int i = 0; i < parsed.size(); i++) {
      if (parsed.selector(i).matches(view)) {
        return Optional.of(parsed.get(i));
      }
    }
    return Optional.empty();
  }

  /** The targets of a contact with these attributes. */
  public List<WorkflowTarget> targetsFor(Map<String, Object> attributes) {
    return filterFor(attributes).map(WorkflowFilter::targets).orElse(defaultTargets);
  }
}
