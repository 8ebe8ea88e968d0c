package io.switchboard.routing;

/**
 * Stable codes for every routing error a caller can cause. The names are part of the public API:
 * the HTTP layer will put them on the wire and clients switch on them, so they never change
 * meaning.
 */
public enum RoutingErrorCode {
  /** A field is missing, malformed or out of range. The message names the field and the range. */
  INVALID_ARGUMENT,
  /** A requirement selector does not parse; the message gives the column and what was expected. */
  INVALID_SELECTOR,
  /** No agent with that id. */
  AGENT_NOT_FOUND,
  /** An agent with that id exists already. */
  AGENT_ALREADY_EXISTS,
  /** No contact with that id (it never existed, or left the bounded history). */
  CONTACT_NOT_FOUND,
  /** A contact with that id exists already (live or in the history). */
  CONTACT_ALREADY_EXISTS,
  /** No reservation with that id. */
  RESERVATION_NOT_FOUND,
  /** The reservation's offer timed out, or was cancelled, before the call. */
  RESERVATION_EXPIRED,
  /** The operation does not fit the current state (accept twice, complete a queued contact). */
  INVALID_STATE,
  /** The router is closed. */
  UNAVAILABLE,
  /** No workspace with that name. */
  WORKSPACE_NOT_FOUND,
  /** A workspace with that name exists already. */
  WORKSPACE_ALREADY_EXISTS,
  /** No activity with that name in the workspace. */
  ACTIVITY_NOT_FOUND,
  /**
   * The activity cannot be removed or change availability: agents are in it, or it is the default.
   */
  ACTIVITY_IN_USE,
  /** No task queue with that name in the workspace. */
  TASK_QUEUE_NOT_FOUND,
  /**
   * The task queue cannot be removed: contacts routed through it are live, or a workflow names it.
   */
  TASK_QUEUE_IN_USE,
  /** No workflow of that name in the workspace. */
  WORKFLOW_NOT_FOUND,
  /**
   * A workflow's assignment callback URL is not an absolute http or https URL with a host (or has
   * user info, a fragment, or is too long); the message says which.
   */
  INVALID_CALLBACK_URL
}
