package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.proto.RoutingService;
import io.switchboard.proto.v1.EventsRequest;
import io.switchboard.proto.v1.RoutingEvent;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code Routing.Events}: the SSE feed's content (GET /v1/routing/events) as a gRPC server stream,
 * event for event: the same ids, types and JSON, the same resumption and the same agent filter.
 */
class GrpcRoutingEventsTest {

  private static final long TIMEOUT_SECONDS = 10;

  private SwitchboardServer server;
  private Http http;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    server = SwitchboardServer.start(ServerConfig.forTests().with(Settings.GRPC_PORT, 0));
    http = new Http(server.uri());
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort().orElseThrow())
            .usePlaintext()
            .build();
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    http.close();
    server.stop();
  }

  private void post(String path, String body) {
    Http.Answer a = http.post(path, body);
    assertEquals(201, a.status(), a.toString());
  }

  private void agent(String id) {
    post(
        "/v1/routing/agents",
        "{\"id\":\"" + id + "\",\"capacity\":{\"voice\":1},\"presence\":\"available\"}");
  }

  /** An open Events stream: its events, then its end. */
  private final class Stream implements AutoCloseable {
    final BlockingQueue<Object> events = new LinkedBlockingQueue<>();
    final ClientCall<EventsRequest, RoutingEvent> call =
        channel.newCall(RoutingService.EVENTS, CallOptions.DEFAULT);

    Stream(EventsRequest request) {
      ClientCalls.asyncServerStreamingCall(
          call,
          request,
          new StreamObserver<>() {
            @Override
            public void onNext(RoutingEvent value) {
              events.add(value);
            }

            @Override
            public void onError(Throwable t) {
              events.add(t);
            }

            @Override
            public void onCompleted() {
              events.add("completed");
            }
          });
    }

    RoutingEvent next() throws InterruptedException {
      Object e = events.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      assertNotNull(e, "no event within " + TIMEOUT_SECONDS + " s");
      return assertInstanceOf(RoutingEvent.class, e, "an event, not the stream's end");
    }

    Object end() throws InterruptedException {
      Object e = events.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      assertNotNull(e, "no end within " + TIMEOUT_SECONDS + " s");
      return e;
    }

    @Override
    public void close() {
      call.cancel("test done", null);
    }
  }

  @Test
  void events_areTheSseFeeds_replayedThenLive() throws Exception {
    agent("a");
    post("/v1/routing/contacts", "{\"id\":\"c1\",\"channel\":\"voice\"}");
    List<SseStream.Event> sse;
    try (SseStream r =
        new SseStream(
            http.client(), server.uri().resolve("/v1/routing/events"), Map.of(), TIMEOUT_SECONDS)) {
      sse = r.next(3);
    }
    try (Stream s = new Stream(EventsRequest.getDefaultInstance())) {
      for (SseStream.Event expected : sse) {
        RoutingEvent e = s.next();
        assertEquals(expected.id(), e.getId());
        assertEquals(expected.type(), e.getType());
        assertEquals(expected.data(), data(e), "the same JSON as the SSE data line");
      }
      agent("b");
      RoutingEvent live = s.next();
      assertEquals(4, live.getId());
      assertEquals("agent.created", live.getType());
      assertEquals("b", data(live).at("/agent/id").asText());
    }
  }

  @Test
  void events_resumeAfterAnId_orStartAtTheTail() throws Exception {
    agent("a");
    agent("b");
    agent("c");
    try (Stream s = new Stream(EventsRequest.newBuilder().setAfter(2).build())) {
      RoutingEvent first = s.next();
      assertEquals(3, first.getId());
      assertEquals("c", data(first).at("/agent/id").asText());
    }
    try (Stream s = new Stream(EventsRequest.newBuilder().setFromNow(true).build())) {
      RoutingEvent start = s.next();
      assertEquals("start", start.getType());
      assertEquals(3, start.getId());
      agent("d");
      assertEquals(4, s.next().getId());
    }
  }

  @Test
  void agentEvents_carryOnlyThatAgentsEvents() throws Exception {
    agent("a");
    agent("b");
    try (Stream s = new Stream(EventsRequest.newBuilder().setAgent("b").build())) {
      assertEquals(2, s.next().getId());
      post("/v1/routing/contacts", "{\"id\":\"c1\",\"channel\":\"voice\"}");
      post("/v1/routing/contacts", "{\"id\":\"c2\",\"channel\":\"voice\"}");
      RoutingEvent offered = s.next();
      assertEquals("reservation.offered", offered.getType());
      assertEquals("c2", data(offered).at("/reservation/contactId").asText());
    }
  }

  @Test
  void badRequests_andUnknownAgents_areRefusedWithTheirCode() throws Exception {
    try (Stream s = new Stream(EventsRequest.newBuilder().setAfter(-1).build())) {
      Status status = assertInstanceOf(StatusRuntimeException.class, s.end()).getStatus();
      assertEquals(Status.Code.INVALID_ARGUMENT, status.getCode());
    }
    try (Stream s = new Stream(EventsRequest.newBuilder().setAgent("nobody").build())) {
      Status status = assertInstanceOf(StatusRuntimeException.class, s.end()).getStatus();
      assertEquals(Status.Code.NOT_FOUND, status.getCode(), status.toString());
      assertEquals("AGENT_NOT_FOUND: ", status.getDescription().substring(0, 17));
    }
  }

  @Test
  void serverStop_endsTheStream() throws Exception {
    agent("a");
    Stream s = new Stream(EventsRequest.getDefaultInstance());
    assertEquals(1, s.next().getId());
    server.stop();
    Object end = s.end();
    if (end instanceof StatusRuntimeException e) {
      assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.toString());
    } else {
      assertEquals("completed", end);
    }
  }

  private static com.fasterxml.jackson.databind.JsonNode data(RoutingEvent e) {
    return WireFormat.parse(e.getDataJson().getBytes(StandardCharsets.UTF_8));
  }
}
