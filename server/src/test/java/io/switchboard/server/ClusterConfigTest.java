package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.cluster.ClusterRouting;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.StartupException;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The settings of routing across servers: {@code advertise-url} and {@code routing-lease}. */
class ClusterConfigTest {

  private static final Map<String, String> PG = Map.of("postgres-url", "jdbc:postgresql://db/x");

  private static ServerConfig.Postgres resolve(Map<String, String> flags, Map<String, String> env) {
    java.util.Map<String, String> all = new java.util.HashMap<>(PG);
    all.putAll(flags);
    return ServerConfig.resolve(all, env).postgres().orElseThrow();
  }

  @Test
  void defaults_listeningAddressAndFiveSecondLease() {
    ServerConfig.Postgres pg = resolve(Map.of(), Map.of());
    assertEquals(Optional.empty(), pg.advertiseUrl());
    assertEquals(Duration.ofSeconds(5), pg.routingLease());
  }

  @Test
  void fromEnvironmentAndFlags() {
    ServerConfig.Postgres pg =
        resolve(
            Map.of("routing-lease", "1500ms"),
            Map.of("SWITCHBOARD_ADVERTISE_URL", "https://sb-2.internal:8443/"));
    assertEquals(Optional.of(URI.create("https://sb-2.internal:8443")), pg.advertiseUrl());
    assertEquals(Duration.ofMillis(1500), pg.routingLease());
    assertTrue(pg.toString().contains("advertiseUrl=https://sb-2.internal:8443"), pg.toString());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"10.0.0.5:8080", "ftp://host", "http://host/path", "http://host?x=1", "http://"})
  void malformedAdvertiseUrl_isRefusedNamingValueAndSource(String value) {
    StartupException e =
        assertThrows(
            StartupException.class,
            () -> resolve(Map.of(), Map.of("SWITCHBOARD_ADVERTISE_URL", value)));
    assertTrue(
        e.getMessage().startsWith("advertise-url must be an absolute http:// or https:// URL")
            && e.getMessage().contains("'" + value + "'")
            && e.getMessage().contains("(from SWITCHBOARD_ADVERTISE_URL)"),
        e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"500ms", "10m", "soon", "0s"})
  void routingLeaseOutsideOneSecondToFiveMinutes_isRefused(String value) {
    StartupException e =
        assertThrows(
            StartupException.class, () -> resolve(Map.of("routing-lease", value), Map.of()));
    assertTrue(
        e.getMessage().startsWith("routing-lease must be a duration of 1s..5m")
            && e.getMessage().contains("'" + value + "'")
            && e.getMessage().contains("(from --routing-lease)"),
        e.getMessage());
  }

  @Test
  void defaultAdvertised_isTheBindAddress_orThisMachinesNameForAWildcard() {
    assertEquals(
        URI.create("http://127.0.0.1:8080"), ClusterRouting.defaultAdvertised("127.0.0.1", 8080));
    assertEquals(URI.create("http://[::1]:9000"), ClusterRouting.defaultAdvertised("::1", 9000));
    URI wildcard = ClusterRouting.defaultAdvertised("0.0.0.0", 8080);
    assertFalse(wildcard.getHost().equals("0.0.0.0"), wildcard.toString());
    assertEquals(8080, wildcard.getPort());
  }
}
