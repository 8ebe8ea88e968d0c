package io.switchboard.server.observability;

import io.helidon.webserver.http.Filter;
import io.switchboard.queue.QueueEngine;
import io.switchboard.routing.Router;
import io.switchboard.server.config.StartupException;
import java.util.Locale;
import java.util.Map;

/**
 * What the server traces, behind one small interface so that OpenTelemetry's types stay in {@link
 * OpenTelemetryTracing} and {@link TracedEngine} ({@code docs/deploy.md}, "Tracing"): a span per
 * request ({@link #requests}), spans for sends, receives and settlements of messages ({@link
 * #engine}), and the router's offers and their answers ({@link #routing}).
 *
 * <p>Off by default: {@link #off()} passes every request through, returns the engine as it is and
 * subscribes to nothing, so a server that does not trace loads none of the SDK.
 */
public interface Tracing extends AutoCloseable {

  /** The filter that makes each request's span; after the exchange filter, which makes the call. */
  Filter requests();

  /** {@code engine}, traced; the same engine when tracing is off. */
  QueueEngine engine(QueueEngine engine);

  /** Makes spans of {@code router}'s offers and their answers from now on. */
  void routing(Router router);

  /**
   * {@code builder}, whose routers make spans of their offers and answers ({@link #routing}): for
   * the routers a server builds as it goes (each workspace's, a routing leader's on takeover).
   */
  Router.Builder routing(Router.Builder builder);

  /** Whether spans are made at all. */
  boolean on();

  /** Sends the spans still buffered and stops the exporter. */
  @Override
  void close();

  /** Tracing off: no spans, no cost. */
  static Tracing off() {
    return Off.OFF;
  }

  /**
   * Tracing as the standard {@code OTEL_*} variables in {@code env} say: on when {@code
   * OTEL_TRACES_EXPORTER} names an exporter other than {@code none}, or an OTLP endpoint is set
   * ({@code OTEL_EXPORTER_OTLP_ENDPOINT}, {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT}); off
   * otherwise, and whenever {@code OTEL_SDK_DISABLED} is {@code true}. When on, the SDK's
   * autoconfiguration reads every other {@code OTEL_*} variable (sampler, resource, headers, ...).
   *
   * @throws StartupException if the variables configure the SDK wrongly
   */
  static Tracing fromEnvironment(Map<String, String> env) {
    return wanted(env) ? OpenTelemetryTracing.autoconfigured(env) : off();
  }

  /** Whether {@code env} turns tracing on ({@link #fromEnvironment}). */
  static boolean wanted(Map<String, String> env) {
    if ("true".equals(value(env, "OTEL_SDK_DISABLED").toLowerCase(Locale.ROOT))) {
      return false;
    }
    String exporter = value(env, "OTEL_TRACES_EXPORTER");
    if (!exporter.isEmpty()) {
      return !exporter.equalsIgnoreCase("none");
    }
    return !value(env, "OTEL_EXPORTER_OTLP_ENDPOINT").isEmpty()
        || !value(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").isEmpty();
  }

  private static String value(Map<String, String> env, String name) {
    String v = env.get(name);
    return v == null ? "" : v.strip();
  }

  /** No tracing. */
  enum Off implements Tracing {
    OFF;

    @Override
    public Filter requests() {
      return (chain, req, res) -> chain.proceed();
    }

    @Override
    public QueueEngine engine(QueueEngine engine) {
      return engine;
    }

    @Override
    public void routing(Router router) {}

    @Override
    public Router.Builder routing(Router.Builder builder) {
      return builder;
    }

    @Override
    public boolean on() {
      return false;
    }

    @Override
    public void close() {}
  }
}
