package io.switchboard.server.security;

import io.switchboard.server.config.PrivateAddresses;
import io.switchboard.server.config.Settings;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Which addresses the server may send requests to at URLs its users give it: assignment callbacks
 * ({@link io.switchboard.server.api.routing.AssignmentCallbacks}), and any later feature that calls
 * a user's URL. A URL naming an address inside the server's network would let whoever may configure
 * it make the server reach what they cannot (server-side request forgery): a cloud's metadata
 * service at {@code 169.254.169.254}, an admin interface on loopback, a database on a private
 * network.
 *
 * <ul>
 *   <li><b>Always refused</b>: link-local addresses ({@code 169.254.0.0/16}, {@code fe80::/10},
 *       where cloud metadata services answer), multicast, and IPv4 addresses embedded in IPv6 ones
 *       ({@code 64:ff9b::/96}, {@code 2002::/16}, {@code ::a.b.c.d}) that are any of these;
 *   <li><b>Refused unless allowed</b> ({@link Settings#OUTBOUND_PRIVATE_ADDRESSES}): loopback
 *       ({@code 127.0.0.0/8}, {@code ::1}, the unspecified {@code 0.0.0.0} and {@code ::}), private
 *       ({@code 10/8}, {@code 172.16/12}, {@code 192.168/16}, {@code 100.64/10}, {@code fc00::/7},
 *       {@code fec0::/10}). A receiver on the developer's own machine is a real use: by default
 *       ({@code auto}) they are allowed on a server without access keys bound to loopback (which
 *       only its own machine can reach), refused otherwise;
 *   <li>any other (public) address is allowed.
 * </ul>
 *
 * A URL is checked twice: when it is configured ({@link #checkConfigured}, with an error naming the
 * address and the setting), and on every send ({@link #checkSend}), on every address its host
 * resolves to then, since DNS may answer differently later. The send-time lookup is the JVM's,
 * which keeps an answer ({@code networkaddress.cache.ttl}, 30 seconds by default), so the HTTP
 * client that connects right after it gets the same addresses.
 */
public final class OutboundAddresses {

  /** Resolves a host name to its addresses; {@link InetAddress#getAllByName} but in tests. */
  public interface Resolver {
    InetAddress[] resolve(String host) throws UnknownHostException;
  }

  /** A URL the server may not send to: what it names, and why. */
  public static final class Refused extends Exception {
    Refused(String message) {
      super(message, null, false, false);
    }
  }

  private final BooleanSupplier privateAllowed;
  private final Resolver resolver;

  /**
   * @param privateAllowed whether loopback and private addresses may be reached now
   * @param resolver how host names are resolved
   */
  public OutboundAddresses(BooleanSupplier privateAllowed, Resolver resolver) {
    this.privateAllowed = privateAllowed;
    this.resolver = resolver;
  }

  /**
   * The policy {@code setting} says: for {@code auto}, private addresses are allowed while {@code
   * keyless} says the server has no access key and {@code loopbackBind} that it listens on loopback
   * only.
   */
  public static OutboundAddresses of(
      PrivateAddresses setting, BooleanSupplier keyless, boolean loopbackBind) {
    BooleanSupplier allowed =
        switch (setting) {
          case ALLOWED -> () -> true;
          case REFUSED -> () -> false;
          case AUTO -> () -> loopbackBind && keyless.getAsBoolean();
        };
    return new OutboundAddresses(allowed, InetAddress::getAllByName);
  }

  /** Every address allowed but link-local and multicast ones: for tests of what is not this. */
  public static OutboundAddresses privateAllowed() {
    return new OutboundAddresses(() -> true, InetAddress::getAllByName);
  }

  /**
   * Checks a URL as it is configured: its host, when it is an address or a name that resolves now,
   * must not be one refused. A name that does not resolve yet passes (each send checks again).
   *
   * @param field the setting's or field's name, for the message
   * @throws Refused naming the field, the host, the address and what is allowed
   */
  public void checkConfigured(String field, URI url) throws Refused {
    String host = host(url);
    InetAddress[] addresses;
    try {
      addresses = resolver.resolve(host);
    } catch (UnknownHostException notYet) {
      return;
    }
    check(field, host, addresses);
  }

  /**
   * Checks a URL as a request is about to be sent to it: every address its host resolves to now
   * must be allowed.
   *
   * @return the addresses checked, in the resolver's order (a client connects to the first: the one
   *     checked, whatever DNS answers next)
   * @throws Refused as {@link #checkConfigured}, or when the host does not resolve
   */
  public InetAddress[] checkSend(String field, URI url) throws Refused {
    String host = host(url);
    InetAddress[] addresses;
    try {
      addresses = resolver.resolve(host);
    } catch (UnknownHostException e) {
      throw new Refused(field + ": host '" + host + "' does not resolve");
    }
    if (addresses.length == 0) {
      throw new Refused(field + ": host '" + host + "' does not resolve");
    }
    check(field, host, addresses);
    return addresses;
  }

  private void check(String field, String host, InetAddress[] addresses) throws Refused {
    boolean allowPrivate = privateAllowed.getAsBoolean();
    for (InetAddress address : addresses) {
      Optional<String> why = refusal(address, allowPrivate);
      if (why.isPresent()) {
        throw new Refused(
            field
                + " may not name "
                + (host.equals(address.getHostAddress())
                    ? "address " + host
                    : "host '" + host + "', which resolves to " + address.getHostAddress())
                + ": it is "
                + why.get());
      }
    }
  }

  /** The URL's host, without IPv6 brackets. */
  private static String host(URI url) {
    String host = Optional.ofNullable(url.getHost()).orElse("");
    return host.startsWith("[") && host.endsWith("]")
        ? host.substring(1, host.length() - 1)
        : host.toLowerCase(Locale.ROOT);
  }

  /** Why {@code address} is refused, or empty when it is allowed. */
  static Optional<String> refusal(InetAddress address, boolean allowPrivate) {
    Optional<Inet4Address> embedded = embeddedIpv4(address);
    if (embedded.isPresent()) {
      return refusal(embedded.get(), allowPrivate);
    }
    if (address.isLinkLocalAddress()) {
      return Optional.of(
          "a link-local address (169.254.0.0/16, fe80::/10: cloud metadata services answer there),"
              + " which the server never sends to");
    }
    if (address.isMulticastAddress()) {
      return Optional.of("a multicast address, which the server never sends to");
    }
    if (allowPrivate) {
      return Optional.empty();
    }
    String allow =
        ", which this server does not send to: set outbound-private-addresses=allowed to let it"
            + " (docs/security.md, \"Outbound requests\")";
    if (address.isLoopbackAddress() || address.isAnyLocalAddress()) {
      return Optional.of("a loopback address (127.0.0.0/8, ::1, 0.0.0.0)" + allow);
    }
    if (address.isSiteLocalAddress() || uniqueLocal(address) || sharedAddressSpace(address)) {
      return Optional.of(
          "a private address (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7)" + allow);
    }
    return Optional.empty();
  }

  /** {@code fc00::/7}, IPv6 unique local addresses (which {@code isSiteLocalAddress} misses). */
  private static boolean uniqueLocal(InetAddress address) {
    return address instanceof Inet6Address && (address.getAddress()[0] & 0xfe) == 0xfc;
  }

  /** {@code 100.64.0.0/10}, the carriers' shared address space, private in practice. */
  private static boolean sharedAddressSpace(InetAddress address) {
    byte[] b = address.getAddress();
    return address instanceof Inet4Address && (b[0] & 0xff) == 100 && (b[1] & 0xc0) == 64;
  }

  /**
   * The IPv4 address an IPv6 one carries, by which a host may be reached: NAT64 ({@code
   * 64:ff9b::/96}), 6to4 ({@code 2002::/16}) and the old IPv4-compatible form ({@code ::a.b.c.d}).
   * ({@code ::ffff:a.b.c.d} is read as IPv4 by Java already.)
   */
  private static Optional<Inet4Address> embeddedIpv4(InetAddress address) {
    if (!(address instanceof Inet6Address)) {
      return Optional.empty();
    }
    byte[] b = address.getAddress();
    byte[] v4 = null;
    if ((b[0] & 0xff) == 0x00
        && (b[1] & 0xff) == 0x64
        && (b[2] & 0xff) == 0xff
        && b[3] == (byte) 0x9b
        && zero(b, 4, 12)) {
      v4 = java.util.Arrays.copyOfRange(b, 12, 16);
    } else if ((b[0] & 0xff) == 0x20 && (b[1] & 0xff) == 0x02) {
      v4 = java.util.Arrays.copyOfRange(b, 2, 6);
    } else if (zero(b, 0, 12) && !zero(b, 12, 15)) {
      v4 = java.util.Arrays.copyOfRange(b, 12, 16); // ::a.b.c.d, but not ::1 or ::
    }
    if (v4 == null) {
      return Optional.empty();
    }
    try {
      return Optional.of((Inet4Address) InetAddress.getByAddress(v4));
    } catch (UnknownHostException e) {
      throw new IllegalStateException("four bytes are an IPv4 address", e);
    }
  }

  private static boolean zero(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return true;
  }
}
