package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class MetricsTest {

  @Test
  void metrics_exposeQueueFiguresAndRequestLatencies_andForgetDeletedQueues() {
    try (SwitchboardServer server = SwitchboardServer.start(ServerConfig.forTests());
        Http http = new Http(server.uri())) {
      http.post("/v1/queues", "{\"name\":\"m\"}");
      http.post("/v1/queues/m/messages", "{\"body\":\"a\"}");
      http.post("/v1/queues/m/messages", "{\"body\":\"b\"}");
      String receipt =
          http.post("/v1/queues/m/receive", "{}").json().at("/messages/0/receipt").asText();
      http.post("/v1/queues/m/leases/" + receipt + "/ack", null);
      http.post("/v1/queues/m/receive", "{}");

      Http.Answer scrape = http.get("/metrics");
      assertTrue(
          scrape.raw().headers().firstValue("content-type").orElse("").startsWith("text/plain"));
      String text = scrape.text();
      assertTrue(
          text.contains("switchboard_queue_messages{queue=\"m\",state=\"in_flight\"} 1.0"), text);
      assertTrue(
          text.contains("switchboard_queue_messages{queue=\"m\",state=\"available\"} 0.0"), text);
      assertTrue(
          text.contains("switchboard_queue_events_total{event=\"sent\",queue=\"m\"} 2.0"), text);
      assertTrue(
          text.contains("switchboard_queue_events_total{event=\"acked\",queue=\"m\"} 1.0"), text);
      assertTrue(
          text.contains("switchboard_queue_events_total{event=\"dead_lettered\",queue=\"m\"}"),
          text);
      assertTrue(text.contains("switchboard_queue_oldest_age_seconds{queue=\"m\"}"), text);
      assertTrue(
          text.contains(
              "switchboard_http_requests_seconds_count{operation=\"send\",status=\"201\"} 2"),
          text);

      http.send("DELETE", "/v1/queues/m", null);
      assertFalse(http.get("/metrics").text().contains("queue=\"m\""));
    }
  }
}
