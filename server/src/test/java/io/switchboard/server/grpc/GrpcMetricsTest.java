package io.switchboard.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.CallOptions;
import io.switchboard.proto.v1.ConsumeOpen;
import io.switchboard.proto.v1.ConsumeRequest;
import io.switchboard.proto.v1.OutgoingMessage;
import io.switchboard.proto.v1.PublishRequest;
import io.switchboard.queue.QueueConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** The gRPC API's streams and messages on {@code /metrics}. */
class GrpcMetricsTest {

  @Test
  void streamsOpen_andMessagesSentAndPushed_areOnTheScrape() throws Exception {
    try (GrpcHarness h = new GrpcHarness(c -> c);
        HttpClient http = HttpClient.newHttpClient()) {
      h.engine.createQueue("jobs", QueueConfig.defaults());
      var channel = h.channel();
      var publish = h.publish(channel, CallOptions.DEFAULT);
      for (int i = 0; i < 3; i++) {
        publish
            .requests()
            .onNext(
                PublishRequest.newBuilder()
                    .setQueue("jobs")
                    .setMessage(OutgoingMessage.newBuilder().setBody("m" + i))
                    .build());
        publish.answers().next();
      }
      var consume = h.consume(channel, CallOptions.DEFAULT);
      consume
          .requests()
          .onNext(
              ConsumeRequest.newBuilder()
                  .setOpen(ConsumeOpen.newBuilder().setQueue("jobs").setCredit(2))
                  .build());
      consume.answers().next(); // opened
      consume.answers().next();
      consume.answers().next();

      System.gc(); // a meter holds its source weakly: what only it holds would read NaN now
      String scrape =
          http.send(
                  HttpRequest.newBuilder(URI.create(h.server.uri() + "/metrics")).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertEquals(1.0, value(scrape, "switchboard_grpc_streams{rpc=\"Publish\"}"), scrape);
      assertEquals(1.0, value(scrape, "switchboard_grpc_streams{rpc=\"Consume\"}"), scrape);
      assertEquals(3.0, value(scrape, "switchboard_grpc_messages_total{direction=\"sent\"}"));
      assertEquals(2.0, value(scrape, "switchboard_grpc_messages_total{direction=\"pushed\"}"));
    }
  }

  private static double value(String scrape, String series) {
    for (String line : scrape.split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim());
      }
    }
    assertTrue(false, series + " is not on the scrape");
    return -1;
  }
}
