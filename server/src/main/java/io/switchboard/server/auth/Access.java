package io.switchboard.server.auth;

import java.util.Objects;
import java.util.Optional;

/**
 * What one request needs: an action on a resource (a queue name, a routing workspace; none for what
 * has no resource, such as {@code /metrics} or listing queues), and for {@code routing:agent} the
 * agent it acts on, which an agent's key must be bound to.
 */
public record Access(Action action, Optional<String> resource, Optional<String> agent) {

  /** The routing workspace every routing call is in today. */
  public static final String DEFAULT_WORKSPACE = "default";

  public Access {
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(agent, "agent");
  }

  /** {@code action} on queue {@code name}. */
  public static Access queue(Action action, String name) {
    return new Access(action, Optional.of(name), Optional.empty());
  }

  /** {@code action} with no particular resource. */
  public static Access any(Action action) {
    return new Access(action, Optional.empty(), Optional.empty());
  }

  /** A routing action in the default workspace; {@code agent} the agent it acts on, if one. */
  public static Access routing(Action action, Optional<String> agent) {
    return new Access(action, Optional.of(DEFAULT_WORKSPACE), agent);
  }

  /** {@code queue:send on queue 'orders'}, for messages and the audit log. */
  public String describe() {
    StringBuilder b = new StringBuilder(action.wireName());
    resource.ifPresent(
        r ->
            b.append(" on ")
                .append(action.onQueues() ? "queue" : action.onRouting() ? "workspace" : "")
                .append(action.onQueues() || action.onRouting() ? " '" + r + "'" : r));
    agent.ifPresent(a -> b.append(" as agent '").append(a).append('\''));
    return b.toString();
  }

  /** The resource as the audit log names it: {@code queue/orders}, {@code routing/default}, *. */
  public String resourceName() {
    String r = resource.orElse("*");
    String kind = action.onQueues() ? "queue/" : action.onRouting() ? "routing/" : "";
    return kind + r + agent.map(a -> "/agent/" + a).orElse("");
  }
}
