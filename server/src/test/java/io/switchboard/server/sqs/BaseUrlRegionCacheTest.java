package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Regression (the performance round, docs/benchmarks.md): the region a base URL's host names was
 * matched by regex every time a request's address was made (two or three times per request). It is
 * now kept per base URL, in a bounded cache: the answers stay the same however many base URLs (Host
 * headers) come, past the bound included.
 */
class BaseUrlRegionCacheTest {

  @Test
  void hostRegionMatchedPerRequest_keptPerBaseUrl_sameAnswers() {
    for (int round = 0; round < 2; round++) {
      assertEquals(
          Optional.of("eu-west-1"),
          QueueAddress.baseUrlRegion("http://sqs.eu-west-1.localhost:9324"));
      assertEquals(Optional.empty(), QueueAddress.baseUrlRegion("http://127.0.0.1:9324"));
    }
    for (int i = 0; i < QueueAddress.MAX_BASE_URLS * 3; i++) {
      String region = "ap-south-" + (i % 7 + 1);
      assertEquals(
          Optional.of(region),
          QueueAddress.baseUrlRegion("http://sqs." + region + ".localhost:" + (1000 + i)));
      assertEquals(Optional.empty(), QueueAddress.baseUrlRegion("http://host-" + i + ":80"));
    }
    assertEquals(
        Optional.of("eu-west-1"),
        QueueAddress.baseUrlRegion("http://sqs.eu-west-1.localhost:9324"));
  }
}
