package io.switchboard.server.observability;

import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.switchboard.queue.AttributeValue;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The trace context a message carries in its attributes, which the engine stores with it: the W3C
 * {@code traceparent} (and {@code tracestate}) string attributes, or else the SQS {@code
 * AWSTraceHeader} system attribute, stored as {@code AWS.TraceHeader} ({@code docs/sqs.md}), whose
 * X-Ray {@code Root}, {@code Parent} and {@code Sampled} map to a W3C trace id, span id and sampled
 * flag. A value that does not parse is no context: the message is delivered as ever.
 */
final class MessageTraceContext {

  /** The W3C trace context attributes. */
  static final String TRACEPARENT = "traceparent";

  static final String TRACESTATE = "tracestate";

  /** Where the SQS endpoint stores {@code AWSTraceHeader} ({@code sqs.MessageAttributes}). */
  static final String AWS_TRACE_HEADER = "AWS.TraceHeader";

  /** {@code Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1}. */
  private static final Pattern ROOT =
      Pattern.compile("(?:^|;)\\s*Root=1-([0-9a-fA-F]{8})-([0-9a-fA-F]{24})\\s*(?:;|$)");

  private static final Pattern PARENT = Pattern.compile("(?:^|;)\\s*Parent=([0-9a-fA-F]{16})\\b");
  private static final Pattern SAMPLED = Pattern.compile("(?:^|;)\\s*Sampled=([01?])");

  private static final TextMapGetter<Map<String, AttributeValue>> ATTRIBUTES =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, AttributeValue> carrier) {
          return carrier.keySet();
        }

        @Override
        public @Nullable String get(@Nullable Map<String, AttributeValue> carrier, String key) {
          return carrier == null ? null : string(carrier, key).orElse(null);
        }
      };

  private MessageTraceContext() {}

  /** The context {@code attributes} carry, W3C first; empty if none or none that parses. */
  static Optional<SpanContext> of(Map<String, AttributeValue> attributes) {
    if (attributes.isEmpty()) {
      return Optional.empty();
    }
    if (attributes.containsKey(TRACEPARENT)) {
      SpanContext w3c =
          io.opentelemetry.api.trace.Span.fromContext(
                  W3CTraceContextPropagator.getInstance()
                      .extract(Context.root(), attributes, ATTRIBUTES))
              .getSpanContext();
      if (w3c.isValid()) {
        return Optional.of(w3c);
      }
    }
    return string(attributes, AWS_TRACE_HEADER).flatMap(MessageTraceContext::xray);
  }

  /**
   * An X-Ray trace header as a W3C context: the trace id is the root's time and random parts
   * together, the span id its parent; no parent, no span to link to.
   */
  static Optional<SpanContext> xray(String header) {
    Matcher root = ROOT.matcher(header);
    Matcher parent = PARENT.matcher(header);
    if (!root.find() || !parent.find()) {
      return Optional.empty();
    }
    Matcher sampled = SAMPLED.matcher(header);
    boolean isSampled = sampled.find() && sampled.group(1).equals("1");
    SpanContext context =
        SpanContext.createFromRemoteParent(
            (root.group(1) + root.group(2)).toLowerCase(java.util.Locale.ROOT),
            parent.group(1).toLowerCase(java.util.Locale.ROOT),
            isSampled ? TraceFlags.getSampled() : TraceFlags.getDefault(),
            TraceState.getDefault());
    return context.isValid() ? Optional.of(context) : Optional.empty();
  }

  /**
   * The attribute that carries {@code context} into a message: {@code traceparent} in W3C form, or,
   * for a message sent over SQS, {@value #AWS_TRACE_HEADER} in X-Ray form, which SQS receivers get
   * as the {@code AWSTraceHeader} system attribute rather than among their message attributes.
   */
  static Map.Entry<String, AttributeValue> carrying(SpanContext context, boolean sqs) {
    String sampled = context.isSampled() ? "1" : "0";
    if (sqs) {
      String trace = context.getTraceId();
      return Map.entry(
          AWS_TRACE_HEADER,
          AttributeValue.string(
              "Root=1-"
                  + trace.substring(0, 8)
                  + "-"
                  + trace.substring(8)
                  + ";Parent="
                  + context.getSpanId()
                  + ";Sampled="
                  + sampled));
    }
    return Map.entry(
        TRACEPARENT,
        AttributeValue.string(
            "00-" + context.getTraceId() + "-" + context.getSpanId() + "-0" + sampled));
  }

  private static Optional<String> string(Map<String, AttributeValue> attributes, String name) {
    return attributes.get(name) instanceof AttributeValue.StringValue s
        ? Optional.of(s.value())
        : Optional.empty();
  }
}
