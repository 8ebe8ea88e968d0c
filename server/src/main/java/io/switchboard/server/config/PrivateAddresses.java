package io.switchboard.server.config;

/**
 * Whether loopback and private addresses may be reached by what the server sends out, such as
 * assignment callbacks ({@code outbound-private-addresses}; {@code
 * io.switchboard.server.security.OutboundAddresses} holds to it).
 */
public enum PrivateAddresses {
  /** Allowed on a server without access keys bound to loopback, refused otherwise. */
  AUTO,
  /** Allowed: receivers on this machine or its private network are meant. */
  ALLOWED,
  /** Refused. */
  REFUSED
}
