package io.switchboard.server.auth;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What a request does, as access control sees it (DESIGN.md, "Access control"): coarse on purpose.
 * Each action has a wire name ({@code queue:send}), the form used in key files, grants, error
 * messages and the audit log.
 */
public enum Action {
  /** Send to a queue. */
  QUEUE_SEND("queue:send"),
  /** Receive from a queue, and ack, release, extend, fail what was received. */
  QUEUE_RECEIVE("queue:receive"),
  /** Read a queue without changing it: list, get, stats, peek at messages. */
  QUEUE_BROWSE("queue:browse"),
  /** Create, configure, purge, delete a queue; redrive, restore, dead-letter, edit messages. */
  QUEUE_ADMIN("queue:admin"),
  /** An agent acting as itself: presence, its offers, its contacts, its event stream. */
  ROUTING_AGENT("routing:agent"),
  /** Everything in a routing workspace (every agent included). */
  ROUTING_SUPERVISOR("routing:supervisor"),
  /** Read {@code /metrics}. */
  METRICS_READ("metrics:read"),
  /** Everything, keys included. */
  ADMIN("admin");

  private final String wire;

  Action(String wire) {
    this.wire = wire;
  }

  /** The name users write: {@code queue:send}. */
  public String wireName() {
    return wire;
  }

  /** True for the actions whose resource is a queue name. */
  public boolean onQueues() {
    return wire.startsWith("queue:");
  }

  /** True for the actions whose resource is a routing workspace. */
  public boolean onRouting() {
    return wire.startsWith("routing:");
  }

  /** The action of a wire name, if it is one. */
  public static Optional<Action> of(String wireName) {
    String w = wireName.trim().toLowerCase(Locale.ROOT);
    return Arrays.stream(values()).filter(a -> a.wire.equals(w)).findFirst();
  }

  /**
   * The action of a wire name.
   *
   * @throws IllegalArgumentException naming the known actions and the text given
   */
  public static Action parse(String wireName) {
    return of(wireName)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "unknown action '" + wireName + "'; known: " + known()));
  }

  /** Every wire name, comma-separated, for messages. */
  public static String known() {
    return Arrays.stream(values()).map(Action::wireName).collect(Collectors.joining(", "));
  }

  @Override
  public String toString() {
    return wire;
  }
}
