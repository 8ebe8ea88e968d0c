package io.switchboard.client;

/** How a client presents its {@link Credentials}. */
public enum AuthScheme {
  /**
   * AWS Signature Version 4 ({@code Authorization: AWS4-HMAC-SHA256 ...}): the secret never
   * travels, the body is covered by the signature, and a signature is good for 15 minutes. The
   * default.
   */
  SIGV4,
  /**
   * HTTP Basic ({@code ID:SECRET}): the secret travels with every request, so only over TLS or to a
   * loopback server (the server refuses it otherwise).
   */
  BASIC
}
