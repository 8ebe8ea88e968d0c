package io.switchboard.server.http;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * Whose request it is, for the caps counted per client ({@code max-event-streams-per-key}): the key
 * id of the credential that authenticated it ({@link Call#principal}, set by the authentication
 * filter), else the client's address; an authenticated client's requests count together from
 * wherever they come.
 *
 * @param id the key id, or {@code address:<ip>}
 */
record ClientKey(String id) {

  ClientKey {
    Objects.requireNonNull(id, "id");
  }

  /** The key of an authenticated client: its credential's key id. */
  static ClientKey of(String keyId) {
    return new ClientKey("key:" + keyId);
  }

  /** The key of {@code call}'s client: the key that authenticated it, else its address. */
  static ClientKey of(Call call) {
    return call.principal()
        .map(p -> ClientKey.of(p.keyId()))
        .orElseGet(
            () -> {
              String host =
                  call.request().remotePeer().address() instanceof InetSocketAddress a
                          && a.getAddress() != null
                      ? a.getAddress().getHostAddress()
                      : call.request().remotePeer().host();
              return new ClientKey("address:" + host);
            });
  }
}
