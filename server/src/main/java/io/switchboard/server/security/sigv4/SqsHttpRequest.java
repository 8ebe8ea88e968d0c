package io.switchboard.server.security.sigv4;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One HTTP request to the SQS endpoint, free of framework types, exactly as it came: what a SigV4
 * signature covers and what either protocol reads.
 *
 * @param method {@code GET} or {@code POST}
 * @param rawPath the path as sent, still percent-encoded
 * @param rawQuery the query string as sent, without {@code ?}; empty when none
 * @param headers every header's values, keyed by lower-case name
 * @param body the body's bytes
 */
public record SqsHttpRequest(
    String method,
    String rawPath,
    String rawQuery,
    Map<String, List<String>> headers,
    byte[] body) {

  /** A header's first value; {@code name} in lower case. */
  public Optional<String> header(String name) {
    List<String> v = headers.get(name);
    return v == null || v.isEmpty() ? Optional.empty() : Optional.of(v.get(0));
  }
}
