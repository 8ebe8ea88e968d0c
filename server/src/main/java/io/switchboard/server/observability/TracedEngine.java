package io.switchboard.server.observability;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextKey;
import io.opentelemetry.context.Scope;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageEvent;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Page;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueCreation;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.QueueLimits;
import io.switchboard.queue.QueueOverview;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import io.switchboard.queue.SendResult;
import io.switchboard.queue.spi.MessageRules;
import io.switchboard.queue.spi.SystemRecords;
import io.switchboard.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * A {@link QueueEngine} whose message operations are spans ({@code docs/deploy.md}, "Tracing"), so
 * the native API and the SQS endpoint, which both call the engine, are traced alike: a send is a
 * {@code PRODUCER} span, a receive a {@code CONSUMER} span linked to the context each message
 * carries ({@link MessageTraceContext}), an ack, release, fail or dead-letter a settlement span.
 * Each is a child of the current span, the request's. Everything else passes straight through.
 */
final class TracedEngine implements QueueEngine {

  static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
  static final AttributeKey<String> DESTINATION =
      AttributeKey.stringKey("messaging.destination.name");
  static final AttributeKey<String> OPERATION_TYPE =
      AttributeKey.stringKey("messaging.operation.type");
  static final AttributeKey<String> OPERATION_NAME =
      AttributeKey.stringKey("messaging.operation.name");
  static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
  static final AttributeKey<Long> BATCH_COUNT =
      AttributeKey.longKey("messaging.batch.message_count");
  private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<String> CAUSE = AttributeKey.stringKey("switchboard.cause");
  static final AttributeKey<String> TARGET = AttributeKey.stringKey("switchboard.target");

  /**
   * Set in the context of an SQS request ({@link OpenTelemetryTracing#requests}): a message sent
   * without a context gets the send's as {@code AWSTraceHeader} rather than {@code traceparent}.
   */
  static final ContextKey<Boolean> SQS_REQUEST = ContextKey.named("switchboard.sqs");

  private final QueueEngine engine;
  private final Tracer tracer;

  TracedEngine(QueueEngine engine, Tracer tracer) {
    this.engine = engine;
    this.tracer = tracer;
    engine.onMessageEvent(this::happened);
  }

  /**
   * What the engine did to a message that no call's span shows: a dead-letter move because its
   * receives ran out or it expired, a redrive or restore, a drop at expiry. A span of no length,
   * child of the span current on the thread that made the change (none on the engine's
   * housekeeping), linked to the context the message carries, so the message's life ends in the
   * trace where it began. A dead-letter a call asked for is the call's own span ({@link
   * #deadLetter}).
   */
  private void happened(MessageEvent event) {
    SpanBuilder b =
        switch (event) {
          case MessageEvent.DeadLettered d when d.cause() == MessageEvent.Cause.REQUESTED -> null;
          case MessageEvent.DeadLettered d ->
              span("dead_letter", "settle", d.queue(), SpanKind.INTERNAL)
                  .setAttribute(TARGET, d.target())
                  .setAttribute(CAUSE, d.cause().name().toLowerCase(Locale.ROOT));
          case MessageEvent.Redriven r ->
              span("redrive", "send", r.queue(), SpanKind.INTERNAL)
                  .setAttribute(TARGET, r.target());
          case MessageEvent.Expired x ->
              span("expire", "settle", x.queue(), SpanKind.INTERNAL).setAttribute(CAUSE, "expired");
        };
    if (b == null) {
      return;
    }
    String id = event.message().id();
    b.setAttribute(MESSAGE_ID, id);
    link(b, event.message().attributes(), id);
    b.startSpan().end();
  }

  // ---- traced ------------------------------------------------------------------------------

  @Override
  public SendResult send(String queue, NewMessage message) {
    SpanBuilder b = span("send", "send", queue, SpanKind.PRODUCER);
    boolean carries = link(b, message.attributes(), null);
    return traced(
        b,
        span -> {
          SendResult result =
              carries || !span.getSpanContext().isValid()
                  ? engine.send(queue, message)
                  : orPlain(
                      () -> engine.send(queue, with(message, carrying(span))),
                      () -> engine.send(queue, message));
          span.setAttribute(MESSAGE_ID, result.id());
          return result;
        });
  }

  @Override
  public List<SendResult> sendBatch(String queue, List<NewMessage> messages) {
    SpanBuilder b = span("send", "send", queue, SpanKind.PRODUCER);
    b.setAttribute(BATCH_COUNT, (long) messages.size());
    boolean all = true;
    for (NewMessage m : messages) {
      all &= link(b, m.attributes(), null);
    }
    if (all) {
      return traced(b, span -> engine.sendBatch(queue, messages));
    }
    return traced(
        b,
        span -> {
          if (!span.getSpanContext().isValid()) {
            return engine.sendBatch(queue, messages);
          }
          Map.Entry<String, AttributeValue> context = carrying(span);
          List<NewMessage> carrying =
              messages.stream()
                  .map(
                      m ->
                          MessageTraceContext.of(m.attributes()).isPresent() ? m : with(m, context))
                  .toList();
          return orPlain(
              () -> engine.sendBatch(queue, carrying), () -> engine.sendBatch(queue, messages));
        });
  }

  /**
   * Runs {@code carrying}, the send of messages that carry the send span's context so that their
   * receives link to it ({@code docs/deploy.md}, "Following a message"); if the engine refuses it
   * as too large, which the context's bytes may have made it (a refusal stores nothing), runs
   * {@code plain}, the send as the caller made it.
   */
  private static <T> T orPlain(Supplier<T> carrying, Supplier<T> plain) {
    try {
      return carrying.get();
    } catch (QueueException e) {
      if (e.code() == ErrorCode.MESSAGE_TOO_LARGE || e.code() == ErrorCode.BATCH_TOO_LARGE) {
        return plain.get();
      }
      throw e;
    }
  }

  /** The attribute that carries {@code span}'s context, in the protocol's form. */
  private static Map.Entry<String, AttributeValue> carrying(Span span) {
    return MessageTraceContext.carrying(
        span.getSpanContext(), Boolean.TRUE.equals(Context.current().get(SQS_REQUEST)));
  }

  /** {@code m} with {@code attribute} too, unless it holds as many attributes as it may. */
  private static NewMessage with(NewMessage m, Map.Entry<String, AttributeValue> attribute) {
    if (m.attributes().size() >= MessageRules.MAX_ATTRIBUTES) {
      return m;
    }
    Map<String, AttributeValue> attributes = new LinkedHashMap<>(m.attributes());
    attributes.put(attribute.getKey(), attribute.getValue());
    return new NewMessage(
        m.body(),
        attributes,
        m.priority(),
        m.groupId(),
        m.deduplicationId(),
        m.delay(),
        m.timeToLive());
  }

  /**
   * The receive's span is made once the messages are in hand (links are set when a span starts),
   * starting when the receive did, long poll included.
   */
  @Override
  public List<Message> receive(String queue, ReceiveRequest request) {
    SpanBuilder b = span("receive", "receive", queue, SpanKind.CONSUMER);
    b.setStartTimestamp(java.time.Instant.now());
    List<Message> messages;
    try {
      messages = engine.receive(queue, request);
    } catch (RuntimeException e) {
      Span span = b.startSpan();
      failed(span, e);
      span.end();
      throw e;
    }
    b.setAttribute(BATCH_COUNT, (long) messages.size());
    if (messages.size() == 1) {
      b.setAttribute(MESSAGE_ID, messages.get(0).id());
    }
    messages.forEach(m -> link(b, m.attributes(), m.id()));
    b.startSpan().end();
    return messages;
  }

  @Override
  public void ack(String queue, String receipt) {
    settle("ack", queue, () -> engine.ack(queue, receipt));
  }

  @Override
  public List<Optional<QueueException>> ackAll(String queue, List<String> receipts) {
    SpanBuilder b = span("ack", "settle", queue, SpanKind.INTERNAL);
    b.setAttribute(BATCH_COUNT, (long) receipts.size());
    return traced(b, span -> engine.ackAll(queue, receipts));
  }

  @Override
  public void release(String queue, String receipt, Duration delay, boolean toBack) {
    settle("release", queue, () -> engine.release(queue, receipt, delay, toBack));
  }

  @Override
  public void fail(String queue, String receipt) {
    settle("fail", queue, () -> engine.fail(queue, receipt));
  }

  @Override
  public void deadLetter(String queue, String receipt) {
    settle("dead_letter", queue, () -> engine.deadLetter(queue, receipt));
  }

  @Override
  public void deadLetterById(String queue, String id) {
    SpanBuilder b = span("dead_letter", "settle", queue, SpanKind.INTERNAL);
    b.setAttribute(MESSAGE_ID, id);
    traced(
        b,
        span -> {
          engine.deadLetterById(queue, id);
          return null;
        });
  }

  private void settle(String operation, String queue, Runnable work) {
    traced(
        span(operation, "settle", queue, SpanKind.INTERNAL),
        span -> {
          work.run();
          return null;
        });
  }

  /** {@code "<operation> <queue>"}, as the messaging conventions name spans. */
  private SpanBuilder span(String operation, String type, String queue, SpanKind kind) {
    return tracer
        .spanBuilder(operation + " " + queue)
        .setSpanKind(kind)
        .setAttribute(SYSTEM, "switchboard")
        .setAttribute(DESTINATION, queue)
        .setAttribute(OPERATION_TYPE, type)
        .setAttribute(OPERATION_NAME, operation);
  }

  /**
   * Links {@code b} to the context {@code attributes} carry, if they carry one: whether they do.
   */
  private static boolean link(
      SpanBuilder b, Map<String, AttributeValue> attributes, @Nullable String id) {
    Optional<SpanContext> context = MessageTraceContext.of(attributes);
    context.ifPresent(
        c -> b.addLink(c, id == null ? Attributes.empty() : Attributes.of(MESSAGE_ID, id)));
    return context.isPresent();
  }

  private static <T> T traced(SpanBuilder b, Function<Span, T> work) {
    Span span = b.startSpan();
    try (Scope scope = span.makeCurrent()) {
      return work.apply(span);
    } catch (RuntimeException e) {
      failed(span, e);
      throw e;
    } finally {
      span.end();
    }
  }

  /** The error's kind, not its text: a stable code says what went wrong without leaking input. */
  private static void failed(Span span, RuntimeException e) {
    span.setAttribute(
        ERROR_TYPE, e instanceof QueueException q ? q.code().name() : e.getClass().getName());
    span.setStatus(StatusCode.ERROR);
  }

  // ---- passed through ----------------------------------------------------------------------

  @Override
  public QueueCreation ensureQueue(String name, QueueConfig config) {
    return engine.ensureQueue(name, config);
  }

  @Override
  public QueueInfo createQueue(String name, QueueConfig config) {
    return engine.createQueue(name, config);
  }

  @Override
  public QueueInfo updateQueue(String name, UnaryOperator<QueueConfig> change) {
    return engine.updateQueue(name, change);
  }

  @Override
  public QueueInfo updateQueue(String name, QueueConfig config) {
    return engine.updateQueue(name, config);
  }

  @Override
  public void deleteQueue(String name) {
    engine.deleteQueue(name);
  }

  @Override
  public QueueInfo queue(String name) {
    return engine.queue(name);
  }

  @Override
  public List<QueueInfo> listQueues(String prefix) {
    return engine.listQueues(prefix);
  }

  @Override
  public Message extend(String queue, String receipt, Duration visibilityTimeout) {
    return engine.extend(queue, receipt, visibilityTimeout);
  }

  @Override
  public Message extendAnyLease(String queue, String receipt, Duration visibilityTimeout) {
    return engine.extendAnyLease(queue, receipt, visibilityTimeout);
  }

  @Override
  public Message update(String queue, String id, MessageUpdate update) {
    return engine.update(queue, id, update);
  }

  @Override
  public Message touch(String queue, String id) {
    return engine.touch(queue, id);
  }

  @Override
  public void remove(String queue, String id) {
    engine.remove(queue, id);
  }

  @Override
  public Message get(String queue, String id) {
    return engine.get(queue, id);
  }

  @Override
  public Page browse(String queue, BrowseRequest request) {
    return engine.browse(queue, request);
  }

  @Override
  public long purge(String queue) {
    return engine.purge(queue);
  }

  @Override
  public QueueStats stats(String queue) {
    return engine.stats(queue);
  }

  @Override
  public RedriveTask startRedrive(String source, RedriveRequest request) {
    return engine.startRedrive(source, request);
  }

  @Override
  public List<RedriveTask> redriveTasks(String source) {
    return engine.redriveTasks(source);
  }

  @Override
  public RedriveTask cancelRedrive(String taskId) {
    return engine.cancelRedrive(taskId);
  }

  @Override
  public Message restore(String deadLetterQueue, String id) {
    return engine.restore(deadLetterQueue, id);
  }

  @Override
  public void onMessageEvent(Consumer<? super MessageEvent> listener) {
    engine.onMessageEvent(listener);
  }

  @Override
  public void checkMoves(io.switchboard.queue.MoveCheck check) {
    engine.checkMoves(check);
  }

  @Override
  public Clock clock() {
    return engine.clock();
  }

  @Override
  public Duration longestLockHold() {
    return engine.longestLockHold();
  }

  @Override
  public long mostExaminedInOneLockHold() {
    return engine.mostExaminedInOneLockHold();
  }

  @Override
  public SystemRecords systemRecords() {
    return engine.systemRecords();
  }

  @Override
  public QueueLimits limits() {
    return engine.limits();
  }

  @Override
  public long queuedBytes() {
    return engine.queuedBytes();
  }

  @Override
  public long queuedBytes(String queue) {
    return engine.queuedBytes(queue);
  }

  @Override
  public QueueOverview overview(int top) {
    return engine.overview(top);
  }

  @Override
  public List<QueueInfo> listQueues(String prefix, String after, int limit) {
    return engine.listQueues(prefix, after, limit);
  }

  @Override
  public void close() {
    engine.close();
  }
}
