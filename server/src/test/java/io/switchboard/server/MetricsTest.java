package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

  /**
   * Only the default workspace used to be exported: contacts waiting in any other were invisible to
   * /metrics, the dashboard and the service-level alert. Each shown workspace now has series of its
   * own, labelled; the busiest {@code metrics-top-workspaces} and the named are shown.
   */
  @Test
  void metrics_routingSeriesPerWorkspace_forDefaultTheBusiestAndTheNamed() {
    ServerConfig config =
        ServerConfig.forTests()
            .with(Settings.METRICS_TOP_WORKSPACES, 1)
            .with(Settings.METRICS_WORKSPACES, Set.of("quiet"));
    try (SwitchboardServer server = SwitchboardServer.start(config);
        Http http = new Http(server.uri())) {
      for (String ws : List.of("busy", "calm", "quiet")) {
        assertEquals(201, http.post("/v1/workspaces", "{\"name\":\"" + ws + "\"}").status());
      }
      for (int i = 0; i < 3; i++) {
        http.post("/v1/workspaces/busy/contacts", "{\"id\":\"b" + i + "\",\"channel\":\"voice\"}");
      }
      http.post("/v1/workspaces/calm/contacts", "{\"id\":\"c0\",\"channel\":\"voice\"}");

      String text = http.get("/metrics").text();
      assertTrue(text.contains(waiting("busy", 3)), text);
      assertTrue(text.contains(waiting("quiet", 0)), text);
      assertTrue(text.contains(waiting("default", 0)), text);
      assertFalse(text.contains("workspace=\"calm\""), "beyond metrics-top-workspaces: " + text);
      assertTrue(
          text.contains(
              "switchboard_routing_agents{presence=\"available\",workspace=\"busy\"} 0.0"),
          text);
    }
  }

  private static String waiting(String workspace, int contacts) {
    return "switchboard_routing_contacts_waiting{channel=\"all\",requirements=\"all\",workspace=\""
        + workspace
        + "\"} "
        + contacts
        + ".0";
  }

  /**
   * {@code metrics-top-queues} bounds the per-queue series; {@code metrics-queues} adds queues
   * shown however empty; the totals count every queue.
   */
  @Test
  void metrics_perQueueSeriesForTheTopAndTheNamed_totalsForAll() {
    ServerConfig config =
        ServerConfig.forTests()
            .with(Settings.METRICS_TOP_QUEUES, 1)
            .with(Settings.METRICS_QUEUES, Set.of("watched"));
    try (SwitchboardServer server = SwitchboardServer.start(config);
        Http http = new Http(server.uri())) {
      for (String q : List.of("deep", "shallow", "watched")) {
        http.post("/v1/queues", "{\"name\":\"" + q + "\"}");
      }
      http.post("/v1/queues/deep/messages", "{\"body\":\"a\"}");
      http.post("/v1/queues/deep/messages", "{\"body\":\"b\"}");

      String text = http.get("/metrics").text();
      assertTrue(
          text.contains("switchboard_queue_messages{queue=\"deep\",state=\"available\"} 2.0"),
          text);
      assertTrue(text.contains("switchboard_queue_bytes{queue=\"watched\"} 0.0"), text);
      assertFalse(text.contains("queue=\"shallow\""), text);
      assertTrue(text.contains("switchboard_queues 3.0"), text);
      assertTrue(text.contains("switchboard_messages{state=\"available\"} 2.0"), text);
    }
  }

  @Test
  void metrics_timeSqsRequestsPerAction_notInOneSqsBucket() {
    try (SwitchboardServer server = SwitchboardServer.start(ServerConfig.forTests());
        Http http = new Http(server.uri())) {
      String url = server.uri() + "/000000000000/s";
      assertEquals(200, sqsJson(http, "CreateQueue", "{\"QueueName\":\"s\"}"));
      assertEquals(
          200,
          sqsJson(http, "SendMessage", "{\"QueueUrl\":\"" + url + "\",\"MessageBody\":\"x\"}"));
      assertEquals(200, sqsJson(http, "ReceiveMessage", "{\"QueueUrl\":\"" + url + "\"}"));
      assertEquals(
          200, http.post("/", "Action=ReceiveMessage&Version=2012-11-05&QueueUrl=" + url).status());
      assertEquals(400, sqsJson(http, "NoSuchAction", "{}"));

      String text = http.get("/metrics").text();
      assertTrue(
          text.contains(
              "switchboard_http_requests_seconds_count{operation=\"sqs.CreateQueue\",status=\"200\"} 1"),
          text);
      assertTrue(
          text.contains(
              "switchboard_http_requests_seconds_count{operation=\"sqs.SendMessage\",status=\"200\"} 1"),
          text);
      assertTrue(
          text.contains(
              "switchboard_http_requests_seconds_count{operation=\"sqs.ReceiveMessage\",status=\"200\"} 2"),
          text);
      // an action not served is not a series of its own: names stay a bounded set
      assertTrue(
          text.contains(
              "switchboard_http_requests_seconds_count{operation=\"sqs\",status=\"400\"} 1"),
          text);
      assertFalse(text.contains("NoSuchAction"), text);
    }
  }

  private static int sqsJson(Http http, String action, String body) {
    return http.send(
            "POST",
            "/",
            body,
            Map.of(
                "X-Amz-Target",
                "AmazonSQS." + action,
                "Content-Type",
                "application/x-amz-json-1.0"))
        .status();
  }
}
