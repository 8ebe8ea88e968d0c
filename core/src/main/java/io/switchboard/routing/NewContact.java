package io.switchboard.routing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A contact to route.
 *
 * @param id {@code [A-Za-z0-9_.:@-]}, 1..128 characters, unique among live and retained contacts
 * @param channel {@code [A-Za-z0-9_-]}, 1..64 characters (e.g. voice, chat)
 * @param attributes facts about the contact, for the record (same rules as agent attributes)
 * @param requirements a selector over agent attributes; empty for any agent
 * @param priority higher is served first, -1000..1000; default 0
 * @param escalations steps, by strictly increasing {@code after}; at most 16
 * @param maxWait after this long queued the contact times out, 1 ms..7 days; empty for never
 * @param queue the task queue the contact is routed through ({@link Workspace#createContact} sets
 *     it), {@code [A-Za-z0-9_-]}, 1..64 characters; empty for none
 * @param workflow the workflow that routed it ({@link Workspace#createContact} sets it); empty for
 *     none
 * @param skipIfNoneAvailable apply the first escalation step at once if no agent takes the contact
 *     on arrival (a workflow's first target with {@code skipIfNoneAvailable})
 */
public record NewContact(
    String id,
    String channel,
    Map<String, Object> attributes,
    Optional<String> requirements,
    int priority,
    List<Escalation> escalations,
    Optional<Duration> maxWait,
    Optional<String> queue,
    Optional<String> workflow,
    boolean skipIfNoneAvailable) {

  /** A contact routed through {@code queue} (or none), not by a workflow. */
  public NewContact(
      String id,
      String channel,
      Map<String, Object> attributes,
      Optional<String> requirements,
      int priority,
      List<Escalation> escalations,
      Optional<Duration> maxWait,
      Optional<String> queue) {
    this(
        id,
        channel,
        attributes,
        requirements,
        priority,
        escalations,
        maxWait,
        queue,
        Optional.empty(),
        false);
  }

  /** A contact routed through no task queue. */
  public NewContact(
      String id,
      String channel,
      Map<String, Object> attributes,
      Optional<String> requirements,
      int priority,
      List<Escalation> escalations,
      Optional<Duration> maxWait) {
    this(id, channel, attributes, requirements, priority, escalations, maxWait, Optional.empty());
  }

  public NewContact {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(channel, "channel");
    attributes = Checks.copyAttributes(attributes);
    Objects.requireNonNull(requirements, "requirements");
    escalations = List.copyOf(escalations);
    Objects.requireNonNull(maxWait, "maxWait");
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(workflow, "workflow");
  }

  /**
   * This contact routed through {@code queue}: its requirements and those of each escalation step
   * become what {@code combine} makes of them.
   */
  NewContact through(String queue, java.util.function.UnaryOperator<Optional<String>> combine) {
    List<Escalation> steps =
        escalations.stream()
            .map(e -> new Escalation(e.after(), combine.apply(e.requirements())))
            .toList();
    return new NewContact(
        id,
        channel,
        attributes,
        combine.apply(requirements),
        priority,
        steps,
        maxWait,
        Optional.of(queue),
        workflow,
        skipIfNoneAvailable);
  }

  public static Builder builder(String id, String channel) {
    return new Builder(id, channel);
  }

  /** Builds a {@link NewContact}. */
  public static final class Builder {
    private final String id;
    private final String channel;
    private final Map<String, Object> attributes = new LinkedHashMap<>();
    private Optional<String> requirements = Optional.empty();
    private int priority;
    private final List<Escalation> escalations = new ArrayList<>();
    private Optional<Duration> maxWait = Optional.empty();

    private Builder(String id, String channel) {
      this.id = Objects.requireNonNull(id, "id");
      this.channel = Objects.requireNonNull(channel, "channel");
    }

    public Builder attribute(String name, Object value) {
      attributes.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    public Builder attributes(Map<String, ?> values) {
      values.forEach(this::attribute);
      return this;
    }

    /** A selector over agent attributes, e.g. {@code languages HAS 'es' AND gender = 'M'}. */
    public Builder requirements(String selector) {
      this.requirements = Optional.of(selector);
      return this;
    }

    public Builder priority(int priority) {
      this.priority = priority;
      return this;
    }

    /** After {@code after} since creation, the requirements become {@code selector}. */
    public Builder escalate(Duration after, String selector) {
      escalations.add(Escalation.after(after, selector));
      return this;
    }

    /** After {@code after} since creation, any agent on the channel may take the contact. */
    public Builder escalateToAnyAgent(Duration after) {
      escalations.add(Escalation.toAnyAgentAfter(after));
      return this;
    }

    public Builder maxWait(Duration maxWait) {
      this.maxWait = Optional.of(maxWait);
      return this;
    }

    public NewContact build() {
      return new NewContact(id, channel, attributes, requirements, priority, escalations, maxWait);
    }
  }
}
