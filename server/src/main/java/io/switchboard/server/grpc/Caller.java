package io.switchboard.server.grpc;

import io.grpc.Context;
import io.grpc.Status;
import io.switchboard.queue.QueueEngine;
import io.switchboard.server.auth.Access;
import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.Audit;
import io.switchboard.server.auth.MoveRights;
import io.switchboard.server.auth.Principal;
import java.util.Optional;

/**
 * Who a gRPC call comes from, as {@link Credentials} admitted it: the access key (none in keyless
 * mode) and what its streams are counted under (the key id, else the client's address).
 *
 * @param principal the key, or empty in keyless mode
 * @param client what {@code grpc-max-streams-per-key} counts: the key id, or the client's address
 * @param callId names the call in audit lines
 */
record Caller(Optional<Principal> principal, String client, String callId) {

  static final Context.Key<Caller> KEY = Context.key("switchboard-caller");

  /** The caller of the current call. */
  static Caller current() {
    Caller c = KEY.get();
    if (c == null) {
      throw new IllegalStateException("no caller: the call did not pass Credentials");
    }
    return c;
  }

  /**
   * Refuses, with {@code PERMISSION_DENIED} and an audit line, unless the key may do {@code action}
   * on {@code queue}.
   */
  void require(Action action, String queue) {
    require(Access.queue(action, queue));
  }

  /**
   * Refuses, with {@code PERMISSION_DENIED} and an audit line, unless the key may do what {@code
   * needed} says (a routing action in a workspace, an action on no particular queue).
   */
  void require(Access needed) {
    if (principal.isEmpty()) {
      return;
    }
    Action action = needed.action();
    Principal p = principal.get();
    if (!p.may(needed)) {
      String message = "access key " + p.describe() + " lacks " + needed.describe();
      Audit.refused(p.keyId(), needed, 403, callId, message);
      throw Statuses.error(
          Status.Code.PERMISSION_DENIED,
          "FORBIDDEN",
          message + " (" + action.wireName() + " is needed; docs/security.md)");
    }
  }

  /** Whether the key may do {@code needed} (always, in keyless mode). */
  boolean may(Access needed) {
    return principal.isEmpty() || principal.get().may(needed);
  }

  /**
   * {@code engine} as this caller's key uses it (as the HTTP API's): a call that moves messages
   * into a second queue, or names one to move them into later (a dead-letter target, a redrive's
   * destination), first needs {@code queue:send} there, else it is refused {@code
   * PERMISSION_DENIED} with {@code DESTINATION_FORBIDDEN}, having changed nothing.
   */
  QueueEngine engine(QueueEngine engine) {
    if (principal.isEmpty()) {
      return engine;
    }
    Principal p = principal.get();
    return MoveRights.forKey(
        engine,
        p,
        (needed, message) -> {
          Audit.refused(p.keyId(), needed, 403, callId, message);
          return Statuses.error(Status.Code.PERMISSION_DENIED, "DESTINATION_FORBIDDEN", message);
        });
  }
}
