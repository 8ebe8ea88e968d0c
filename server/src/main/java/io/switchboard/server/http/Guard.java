package io.switchboard.server.http;

import io.switchboard.server.auth.Access;
import io.switchboard.server.auth.Action;
import java.util.Optional;
import java.util.function.Function;

/**
 * What a route needs of the caller when access keys are configured ({@code docs/security.md}); the
 * authentication filter reads it from the request's route ({@link
 * io.switchboard.server.RequestFilters#authentication}). Every route declares one: a route without
 * it is taken to need {@code admin}, and the access matrix test fails on it.
 */
public sealed interface Guard {

  /** No credentials needed: {@code /health}, {@code /openapi.yaml}. */
  record Open() implements Guard {}

  /** The route checks credentials itself, in its own error shapes (the SQS endpoint). */
  record Self() implements Guard {}

  /** Any valid key; no action ({@code /v1/noop}). */
  record Authenticated() implements Guard {}

  /**
   * {@code action}, on the resource {@code access} reads from the call.
   *
   * @param action what the route does, for the route table and the access matrix test
   * @param access the action with its resource (and agent), from the call
   */
  record Needs(Action action, Function<Call, Access> access) implements Guard {}

  static Guard open() {
    return new Open();
  }

  static Guard self() {
    return new Self();
  }

  static Guard authenticated() {
    return new Authenticated();
  }

  /** {@code action} on the queue named by the path's {@code {queue}}. */
  static Guard queue(Action action) {
    return new Needs(action, c -> Access.queue(action, c.routeParameter("queue")));
  }

  /** {@code action} on the queue named by the body's text field {@code field}. */
  static Guard queueInBody(Action action, String field) {
    return new Needs(action, c -> Access.queue(action, c.bodyText(field).orElse("*")));
  }

  /** {@code action} on every queue ({@code *}): for what names no queue it could be checked on. */
  static Guard everyQueue(Action action) {
    return new Needs(action, c -> Access.queue(action, "*"));
  }

  /** {@code action} with no particular resource (listing, metrics). */
  static Guard any(Action action) {
    return new Needs(action, c -> Access.any(action));
  }

  /** {@code routing:supervisor} in the workspace. */
  static Guard supervisor() {
    return new Needs(
        Action.ROUTING_SUPERVISOR,
        c -> Access.routing(Action.ROUTING_SUPERVISOR, Optional.empty()));
  }

  /** {@code routing:supervisor} in the workspace {@code workspace} reads from the call. */
  static Guard supervisor(Function<Call, String> workspace) {
    return new Needs(
        Action.ROUTING_SUPERVISOR,
        c ->
            new Access(
                Action.ROUTING_SUPERVISOR, Optional.of(workspace.apply(c)), Optional.empty()));
  }

  /** {@link #agent(Function)} in the workspace {@code workspace} reads from the call. */
  static Guard agent(Function<Call, String> workspace, Function<Call, Optional<String>> agent) {
    return new Needs(
        Action.ROUTING_AGENT,
        c -> new Access(Action.ROUTING_AGENT, Optional.of(workspace.apply(c)), agent.apply(c)));
  }

  /**
   * {@code routing:agent} as the agent {@code agent} reads from the call (the path's, or the owner
   * of the reservation or contact the path names); a supervisor may act as any agent.
   */
  static Guard agent(Function<Call, Optional<String>> agent) {
    return new Needs(
        Action.ROUTING_AGENT, c -> Access.routing(Action.ROUTING_AGENT, agent.apply(c)));
  }

  /** What this guard needs of {@code call}, empty when it needs no action. */
  default Optional<Access> access(Call call) {
    return this instanceof Needs n ? Optional.of(n.access().apply(call)) : Optional.empty();
  }
}
