package io.switchboard.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The image's health check asks the server of its own container, where its variables put it. */
class HealthCheckTest {

  @Test
  void theDefaultUrlFollowsTheServersVariables() {
    assertEquals(URI.create("http://127.0.0.1:8080/health"), HealthCheck.defaultUrl(Map.of()));
    assertEquals(
        URI.create("http://127.0.0.1:9000/health"),
        HealthCheck.defaultUrl(Map.of("SWITCHBOARD_PORT", "9000")));
    assertEquals(
        URI.create("https://127.0.0.1:8443/health"),
        HealthCheck.defaultUrl(
            Map.of("SWITCHBOARD_PORT", "8443", "SWITCHBOARD_TLS_CERT", "/run/secrets/cert.pem")));
  }
}
