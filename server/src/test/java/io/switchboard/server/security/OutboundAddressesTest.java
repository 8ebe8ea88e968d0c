package io.switchboard.server.security;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.config.PrivateAddresses;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Where the server may send requests at URLs it is given ({@link OutboundAddresses}): never to a
 * link-local (metadata) address, to loopback and private ones only when allowed, to public ones
 * always; a host name is judged by what it resolves to.
 */
class OutboundAddressesTest {

  private static OutboundAddresses allowingPrivate(boolean allowed) {
    return new OutboundAddresses(() -> allowed, InetAddress::getAllByName);
  }

  private static URI url(String host) {
    return URI.create("http://" + host + ":8080/offers");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "169.254.169.254",
        "169.254.0.1",
        "[fe80::1]",
        "[::ffff:169.254.169.254]",
        "[64:ff9b::a9fe:a9fe]",
        "[2002:a9fe:a9fe::1]",
        "224.0.0.1"
      })
  void linkLocalAndMulticast_areRefused_evenWithPrivateAddressesAllowed(String host) {
    OutboundAddresses.Refused e =
        assertThrows(
            OutboundAddresses.Refused.class,
            () -> allowingPrivate(true).checkConfigured("assignmentCallbackUrl", url(host)));
    assertTrue(e.getMessage().startsWith("assignmentCallbackUrl may not name"), e.getMessage());
    assertTrue(e.getMessage().contains("never sends to"), e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "127.0.0.1",
        "localhost",
        "[::1]",
        "0.0.0.0",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.10",
        "100.64.0.1",
        "[fd00::1]",
        "[fd00:ec2::254]"
      })
  void loopbackAndPrivate_areRefusedUnlessAllowed_namingTheSetting(String host) {
    OutboundAddresses.Refused e =
        assertThrows(
            OutboundAddresses.Refused.class,
            () -> allowingPrivate(false).checkConfigured("assignmentCallbackUrl", url(host)));
    assertTrue(e.getMessage().contains("outbound-private-addresses=allowed"), e.getMessage());
    assertDoesNotThrow(() -> allowingPrivate(true).checkConfigured("f", url(host)));
    assertDoesNotThrow(() -> allowingPrivate(true).checkSend("f", url(host)));
  }

  @ParameterizedTest
  @ValueSource(strings = {"203.0.113.7", "8.8.8.8", "[2001:db8::1]"})
  void publicAddresses_areAllowed(String host) {
    assertDoesNotThrow(() -> allowingPrivate(false).checkConfigured("f", url(host)));
    assertDoesNotThrow(() -> allowingPrivate(false).checkSend("f", url(host)));
  }

  @Test
  void aNameIsJudgedByEveryAddressItResolvesTo_andNamedInTheError() throws Exception {
    Map<String, InetAddress[]> dns =
        Map.of(
            "metadata.example.test",
            new InetAddress[] {
              InetAddress.getByName("203.0.113.7"), InetAddress.getByName("169.254.169.254")
            });
    OutboundAddresses outbound =
        new OutboundAddresses(
            () -> true,
            host -> {
              InetAddress[] a = dns.get(host);
              if (a == null) {
                throw new UnknownHostException(host);
              }
              return a;
            });
    OutboundAddresses.Refused e =
        assertThrows(
            OutboundAddresses.Refused.class,
            () -> outbound.checkSend("assignmentCallbackUrl", url("metadata.example.test")));
    assertTrue(
        e.getMessage().contains("host 'metadata.example.test', which resolves to 169.254.169.254"),
        e.getMessage());

    // a name that does not resolve yet may be configured; it cannot be sent to
    assertDoesNotThrow(() -> outbound.checkConfigured("f", url("later.example.test")));
    assertThrows(
        OutboundAddresses.Refused.class, () -> outbound.checkSend("f", url("later.example.test")));
  }

  @Test
  void auto_allowsPrivateAddresses_onAKeylessLoopbackServerOnly() {
    URI local = url("127.0.0.1");
    var auto = PrivateAddresses.AUTO;
    assertDoesNotThrow(() -> OutboundAddresses.of(auto, () -> true, true).checkSend("f", local));
    assertThrows(
        OutboundAddresses.Refused.class,
        () -> OutboundAddresses.of(auto, () -> false, true).checkSend("f", local));
    assertThrows(
        OutboundAddresses.Refused.class,
        () -> OutboundAddresses.of(auto, () -> true, false).checkSend("f", local));
    assertDoesNotThrow(
        () ->
            OutboundAddresses.of(PrivateAddresses.ALLOWED, () -> false, false)
                .checkSend("f", local));
    assertThrows(
        OutboundAddresses.Refused.class,
        () ->
            OutboundAddresses.of(PrivateAddresses.REFUSED, () -> true, true).checkSend("f", local));
  }
}
