package io.switchboard.server.observability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.QueueEngine;
import io.switchboard.server.EngineFactory;
import io.switchboard.server.Http;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.StartupException;
import io.switchboard.testing.Await;
import io.switchboard.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tracing ({@code docs/deploy.md}, "Tracing") with the SDK's in-memory exporter: request spans,
 * message spans linked across send and receive by the context the message carries (W3C {@code
 * traceparent}, or SQS {@code AWSTraceHeader}), routing decisions; off unless {@code OTEL_*} asks.
 */
class TracingTest {

  /** A sender's span, as a W3C {@code traceparent}. */
  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

  private static final String SENDER = "00f067aa0ba902b7";
  private static final String TRACEPARENT = "00-" + TRACE + "-" + SENDER + "-01";

  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private SwitchboardServer server;
  private Http http;

  @BeforeEach
  void start() {
    OpenTelemetrySdk sdk =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    ServerConfig config = ServerConfig.forTests();
    server =
        SwitchboardServer.start(
            config,
            EngineFactory.forConfig(config),
            Clock.system(),
            new OpenTelemetryTracing(sdk, sdk));
    http = new Http(server.uri());
  }

  @AfterEach
  void stop() {
    http.close();
    server.close();
  }

  @Test
  void request_isAServerSpanNamedAfterItsRoute_childOfTheCallersTraceparent() {
    Http.Answer created =
        http.send(
            "POST",
            "/v1/queues",
            "{\"name\":\"orders\"}",
            Map.of("Content-Type", "application/json", "traceparent", TRACEPARENT));
    assertEquals(201, created.status(), created.toString());

    SpanData span = await(s -> s.getName().equals("POST /v1/queues"));
    assertEquals(SpanKind.SERVER, span.getKind());
    assertEquals(TRACE, span.getTraceId());
    assertEquals(SENDER, span.getParentSpanId());
    assertEquals("POST", attr(span, "http.request.method"));
    assertEquals("/v1/queues", attr(span, "http.route"));
    assertEquals("/v1/queues", attr(span, "url.path"));
    assertEquals("http", attr(span, "url.scheme"));
    assertEquals(201L, span.getAttributes().get(AttributeKey.longKey("http.response.status_code")));
    assertEquals("createQueue", attr(span, "switchboard.operation"));
    assertEquals(
        created.raw().headers().firstValue("X-Request-Id").orElseThrow(),
        attr(span, "switchboard.request_id"));

    http.post("/v1/queues/orders/messages", "{\"body\":\"x\"}");
    SpanData send = await(s -> s.getName().equals("POST /v1/queues/{queue}/messages"));
    assertEquals("/v1/queues/{queue}/messages", attr(send, "http.route"), "the template");
    assertEquals("/v1/queues/orders/messages", attr(send, "url.path"));
    assertFalse(send.getParentSpanContext().isValid(), "no traceparent: a new trace");
  }

  @Test
  void message_sentWithATraceparent_isReceivedInASpanLinkedToTheSendersSpan() {
    http.post("/v1/queues", "{\"name\":\"q\"}");
    Http.Answer sent =
        http.post(
            "/v1/queues/q/messages",
            "{\"body\":\"hello\",\"attributes\":{\"traceparent\":\"" + TRACEPARENT + "\"}}");
    assertEquals(201, sent.status(), sent.toString());
    String id = sent.json().path("id").asText();

    SpanData produce = await(s -> s.getName().equals("send q"));
    SpanData sendRequest = await(s -> s.getName().equals("POST /v1/queues/{queue}/messages"));
    assertEquals(SpanKind.PRODUCER, produce.getKind());
    assertEquals(sendRequest.getSpanId(), produce.getParentSpanId(), "inside the request");
    assertEquals(id, attr(produce, "messaging.message.id"));
    assertEquals("q", attr(produce, "messaging.destination.name"));
    assertEquals("switchboard", attr(produce, "messaging.system"));
    assertEquals("send", attr(produce, "messaging.operation.type"));
    assertLinkedTo(produce, TRACE, SENDER);

    String receipt =
        http.post("/v1/queues/q/receive", "{}").json().at("/messages/0/receipt").asText();
    SpanData receive = await(s -> s.getName().equals("receive q"));
    SpanData receiveRequest = await(s -> s.getName().equals("POST /v1/queues/{queue}/receive"));
    assertEquals(SpanKind.CONSUMER, receive.getKind());
    assertEquals(receiveRequest.getSpanId(), receive.getParentSpanId());
    assertEquals(id, attr(receive, "messaging.message.id"));
    assertEquals(
        1L, receive.getAttributes().get(AttributeKey.longKey("messaging.batch.message_count")));
    LinkData link = assertLinkedTo(receive, TRACE, SENDER);
    assertEquals(id, link.getAttributes().get(AttributeKey.stringKey("messaging.message.id")));

    http.post("/v1/queues/q/leases/" + receipt + "/ack", null);
    SpanData ack = await(s -> s.getName().equals("ack q"));
    SpanData ackRequest = await(s -> s.getName().startsWith("POST /v1/queues/{queue}/leases/"));
    assertEquals(ackRequest.getSpanId(), ack.getParentSpanId());
    assertEquals("settle", attr(ack, "messaging.operation.type"));
  }

  @Test
  void message_sentWithoutAContext_carriesTheSendSpans_soItsReceiveLinksToTheSend() {
    http.post("/v1/queues", "{\"name\":\"plain\"}");
    Http.Answer sent =
        http.post("/v1/queues/plain/messages", "{\"body\":\"hi\",\"attributes\":{\"k\":\"v\"}}");
    assertEquals(201, sent.status(), sent.toString());
    SpanData produce = await(s -> s.getName().equals("send plain"));
    assertTrue(produce.getLinks().isEmpty(), "nothing to link to: the sender sent no context");

    var message = http.post("/v1/queues/plain/receive", "{}").json().at("/messages/0");
    assertEquals(
        "00-" + produce.getTraceId() + "-" + produce.getSpanId() + "-01",
        message.at("/attributes/traceparent").asText(),
        "the send span's context, in W3C form: " + message);
    assertEquals("v", message.at("/attributes/k").asText(), "the sender's attributes kept");
    SpanData receive = await(s -> s.getName().equals("receive plain"));
    assertLinkedTo(receive, produce.getTraceId(), produce.getSpanId());
  }

  @Test
  void message_sentWithoutAContext_thatCouldNotHoldOneMore_isSentAsItWas() {
    assertEquals(
        201, http.post("/v1/queues", "{\"name\":\"tight\",\"maxMessageSizeBytes\":1024}").status());
    // exactly the queue's maximum: the context's bytes would make it too large
    String body = "x".repeat(1024);
    Http.Answer sent = http.post("/v1/queues/tight/messages", "{\"body\":\"" + body + "\"}");
    assertEquals(201, sent.status(), sent.toString());
    StringBuilder many = new StringBuilder("{\"body\":\"y\",\"attributes\":{");
    for (int i = 0; i < 64; i++) {
      many.append(i == 0 ? "" : ",").append("\"a").append(i).append("\":\"v\"");
    }
    assertEquals(
        201,
        http.post("/v1/queues/tight/messages", many + "}}").status(),
        "64 attributes, as many as a message may hold");

    var messages =
        http.post("/v1/queues/tight/receive", "{\"maxMessages\":10}").json().path("messages");
    assertEquals(2, messages.size(), messages.toString());
    for (var m : messages) {
      assertTrue(m.path("attributes").path("traceparent").isMissingNode(), m.toString());
    }
  }

  @Test
  void sqs_messageSentWithoutATraceHeader_getsTheSendSpansAsAwsTraceHeader_notAsAnAttribute() {
    String url = server.uri() + "/000000000000/plain";
    sqs("CreateQueue", "{\"QueueName\":\"plain\"}");
    assertEquals(
        200, sqs("SendMessage", "{\"QueueUrl\":\"" + url + "\",\"MessageBody\":\"b\"}").status());
    SpanData produce = await(s -> s.getName().equals("send plain"));

    Http.Answer received =
        sqs(
            "ReceiveMessage",
            "{\"QueueUrl\":\""
                + url
                + "\",\"MessageSystemAttributeNames\":[\"All\"],\"MessageAttributeNames\":[\"All\"]}");
    var message = received.json().at("/Messages/0");
    String trace = produce.getTraceId();
    assertEquals(
        "Root=1-"
            + trace.substring(0, 8)
            + "-"
            + trace.substring(8)
            + ";Parent="
            + produce.getSpanId()
            + ";Sampled=1",
        message.at("/Attributes/AWSTraceHeader").asText(),
        message.toString());
    assertTrue(
        message.path("MessageAttributes").isMissingNode(),
        "no attribute the sender did not send: " + message);
    assertLinkedTo(
        await(s -> s.getName().equals("receive plain")), produce.getTraceId(), produce.getSpanId());
  }

  @Test
  void sqs_batchWithoutContexts_eachMessageCarriesTheBatchSendSpans() {
    String url = server.uri() + "/000000000000/batch";
    sqs("CreateQueue", "{\"QueueName\":\"batch\"}");
    Http.Answer sent =
        sqs(
            "SendMessageBatch",
            "{\"QueueUrl\":\""
                + url
                + "\",\"Entries\":[{\"Id\":\"a\",\"MessageBody\":\"1\"},"
                + "{\"Id\":\"b\",\"MessageBody\":\"2\",\"MessageSystemAttributes\":"
                + "{\"AWSTraceHeader\":{\"DataType\":\"String\",\"StringValue\":"
                + "\"Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1\"}}}]}");
    assertEquals(200, sent.status(), sent.toString());
    SpanData produce = await(s -> s.getName().equals("send batch"));
    assertLinkedTo(produce, "5759e988bd862e3fe1be46a994272793", "53995c3f42cd8ad8");

    var messages =
        sqs(
                "ReceiveMessage",
                "{\"QueueUrl\":\""
                    + url
                    + "\",\"MaxNumberOfMessages\":10,\"MessageSystemAttributeNames\":[\"AWSTraceHeader\"]}")
            .json()
            .path("Messages");
    assertEquals(2, messages.size(), messages.toString());
    for (var m : messages) {
      String header = m.at("/Attributes/AWSTraceHeader").asText();
      if (m.path("Body").asText().equals("1")) {
        assertTrue(header.endsWith(";Parent=" + produce.getSpanId() + ";Sampled=1"), header);
      } else {
        assertTrue(header.contains("Parent=53995c3f42cd8ad8"), "the sender's own: " + header);
      }
    }
  }

  @Test
  void message_deadLetteredByTheEngine_thenRedriven_areSpansLinkedToItsContext() {
    http.post("/v1/queues", "{\"name\":\"q-dlq\"}");
    http.post(
        "/v1/queues",
        "{\"name\":\"q\",\"deadLetter\":{\"target\":\"q-dlq\",\"maxReceiveCount\":1}}");
    String id =
        http.post(
                "/v1/queues/q/messages",
                "{\"body\":\"x\",\"attributes\":{\"traceparent\":\"" + TRACEPARENT + "\"}}")
            .json()
            .path("id")
            .asText();
    String receipt =
        http.post("/v1/queues/q/receive", "{}").json().at("/messages/0/receipt").asText();
    // its one receive is spent: the release dead-letters it
    assertEquals(204, http.post("/v1/queues/q/leases/" + receipt + "/release", null).status());
    SpanData dead = await(s -> s.getName().equals("dead_letter q"));
    assertEquals(id, attr(dead, "messaging.message.id"));
    assertEquals("q-dlq", attr(dead, "switchboard.target"));
    assertEquals("max_receives", attr(dead, "switchboard.cause"));
    assertLinkedTo(dead, TRACE, SENDER);
    SpanData release = await(s -> s.getName().equals("release q"));
    assertEquals(release.getSpanId(), dead.getParentSpanId(), "inside the release that spent it");

    assertEquals(201, http.post("/v1/queues/q-dlq/redrives", "{}").status());
    SpanData redrive = await(s -> s.getName().equals("redrive q-dlq"));
    assertEquals(id, attr(redrive, "messaging.message.id"));
    assertEquals("q", attr(redrive, "switchboard.target"));
    assertLinkedTo(redrive, TRACE, SENDER);
  }

  @Test
  void message_deadLetteredById_isASettlementSpanNamingTheMessage() {
    http.post("/v1/queues", "{\"name\":\"dl\"}");
    String id = http.post("/v1/queues/dl/messages", "{\"body\":\"x\"}").json().path("id").asText();
    Http.Answer moved = http.post("/v1/queues/dl/messages/" + id + "/dead-letter", null);
    SpanData span = await(s -> s.getName().equals("dead_letter dl"));
    assertEquals(id, attr(span, "messaging.message.id"));
    // the queue has no dead-letter queue: the engine refuses, and the span says how
    if (moved.status() >= 400) {
      assertEquals(moved.code(), attr(span, "error.type"));
    }
  }

  @Test
  void sqs_awsTraceHeader_roundTrips_andTheReceiveSpanLinksToItsParent() {
    String url = server.uri() + "/000000000000/x";
    sqs("CreateQueue", "{\"QueueName\":\"x\"}");
    String header = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1";
    Http.Answer sent =
        sqs(
            "SendMessage",
            "{\"QueueUrl\":\""
                + url
                + "\",\"MessageBody\":\"b\",\"MessageSystemAttributes\":{\"AWSTraceHeader\":"
                + "{\"DataType\":\"String\",\"StringValue\":\""
                + header
                + "\"}}}");
    assertEquals(200, sent.status(), sent.toString());
    Http.Answer received =
        sqs(
            "ReceiveMessage",
            "{\"QueueUrl\":\"" + url + "\",\"MessageSystemAttributeNames\":[\"AWSTraceHeader\"]}");
    assertEquals(
        header, received.json().at("/Messages/0/Attributes/AWSTraceHeader").asText(), "unchanged");

    SpanData receive = await(s -> s.getName().equals("receive x"));
    LinkData link = assertLinkedTo(receive, "5759e988bd862e3fe1be46a994272793", "53995c3f42cd8ad8");
    assertTrue(link.getSpanContext().isSampled(), "Sampled=1");
    SpanData request = await(s -> s.getSpanId().equals(receive.getParentSpanId()));
    assertEquals("sqs.ReceiveMessage", attr(request, "switchboard.operation"));
    assertLinkedTo(
        await(s -> s.getName().equals("send x")),
        "5759e988bd862e3fe1be46a994272793",
        "53995c3f42cd8ad8");
  }

  @Test
  void routing_offerAndAccept_areSpans() {
    http.post(
        "/v1/routing/agents",
        "{\"id\":\"ann\",\"capacity\":{\"voice\":1},\"presence\":\"available\"}");
    var contact = http.post("/v1/routing/contacts", "{\"id\":\"c1\",\"channel\":\"voice\"}").json();
    String reservation = contact.path("reservationId").asText();
    SpanData offer = await(s -> s.getName().equals("routing offer"));
    assertEquals("c1", attr(offer, "switchboard.contact.id"));
    assertEquals("ann", attr(offer, "switchboard.agent.id"));
    assertEquals("voice", attr(offer, "switchboard.channel"));
    assertEquals(reservation, attr(offer, "switchboard.reservation.id"));
    // its parent is the current span of the thread the router delivers the event on: often, but
    // not always, the request that made the offer (docs/deploy.md, "Tracing")

    http.post("/v1/routing/reservations/" + reservation + "/accept", null);
    SpanData accept = await(s -> s.getName().equals("routing accept"));
    assertEquals(reservation, attr(accept, "switchboard.reservation.id"));
  }

  @Test
  void routing_inAnotherWorkspace_offersAreSpans_alsoAfterItsRouterIsRebuilt() {
    assertEquals(
        201,
        http.post(
                "/v1/workspaces",
                "{\"name\":\"centre\",\"activities\":[{\"name\":\"Ready\",\"available\":true},"
                    + "{\"name\":\"offline\",\"available\":false}]}")
            .status());
    http.post(
        "/v1/workspaces/centre/agents",
        "{\"id\":\"bea\",\"capacity\":{\"voice\":2},\"activity\":\"Ready\"}");
    http.post("/v1/workspaces/centre/contacts", "{\"id\":\"w1\",\"channel\":\"voice\"}");
    SpanData offer =
        await(
            s ->
                s.getName().equals("routing offer")
                    && "w1".equals(attr(s, "switchboard.contact.id")));
    assertEquals("bea", attr(offer, "switchboard.agent.id"));

    // new settings rebuild the workspace's router: its offers are still spans
    assertEquals(
        200, http.send("PATCH", "/v1/workspaces/centre", "{\"offerTimeoutSeconds\":30}").status());
    http.post("/v1/workspaces/centre/contacts", "{\"id\":\"w2\",\"channel\":\"voice\"}");
    await(
        s -> s.getName().equals("routing offer") && "w2".equals(attr(s, "switchboard.contact.id")));
  }

  @Test
  void tracing_isOffWithoutOtelVariables_andThenTouchesNothing() {
    Tracing off = Tracing.fromEnvironment(Map.of("PATH", "/usr/bin"));
    assertSame(Tracing.off(), off);
    assertFalse(off.on());
    QueueEngine engine = QueueEngine.inMemory();
    assertSame(engine, off.engine(engine), "the engine itself: no wrapper, no cost");
    engine.close();

    assertFalse(Tracing.wanted(Map.of()));
    assertFalse(Tracing.wanted(Map.of("OTEL_SERVICE_NAME", "sb")), "a name alone exports nothing");
    assertFalse(Tracing.wanted(Map.of("OTEL_TRACES_EXPORTER", "none")));
    assertFalse(
        Tracing.wanted(
            Map.of("OTEL_SDK_DISABLED", "true", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318")));
    assertTrue(Tracing.wanted(Map.of("OTEL_TRACES_EXPORTER", "otlp")));
    assertTrue(Tracing.wanted(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")));
    assertTrue(Tracing.wanted(Map.of("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://c:4318")));
  }

  @Test
  void probes_healthAndMetrics_makeNoSpans_unlessTraceProbesAsks() {
    assertEquals(200, http.get("/health").status());
    assertEquals(200, http.get("/metrics").status());
    http.post("/v1/queues", "{\"name\":\"after-probes\"}");
    await(s -> s.getName().equals("POST /v1/queues")); // served after the probes
    assertEquals(
        List.of(),
        spans.getFinishedSpanItems().stream()
            .map(SpanData::getName)
            .filter(n -> n.contains("/health") || n.contains("/metrics"))
            .toList(),
        "no span for a probe");

    OpenTelemetrySdk sdk =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .build();
    ServerConfig config =
        ServerConfig.resolve(
            Map.of("port", "0", "in-memory", "true", "trace-probes", "true"), Map.of());
    try (SwitchboardServer probed =
            SwitchboardServer.start(
                config,
                EngineFactory.forConfig(config),
                Clock.system(),
                new OpenTelemetryTracing(sdk, sdk));
        Http h = new Http(probed.uri())) {
      assertEquals(200, h.get("/health").status());
      assertEquals(200, h.get("/metrics").status());
      await(s -> s.getName().equals("GET /health"));
      await(s -> s.getName().equals("GET /metrics"));
    }
  }

  @Test
  void tracing_offServer_makesNoSpans() {
    ServerConfig config = ServerConfig.forTests();
    try (SwitchboardServer plain =
            SwitchboardServer.start(
                config, EngineFactory.forConfig(config), Clock.system(), Tracing.off());
        Http h = new Http(plain.uri())) {
      h.post("/v1/queues", "{\"name\":\"p\"}");
      h.post("/v1/queues/p/messages", "{\"body\":\"x\"}");
      assertEquals(1, h.post("/v1/queues/p/receive", "{}").json().path("messages").size());
    }
    // only this class's own server writes to the in-memory exporter, and it served nothing
    assertEquals(List.of(), spans.getFinishedSpanItems());
  }

  @Test
  void tracing_fromOtelVariables_buildsTheOtlpExporter_andRefusesABadOne() {
    Tracing on =
        Tracing.fromEnvironment(
            Map.of(
                "OTEL_TRACES_EXPORTER", "otlp",
                "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318",
                "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"));
    assertTrue(on.on());
    on.close();

    StartupException e =
        assertThrows(
            StartupException.class,
            () -> Tracing.fromEnvironment(Map.of("OTEL_TRACES_EXPORTER", "carrier-pigeon")));
    assertTrue(e.getMessage().contains("OTEL_"), e.getMessage());

    StartupException grpc =
        assertThrows(
            StartupException.class,
            () ->
                Tracing.fromEnvironment(
                    Map.of(
                        "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317",
                        "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")));
    assertTrue(grpc.getMessage().contains("http/protobuf"), grpc.getMessage());

    Tracing byDefault =
        Tracing.fromEnvironment(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"));
    assertTrue(byDefault.on(), "an endpoint alone turns it on, over http/protobuf");
    byDefault.close();
  }

  @Test
  void tracing_fromOtelVariables_exportsOverOtlpHttp_andFlushesWhenTheServerStops()
      throws Exception {
    List<String> received = new java.util.concurrent.CopyOnWriteArrayList<>();
    com.sun.net.httpserver.HttpServer collector =
        com.sun.net.httpserver.HttpServer.create(
            new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
    collector.createContext(
        "/",
        exchange -> {
          byte[] body = exchange.getRequestBody().readAllBytes();
          received.add(
              exchange.getRequestMethod()
                  + " "
                  + exchange.getRequestURI().getPath()
                  + " "
                  + exchange.getRequestHeaders().getFirst("Content-Type")
                  + " "
                  + new String(body, java.nio.charset.StandardCharsets.ISO_8859_1));
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    collector.start();
    try {
      Tracing otlp =
          Tracing.fromEnvironment(
              Map.of(
                  "OTEL_EXPORTER_OTLP_ENDPOINT",
                  "http://127.0.0.1:" + collector.getAddress().getPort(),
                  "OTEL_SERVICE_NAME",
                  "switchboard-test"));
      ServerConfig config = ServerConfig.forTests();
      try (SwitchboardServer traced =
              SwitchboardServer.start(
                  config, EngineFactory.forConfig(config), Clock.system(), otlp);
          Http h = new Http(traced.uri())) {
        h.post("/v1/queues", "{\"name\":\"exported\"}");
      }
      // the stop flushed the batch: one OTLP/HTTP protobuf export naming the service and the span
      assertFalse(received.isEmpty(), "nothing exported");
      String export = received.get(0);
      assertTrue(export.startsWith("POST /v1/traces application/x-protobuf "), export);
      assertTrue(export.contains("switchboard-test"), export);
      assertTrue(export.contains("POST /v1/queues"), export);
    } finally {
      collector.stop(0);
    }
  }

  @Test
  void messageContext_readsW3cFirst_thenXray_andIgnoresWhatDoesNotParse() {
    SpanContext w3c =
        MessageTraceContext.of(
                Map.of(
                    "traceparent",
                    new AttributeValue.StringValue("String", TRACEPARENT),
                    "AWS.TraceHeader",
                    new AttributeValue.StringValue(
                        "String",
                        "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8")))
            .orElseThrow();
    assertEquals(TRACE, w3c.getTraceId());
    assertEquals(SENDER, w3c.getSpanId());
    assertTrue(w3c.isRemote());

    SpanContext xray =
        MessageTraceContext.xray(
                "Root=1-5759E988-BD862E3FE1BE46A994272793;Parent=53995c3f42cd8ad8;Sampled=0")
            .orElseThrow();
    assertEquals("5759e988bd862e3fe1be46a994272793", xray.getTraceId());
    assertFalse(xray.isSampled());
    assertEquals(
        Optional.empty(),
        MessageTraceContext.xray("Root=1-5759e988-bd862e3fe1be46a994272793"),
        "no parent, no span to link to");
    assertEquals(
        Optional.empty(), MessageTraceContext.xray("Self=1-67891233-abcdef012345678912345678"));
    assertEquals(
        Optional.empty(),
        MessageTraceContext.of(
            Map.of("traceparent", new AttributeValue.StringValue("String", "00-zz"))));
    assertEquals(Optional.empty(), MessageTraceContext.of(Map.of()));
  }

  private Http.Answer sqs(String action, String body) {
    return http.send(
        "POST",
        "/",
        body,
        Map.of(
            "X-Amz-Target", "AmazonSQS." + action, "Content-Type", "application/x-amz-json-1.0"));
  }

  private static String attr(SpanData span, String key) {
    return span.getAttributes().get(AttributeKey.stringKey(key));
  }

  private static LinkData assertLinkedTo(SpanData span, String traceId, String spanId) {
    return span.getLinks().stream()
        .filter(
            l ->
                l.getSpanContext().getTraceId().equals(traceId)
                    && l.getSpanContext().getSpanId().equals(spanId))
        .findFirst()
        .orElseThrow(() -> new AssertionError(span.getName() + " links " + span.getLinks()));
  }

  /**
   * The span that matches, once ended: a request's span ends when its answer has been sent, which
   * may be just after the client read it.
   */
  private SpanData await(Predicate<SpanData> wanted) {
    return Await.value(
        () -> spans.getFinishedSpanItems().stream().filter(wanted).findFirst(),
        () -> "an ended span that matches, among " + spans.getFinishedSpanItems(),
        Await.LIMIT);
  }
}
