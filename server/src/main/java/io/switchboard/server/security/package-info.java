/**
 * Who is calling and whether this server may be reached as it is: authentication of a call (HTTP
 * Basic, SigV4, a client certificate, a call forwarded inside the cluster), the exposure guard (a
 * server reachable from a network must check keys), TLS files and their reload, the access-key
 * store and the key file's reload, and the addresses an outbound callback may reach.
 *
 * <p>May use: {@code server.security.sigv4}, {@code server.http}, {@code server.config}, {@code
 * server.auth}. Never an API package: what an API needs to be checked comes down here.
 */
@NullMarked
package io.switchboard.server.security;

import org.jspecify.annotations.NullMarked;
