package io.switchboard.server.auth;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit log: the logger {@value #LOGGER}, one line per refused request and per key change, with
 * key-value pairs (the key id or {@code anonymous}, the action, the resource, the request id),
 * never a secret. Route it to its own file with the logger's name ({@code docs/security.md}).
 */
public final class Audit {

  /** The logger's name. */
  public static final String LOGGER = "switchboard.audit";

  private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

  /** The key id a request without valid credentials is logged under. */
  public static final String ANONYMOUS = "anonymous";

  private Audit() {}

  /**
   * A refused request.
   *
   * @param keyId the key the request named, or {@link #ANONYMOUS}
   * @param access what it needed; null when it was refused before that was known
   * @param status 401 or 403
   * @param reason what was wrong, without a secret
   */
  public static void refused(
      String keyId, @Nullable Access access, int status, String requestId, String reason) {
    LOG.atWarn()
        .addKeyValue("event", "refused")
        .addKeyValue("status", status)
        .addKeyValue("key", keyId)
        .addKeyValue("action", access == null ? "" : access.action().wireName())
        .addKeyValue("resource", access == null ? "" : access.resourceName())
        .addKeyValue("requestId", requestId)
        .log("refused: " + reason);
  }

  static void keyPut(Principal p, boolean replaced) {
    LOG.atInfo()
        .addKeyValue("event", replaced ? "key-replaced" : "key-added")
        .addKeyValue("key", p.keyId())
        .addKeyValue("name", p.name().orElse(""))
        .addKeyValue("grants", p.grants().toString())
        .addKeyValue("agent", p.agent().orElse(""))
        .log((replaced ? "access key replaced: " : "access key added: ") + p.keyId());
  }

  static void keyRevoked(String keyId, boolean existed) {
    LOG.atInfo()
        .addKeyValue("event", existed ? "key-revoked" : "key-revoke-unknown")
        .addKeyValue("key", keyId)
        .log(
            existed ? "access key revoked: " + keyId : "revoke of an unknown access key: " + keyId);
  }

  /**
   * {@code access-keys-file} was read again after it changed: the key ids added, removed (refused
   * from now on) and changed (secret, name, grants or agent); nothing of a secret.
   */
  public static void keysReloaded(
      String file,
      java.util.Collection<String> added,
      java.util.Collection<String> removed,
      java.util.Collection<String> changed) {
    LOG.atInfo()
        .addKeyValue("event", "keys-reloaded")
        .addKeyValue("file", file)
        .addKeyValue("added", String.join(",", added))
        .addKeyValue("removed", String.join(",", removed))
        .addKeyValue("changed", String.join(",", changed))
        .log(
            "access keys reloaded from "
                + file
                + ": added "
                + added
                + ", removed "
                + removed
                + ", changed "
                + changed);
  }

  /**
   * A queue's SQS policy changed (AddPermission, RemovePermission, or a {@code Policy} set).
   *
   * @param keyId the key that changed it, or {@link #ANONYMOUS} in keyless mode
   */
  public static void permissionChanged(
      String keyId, String sqsAction, String queue, String requestId) {
    LOG.atInfo()
        .addKeyValue("event", "permission-changed")
        .addKeyValue("key", keyId)
        .addKeyValue("action", sqsAction)
        .addKeyValue("resource", "queue/" + queue)
        .addKeyValue("requestId", requestId)
        .log("queue policy changed: " + sqsAction + " on " + queue);
  }
}
