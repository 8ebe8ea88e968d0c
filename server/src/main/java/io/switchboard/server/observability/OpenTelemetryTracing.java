package io.switchboard.server.observability;

import io.helidon.http.HeaderNames;
import io.helidon.http.ServerRequestHeaders;
import io.helidon.webserver.http.Filter;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigurationException;
import io.switchboard.queue.QueueEngine;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingEvent;
import io.switchboard.server.config.StartupException;
import io.switchboard.server.http.Call;
import io.switchboard.server.http.Route;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * {@link Tracing} with OpenTelemetry: the one place, with {@link TracedEngine}, that knows its
 * types. Requests get a {@code SERVER} span named after their declared route ({@code POST
 * /v1/queues/{queue}/messages}), child of the caller's {@code traceparent}; the engine's message
 * operations and the router's offers are spans inside it.
 */
final class OpenTelemetryTracing implements Tracing {

  static final String SCOPE = "io.switchboard.server";

  private static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
  private static final AttributeKey<String> ROUTE = AttributeKey.stringKey("http.route");
  private static final AttributeKey<String> PATH = AttributeKey.stringKey("url.path");
  private static final AttributeKey<String> SCHEME = AttributeKey.stringKey("url.scheme");
  private static final AttributeKey<Long> STATUS =
      AttributeKey.longKey("http.response.status_code");
  private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<String> OPERATION = AttributeKey.stringKey("switchboard.operation");
  static final AttributeKey<String> REQUEST_ID = AttributeKey.stringKey("switchboard.request_id");

  private static final TextMapGetter<ServerRequestHeaders> HEADERS =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(ServerRequestHeaders carrier) {
          return carrier.stream().map(h -> h.name()).toList();
        }

        @Override
        public @Nullable String get(@Nullable ServerRequestHeaders carrier, String key) {
          return carrier == null ? null : carrier.first(HeaderNames.create(key)).orElse(null);
        }
      };

  private final Tracer tracer;
  private final TextMapPropagator propagator;
  private final AutoCloseable sdk;

  /**
   * @param openTelemetry where spans go
   * @param sdk closed by {@link #close} (flushes and stops the exporter); may be a no-op
   */
  OpenTelemetryTracing(OpenTelemetry openTelemetry, AutoCloseable sdk) {
    this.tracer = openTelemetry.getTracer(SCOPE);
    this.propagator = openTelemetry.getPropagators().getTextMapPropagator();
    this.sdk = sdk;
  }

  /**
   * The SDK as the {@code OTEL_*} variables in {@code env} configure it (the autoconfigure module),
   * with the service name {@code switchboard} and no metrics or logs exporters unless the variables
   * name some: the server's metrics are on {@code /metrics}.
   */
  static OpenTelemetryTracing autoconfigured(Map<String, String> env) {
    Map<String, String> properties = new HashMap<>();
    env.forEach(
        (k, v) -> {
          if (k.startsWith("OTEL_")) {
            properties.put(k.toLowerCase(Locale.ROOT).replace('_', '.'), v);
          }
        });
    try {
      var sdk =
          AutoConfiguredOpenTelemetrySdk.builder()
              .addPropertiesSupplier(
                  () ->
                      Map.of(
                          "otel.service.name", "switchboard",
                          "otel.exporter.otlp.protocol", "http/protobuf",
                          "otel.metrics.exporter", "none",
                          "otel.logs.exporter", "none"))
              .addPropertiesCustomizer(config -> properties)
              .disableShutdownHook()
              .build()
              .getOpenTelemetrySdk();
      return new OpenTelemetryTracing(sdk, sdk);
    } catch (ConfigurationException | IllegalStateException e) {
      // IllegalStateException: an exporter whose transport is not bundled (OTLP over gRPC)
      throw new StartupException(
          "cannot start tracing as the OTEL_* variables ask: "
              + rootCause(e)
              + " (OTLP is sent over http/protobuf; docs/deploy.md, \"Tracing\")",
          e);
    }
  }

  /** The innermost message: the SDK wraps what went wrong in "Unexpected configuration error". */
  private static @Nullable String rootCause(Throwable e) {
    String message = e.getMessage();
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t.getMessage() != null) {
        message = t.getMessage();
      }
    }
    return message;
  }

  @Override
  public boolean on() {
    return true;
  }

  @Override
  public Filter requests() {
    return (chain, req, res) -> {
      Call call = Call.of(req);
      String method = req.prologue().method().text();
      Route route = call.route().orElse(null);
      var span =
          tracer
              .spanBuilder(route == null ? method : method + " " + route.pattern())
              .setParent(propagator.extract(Context.root(), req.headers(), HEADERS))
              .setSpanKind(SpanKind.SERVER)
              .setAttribute(METHOD, method)
              .setAttribute(PATH, req.path().path())
              .setAttribute(SCHEME, req.isSecure() ? "https" : "http")
              .setAttribute(REQUEST_ID, call.requestId());
      if (route != null) {
        span.setAttribute(ROUTE, route.pattern());
      }
      Span started = span.startSpan();
      res.whenSent(
          () -> {
            int status = res.status().code();
            started.setAttribute(STATUS, (long) status);
            call.operation().ifPresent(op -> started.setAttribute(OPERATION, op));
            if (status >= 500) {
              started.setAttribute(ERROR_TYPE, Integer.toString(status));
              started.setStatus(StatusCode.ERROR);
            }
            started.end();
          });
      Context context = Context.current().with(started);
      if (route != null && route.operation().equals("sqs")) {
        context = context.with(TracedEngine.SQS_REQUEST, true);
      }
      try (Scope scope = context.makeCurrent()) {
        chain.proceed();
      }
    };
  }

  @Override
  public QueueEngine engine(QueueEngine engine) {
    return new TracedEngine(engine, tracer);
  }

  @Override
  public void routing(Router router) {
    router.onEvent(this::routingEvent);
  }

  @Override
  public Router.Builder routing(Router.Builder builder) {
    return builder.onEvent(this::routingEvent);
  }

  /**
   * An offer and its answer, as spans of no length inside the span current on the thread the router
   * tells the event on: mostly the request that queued the contact or freed the agent (the router
   * may hand a burst of events to one of the threads that made them), none for its timers.
   */
  private void routingEvent(RoutingEvent event) {
    switch (event) {
      case RoutingEvent.ReservationOffered e ->
          decision(
              "routing offer",
              e.reservation().id(),
              e.reservation().contactId(),
              e.reservation().agentId(),
              e.reservation().channel());
      case RoutingEvent.ReservationAccepted e ->
          decision("routing accept", e.reservationId(), e.contactId(), e.agentId(), null);
      case RoutingEvent.ReservationRejected e ->
          decision("routing reject", e.reservationId(), e.contactId(), e.agentId(), null);
      case RoutingEvent.ReservationTimedOut e ->
          decision("routing offer timed out", e.reservationId(), e.contactId(), e.agentId(), null);
      case RoutingEvent.ReservationCancelled e ->
          decision("routing offer cancelled", e.reservationId(), e.contactId(), e.agentId(), null);
      default -> {}
    }
  }

  private void decision(
      String name, String reservation, String contact, String agent, @Nullable String channel) {
    var span =
        tracer
            .spanBuilder(name)
            .setSpanKind(SpanKind.INTERNAL)
            .setAttribute("switchboard.reservation.id", reservation)
            .setAttribute("switchboard.contact.id", contact)
            .setAttribute("switchboard.agent.id", agent);
    if (channel != null) {
      span.setAttribute("switchboard.channel", channel);
    }
    span.startSpan().end();
  }

  @Override
  public void close() {
    try {
      sdk.close();
    } catch (Exception e) {
      // the exporter could not flush: the spans are lost, the stop goes on
    }
  }
}
