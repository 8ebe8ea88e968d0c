package io.switchboard.server.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.config.ServerConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (the performance round, docs/benchmarks.md): whether a {@code Host} header names this
 * server was parsed and matched twice per request (the guard, then the base URL of an SQS answer).
 * It is now kept per header value, in a bounded cache: the verdicts stay the same however many
 * values come, past the bound included.
 */
class ExposureGuardHostCacheTest {

  private final ExposureGuard guard =
      new ExposureGuard(
          ServerConfig.resolve(
              Map.of("port", "0", "in-memory", "true", "public-url", "https://queues.example.com"),
              Map.of()),
          () -> 9324,
          () -> true);

  @Test
  void hostVerdictKeptPerHeader_sameAnswers_bounded() {
    for (int round = 0; round < 2; round++) {
      assertTrue(guard.allowedHost("localhost:9324"));
      assertTrue(guard.allowedHost("sqs.eu-west-1.localhost:9324"));
      assertTrue(guard.allowedHost(" 127.0.0.1 "));
      assertTrue(guard.allowedHost("[::1]:9324"));
      assertTrue(guard.allowedHost("queues.example.com"));
      assertFalse(guard.allowedHost("evil.example.com"));
      assertFalse(guard.allowedHost("localhost.evil.example.com:9324"));
    }
    for (int i = 0; i < ExposureGuard.MAX_HOSTS * 3; i++) {
      assertTrue(guard.allowedHost("n" + i + ".localhost:" + (1000 + i)));
      assertFalse(guard.allowedHost("host-" + i + ".example.org"));
      assertTrue(guard.hostsKept() <= ExposureGuard.MAX_HOSTS);
    }
    assertTrue(guard.allowedHost("localhost:9324"));
    assertFalse(guard.allowedHost("evil.example.com"));
    assertEquals(true, guard.hostsKept() <= ExposureGuard.MAX_HOSTS);
  }
}
