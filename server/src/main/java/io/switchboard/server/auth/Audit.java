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
   * The most characters of the key id a refused request named that its audit line copies: a valid
   * key id is at most 128 characters ({@link Principal}).
   */
  public static final int MAX_KEY_CHARS = 128;

  /** The most characters of a refused request's resource its audit line copies. */
  public static final int MAX_RESOURCE_CHARS = 512;

  /**
   * The most characters of a refusal's reason its audit line copies: a reason may quote what the
   * request sent (a malformed {@code Authorization} header, say), which an unauthenticated client
   * chooses.
   */
  public static final int MAX_REASON_CHARS = 1024;

  /** The most characters of a client's value that {@link #clip(String)} keeps. */
  public static final int MAX_QUOTED_CHARS = 256;

  /**
   * A refused request.
   *
   * <p>Whatever the line copies from the request (the key id, the resource, the reason, which may
   * quote a header) is bounded ({@link #MAX_KEY_CHARS}, {@link #MAX_RESOURCE_CHARS}, {@link
   * #MAX_REASON_CHARS}) with a marker saying how long it was ({@link #clip(String, int)}), and its
   * control characters are escaped, so that an unauthenticated client can neither make long lines
   * nor forge lines.
   *
   * @param keyId the key the request named, or {@link #ANONYMOUS}
   * @param access what it needed; null when it was refused before that was known
   * @param status 401 or 403; 404 for an agent's key answered "not found" for another agent's
   *     contact or reservation
   * @param reason what was wrong, without a secret
   */
  public static void refused(
      String keyId, @Nullable Access access, int status, String requestId, String reason) {
    LOG.atWarn()
        .addKeyValue("event", "refused")
        .addKeyValue("status", status)
        .addKeyValue("key", clip(keyId, MAX_KEY_CHARS))
        .addKeyValue("action", access == null ? "" : access.action().wireName())
        .addKeyValue(
            "resource", access == null ? "" : clip(access.resourceName(), MAX_RESOURCE_CHARS))
        .addKeyValue("requestId", requestId)
        .log("refused: " + clip(reason, MAX_REASON_CHARS));
  }

  /** {@link #clip(String, int)} to {@link #MAX_QUOTED_CHARS}: for a client's value in a message. */
  public static String clip(String value) {
    return clip(value, MAX_QUOTED_CHARS);
  }

  /**
   * {@code value} as a log line or a message may quote it: each control character escaped (a line
   * feed as a backslash and {@code n}, others as a backslash, {@code u} and four hex digits), and
   * at most {@code max} characters of it, followed, when it was longer, by {@code ...[truncated: N
   * characters]} with its whole length.
   */
  public static String clip(String value, int max) {
    int n = value.length();
    int keep = Math.min(n, max);
    boolean plain = true;
    for (int i = 0; i < keep && plain; i++) {
      plain = !Character.isISOControl(value.charAt(i));
    }
    if (plain && n <= max) {
      return value; // the usual case: nothing to escape or cut
    }
    StringBuilder b = new StringBuilder(keep + 40);
    for (int i = 0; i < keep; i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (Character.isISOControl(c)) {
            b.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    if (n > max) {
      b.append("...[truncated: ").append(n).append(" characters]");
    }
    return b.toString();
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
