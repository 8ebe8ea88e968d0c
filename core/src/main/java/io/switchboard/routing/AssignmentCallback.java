package io.switchboard.routing;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * Where the server asks whether an offer made through a workflow should stand ({@code
 * docs/routing.md}, "Assignment callbacks"): each offer is POSTed to {@code url}, signed with the
 * workspace's {@link CallbackSecret}, and the answer may accept or reject it. Core only keeps and
 * checks the setting; the server sends the requests.
 *
 * @param url an absolute {@code http} or {@code https} URL with a host, without user info or
 *     fragment, at most {@value #MAX_URL_LENGTH} characters
 * @param timeout how long one attempt waits for an answer, {@value #MIN_TIMEOUT_SECONDS}..{@value
 *     #MAX_TIMEOUT_SECONDS} s; the attempts together never outlast the offer
 */
public record AssignmentCallback(String url, Duration timeout) {

  public static final int MAX_URL_LENGTH = 2000;
  public static final int MIN_TIMEOUT_SECONDS = 1;
  public static final int MAX_TIMEOUT_SECONDS = 60;

  /** The timeout of an attempt when the workflow names none. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  public AssignmentCallback {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(timeout, "timeout");
    checkUrl("assignmentCallbackUrl", url);
    Checks.duration(
        "assignmentCallbackTimeout",
        timeout,
        Duration.ofSeconds(MIN_TIMEOUT_SECONDS),
        Duration.ofSeconds(MAX_TIMEOUT_SECONDS));
  }

  /** A callback to {@code url} with the default timeout. */
  public static AssignmentCallback to(String url) {
    return new AssignmentCallback(url, DEFAULT_TIMEOUT);
  }

  /** {@link #url} as a URI (checked at construction). */
  public URI uri() {
    return URI.create(url);
  }

  /**
   * Checks a URL the server is to send requests to (an assignment callback, a push subscription's
   * endpoint); INVALID_CALLBACK_URL saying what is allowed and what was given.
   *
   * @param field the field's name, for the message
   */
  public static void checkUrl(String field, String url) {
    String allowed =
        " must be an absolute http or https URL with a host, without user info or fragment, at"
            + " most "
            + MAX_URL_LENGTH
            + " characters; got '"
            + clip(url)
            + "'";
    if (url.isEmpty() || url.length() > MAX_URL_LENGTH) {
      throw bad(field + allowed + " (" + url.length() + " characters)");
    }
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw bad(field + allowed + " (" + e.getReason() + ")");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw bad(field + allowed + " (scheme '" + scheme + "')");
    }
    if (uri.getHost() == null || uri.getHost().isEmpty()) {
      throw bad(field + allowed + " (no host)");
    }
    if (uri.getRawUserInfo() != null) {
      throw bad(
          field + allowed + " (user info: credentials in the URL would show to every reader)");
    }
    if (uri.getRawFragment() != null) {
      throw bad(field + allowed + " (fragment)");
    }
  }

  private static RoutingException bad(String message) {
    return new RoutingException(RoutingErrorCode.INVALID_CALLBACK_URL, message);
  }

  private static String clip(String s) {
    return s.length() > 100 ? s.substring(0, 100) + "..." : s;
  }
}
