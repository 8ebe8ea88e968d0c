package io.switchboard.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.switchboard.client.wire.JsonFields;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.proto.QueuesService;
import io.switchboard.proto.v1.AckRequest;
import io.switchboard.proto.v1.AckResponse;
import io.switchboard.proto.v1.CancelRedriveRequest;
import io.switchboard.proto.v1.CreateQueueRequest;
import io.switchboard.proto.v1.ExtendRequest;
import io.switchboard.proto.v1.LeaseRef;
import io.switchboard.proto.v1.ListQueuesRequest;
import io.switchboard.proto.v1.ListQueuesResponse;
import io.switchboard.proto.v1.MessageRef;
import io.switchboard.proto.v1.OutgoingMessage;
import io.switchboard.proto.v1.QueueRef;
import io.switchboard.proto.v1.QueueResponse;
import io.switchboard.proto.v1.ReleaseRequest;
import io.switchboard.proto.v1.SendBatchRequest;
import io.switchboard.proto.v1.SendRequest;
import io.switchboard.proto.v1.SendResponse;
import io.switchboard.proto.v1.StartRedriveRequest;
import io.switchboard.proto.v1.StringList;
import io.switchboard.proto.v1.UpdateMessageRequest;
import io.switchboard.proto.v1.UpdateQueueRequest;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Page;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueCreation;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import io.switchboard.queue.SendResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The queue operations of {@link SwitchboardClient} over the server's gRPC API ({@link
 * Transport#GRPC}): one unary call each, as the HTTP transport makes one request each; a refusal is
 * the same {@link SwitchboardException} (the server's error code and message, status 0).
 */
final class GrpcQueues {

  private static final Metadata.Key<String> ERROR_CODE =
      Metadata.Key.of("switchboard-error-code", Metadata.ASCII_STRING_MARSHALLER);

  private final Supplier<ManagedChannel> channel;
  private final CallOptions options;
  private final Duration requestTimeout;
  private final BooleanSupplier closed;

  /**
   * @param closed whether the client is closed: a call is then refused {@code CLIENT_CLOSED}, and a
   *     receive its closing cut short returns empty, as over HTTP
   */
  GrpcQueues(
      Supplier<ManagedChannel> channel,
      CallOptions options,
      Duration requestTimeout,
      BooleanSupplier closed) {
    this.channel = channel;
    this.options = options;
    this.requestTimeout = requestTimeout;
    this.closed = closed;
  }

  // ---- queues ------------------------------------------------------------------------------

  QueueCreation ensureQueue(String name, QueueConfig config) {
    QueueResponse r =
        call(
            QueuesService.CREATE_QUEUE,
            CreateQueueRequest.newBuilder()
                .setName(name)
                .setConfigJson(WireFormat.config(config).toString())
                .build());
    return new QueueCreation(info(r), r.getCreated());
  }

  QueueInfo updateQueue(String name, ObjectNode fields, Optional<String> ifMatch) {
    UpdateQueueRequest.Builder b =
        UpdateQueueRequest.newBuilder().setQueue(name).setConfigJson(fields.toString());
    ifMatch.ifPresent(b::setIfMatch);
    return info(call(QueuesService.UPDATE_QUEUE, b.build()));
  }

  /** The queue with its configuration's tag (for {@link #updateQueue}'s {@code ifMatch}). */
  QueueResponse read(String name) {
    return call(QueuesService.GET_QUEUE, ref(name));
  }

  static QueueInfo info(QueueResponse r) {
    return WireFormat.queueInfo(fields(r.getQueueJson()));
  }

  void deleteQueue(String name) {
    call(QueuesService.DELETE_QUEUE, ref(name));
  }

  QueueInfo queue(String name) {
    return info(read(name));
  }

  QueuePage queuePage(String prefix, Optional<String> cursor, Optional<Integer> limit) {
    if (limit.isPresent() && limit.get() < 1) {
      // 0 is "the default" on the wire: refused here, as the HTTP API's server refuses it
      throw new SwitchboardException(
          0, "INVALID_ARGUMENT", "limit must be 1..1000, got " + limit.get());
    }
    ListQueuesRequest.Builder b = ListQueuesRequest.newBuilder().setPrefix(prefix);
    cursor.ifPresent(b::setCursor);
    limit.ifPresent(b::setLimit);
    ListQueuesResponse page = call(QueuesService.LIST_QUEUES, b.build());
    List<QueueInfo> queues = new ArrayList<>();
    for (String q : page.getQueuesJsonList()) {
      queues.add(WireFormat.queueInfo(fields(q)));
    }
    return new QueuePage(
        queues,
        page.getNextCursor().isEmpty() ? Optional.empty() : Optional.of(page.getNextCursor()));
  }

  QueueStats stats(String queue) {
    return WireFormat.stats(fields(call(QueuesService.STATS, ref(queue)).getStatsJson()));
  }

  long purge(String queue) {
    return call(QueuesService.PURGE, ref(queue)).getPurged();
  }

  // ---- send and receive --------------------------------------------------------------------

  SendResult send(String queue, NewMessage message) {
    SendResponse r =
        call(
            QueuesService.SEND,
            SendRequest.newBuilder()
                .setQueue(queue)
                .setMessage(outgoing(message, "message"))
                .build());
    return new SendResult(r.getId(), r.getSequence(), r.getDuplicate());
  }

  List<SendResult> sendBatch(String queue, List<NewMessage> messages) {
    SendBatchRequest.Builder b = SendBatchRequest.newBuilder().setQueue(queue);
    for (int i = 0; i < messages.size(); i++) {
      b.addMessages(outgoing(messages.get(i), "messages[" + i + "]"));
    }
    return call(QueuesService.SEND_BATCH, b.build()).getResultsList().stream()
        .map(r -> new SendResult(r.getId(), r.getSequence(), r.getDuplicate()))
        .toList();
  }

  List<Message> receive(
      String queue, ReceiveRequest request, Optional<String> selector, Duration longestWait) {
    var b =
        io.switchboard.proto.v1.ReceiveRequest.newBuilder()
            .setQueue(queue)
            .setMaxMessages(request.maxMessages());
    request.waitTime().ifPresent(w -> b.setWaitTime(duration(w)));
    request.visibilityTimeout().ifPresent(v -> b.setVisibilityTimeout(duration(v)));
    selector.ifPresent(b::setSelector);
    Duration wait = request.waitTime().orElse(longestWait);
    try {
      return call(QueuesService.RECEIVE, b.build(), requestTimeout.plus(wait))
          .getMessagesList()
          .stream()
          .map(GrpcConsumer::message)
          .toList();
    } catch (QueueException e) {
      if (closed.getAsBoolean()) {
        return List.of(); // woken by close(), as an HTTP receive is
      }
      throw e;
    }
  }

  // ---- leases ------------------------------------------------------------------------------

  List<AckResult> ackBatch(String queue, List<String> receipts) {
    AckResponse r =
        call(
            QueuesService.ACK,
            AckRequest.newBuilder().setQueue(queue).addAllReceipts(receipts).build());
    return r.getResultsList().stream()
        .map(
            a ->
                a.getErrorCode().isEmpty()
                    ? AckResult.acked(a.getReceipt())
                    : AckResult.failed(a.getReceipt(), a.getErrorCode(), a.getErrorMessage()))
        .toList();
  }

  void ack(String queue, String receipt) {
    AckResult r = ackBatch(queue, List.of(receipt)).get(0);
    if (!r.acked()) {
      throw new SwitchboardException(0, r.code().orElseThrow(), r.message().orElse(""));
    }
  }

  void release(String queue, String receipt, Duration delay, boolean toBack) {
    call(
        QueuesService.RELEASE,
        ReleaseRequest.newBuilder()
            .setQueue(queue)
            .setReceipt(receipt)
            .setDelay(duration(delay))
            .setToBack(toBack)
            .build());
  }

  Message extend(String queue, String receipt, Duration visibilityTimeout) {
    return GrpcConsumer.message(
        call(
            QueuesService.EXTEND,
            ExtendRequest.newBuilder()
                .setQueue(queue)
                .setReceipt(receipt)
                .setVisibilityTimeout(duration(visibilityTimeout))
                .build()));
  }

  void fail(String queue, String receipt) {
    call(QueuesService.FAIL, lease(queue, receipt));
  }

  void deadLetter(String queue, String receipt) {
    call(QueuesService.DEAD_LETTER, lease(queue, receipt));
  }

  // ---- messages by id ----------------------------------------------------------------------

  void deadLetterById(String queue, String id) {
    call(QueuesService.DEAD_LETTER_MESSAGE, message(queue, id));
  }

  Message update(String queue, String id, MessageUpdate update) {
    UpdateMessageRequest.Builder b = UpdateMessageRequest.newBuilder().setQueue(queue).setId(id);
    update.priority().ifPresent(b::setPriority);
    update
        .attributes()
        .ifPresent(
            a -> {
              b.setReplaceAttributes(true);
              a.forEach((k, v) -> b.putAttributes(k, attribute(v)));
            });
    return GrpcConsumer.message(call(QueuesService.UPDATE_MESSAGE, b.build()));
  }

  Message touch(String queue, String id) {
    return GrpcConsumer.message(call(QueuesService.TOUCH, message(queue, id)));
  }

  void remove(String queue, String id) {
    call(QueuesService.REMOVE_MESSAGE, message(queue, id));
  }

  Message get(String queue, String id) {
    return GrpcConsumer.message(call(QueuesService.GET_MESSAGE, message(queue, id)));
  }

  Page browse(String queue, BrowseRequest request, Optional<String> selector) {
    var b =
        io.switchboard.proto.v1.BrowseRequest.newBuilder()
            .setQueue(queue)
            .setLimit(request.limit())
            .setIncludeInvisible(request.includeInvisible());
    request.cursor().ifPresent(b::setCursor);
    selector.ifPresent(b::setSelector);
    var page = call(QueuesService.BROWSE, b.build());
    return new Page(
        page.getMessagesList().stream().map(GrpcConsumer::message).toList(),
        page.getNextCursor().isEmpty() ? Optional.empty() : Optional.of(page.getNextCursor()));
  }

  Message restore(String deadLetterQueue, String id) {
    return GrpcConsumer.message(call(QueuesService.RESTORE, message(deadLetterQueue, id)));
  }

  // ---- redrive -----------------------------------------------------------------------------

  RedriveTask startRedrive(String source, RedriveRequest request) {
    StartRedriveRequest.Builder b = StartRedriveRequest.newBuilder().setQueue(source);
    request.destination().ifPresent(b::setDestination);
    request.maxPerSecond().ifPresent(b::setMaxPerSecond);
    return task(call(QueuesService.START_REDRIVE, b.build()).getTaskJson());
  }

  List<RedriveTask> redriveTasks(String source) {
    return call(QueuesService.LIST_REDRIVES, ref(source)).getTasksJsonList().stream()
        .map(GrpcQueues::task)
        .toList();
  }

  RedriveTask cancelRedrive(String taskId) {
    return task(
        call(
                QueuesService.CANCEL_REDRIVE,
                CancelRedriveRequest.newBuilder().setTask(taskId).build())
            .getTaskJson());
  }

  // ---- the wire ----------------------------------------------------------------------------

  private static RedriveTask task(String json) {
    return WireFormat.redriveTask(fields(json));
  }

  private static JsonFields fields(String json) {
    return JsonFields.lenient(WireFormat.parse(json.getBytes(StandardCharsets.UTF_8)));
  }

  private static QueueRef ref(String queue) {
    return QueueRef.newBuilder().setQueue(queue).build();
  }

  private static LeaseRef lease(String queue, String receipt) {
    return LeaseRef.newBuilder().setQueue(queue).setReceipt(receipt).build();
  }

  private static MessageRef message(String queue, String id) {
    return MessageRef.newBuilder().setQueue(queue).setId(id).build();
  }

  static com.google.protobuf.Duration duration(Duration d) {
    return com.google.protobuf.Duration.newBuilder()
        .setSeconds(d.getSeconds())
        .setNanos(d.getNano())
        .build();
  }

  /**
   * The message as the protocol carries it. Protobuf strings are UTF-8, which cannot carry an
   * unpaired surrogate (protobuf-java would write '?'): such a body is refused here, as the server
   * refuses it over HTTP, rather than sent changed.
   */
  static OutgoingMessage outgoing(NewMessage m, String field) {
    String body = m.body();
    for (int i = 0; i < body.length(); i++) {
      char c = body.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < body.length()
          && Character.isLowSurrogate(body.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new SwitchboardException(
            0,
            "INVALID_ARGUMENT",
            field + ".body must be valid Unicode; found an unpaired surrogate at index " + i);
      }
    }
    OutgoingMessage.Builder b =
        OutgoingMessage.newBuilder().setBody(m.body()).setPriority(m.priority());
    m.attributes().forEach((k, v) -> b.putAttributes(k, attribute(v)));
    m.groupId().ifPresent(b::setGroupId);
    m.deduplicationId().ifPresent(b::setDeduplicationId);
    m.delay().ifPresent(d -> b.setDelay(duration(d)));
    m.timeToLive().ifPresent(t -> b.setTimeToLive(duration(t)));
    return b.build();
  }

  private static io.switchboard.proto.v1.AttributeValue attribute(AttributeValue v) {
    var b = io.switchboard.proto.v1.AttributeValue.newBuilder().setDataType(v.dataType());
    switch (v) {
      case AttributeValue.StringValue s -> b.setStringValue(s.value());
      case AttributeValue.NumberValue n -> b.setStringValue(n.value());
      case AttributeValue.BinaryValue bin -> b.setBinaryValue(ByteString.copyFrom(bin.value()));
      case AttributeValue.StringListValue l ->
          b.setStringListValue(StringList.newBuilder().addAllValues(l.value()));
    }
    return b.build();
  }

  private <Q, A> A call(MethodDescriptor<Q, A> method, Q request) {
    return call(method, request, requestTimeout);
  }

  private <Q, A> A call(MethodDescriptor<Q, A> method, Q request, Duration timeout) {
    if (closed.getAsBoolean()) {
      throw new SwitchboardException("CLIENT_CLOSED", "the client is closed", null);
    }
    try {
      return ClientCalls.blockingUnaryCall(
          channel.get(),
          method,
          options.withDeadline(Deadline.after(timeout.toMillis(), TimeUnit.MILLISECONDS)),
          request);
    } catch (StatusRuntimeException e) {
      throw refusal(method.getBareMethodName(), e);
    }
  }

  /**
   * The server's refusal as the HTTP transport throws it: its stable code (the trailer {@code
   * switchboard-error-code}) and its message; a transport failure is {@code UNAVAILABLE}.
   */
  private static QueueException refusal(
      @org.jspecify.annotations.Nullable String method, StatusRuntimeException e) {
    Status s = e.getStatus();
    Metadata trailers = e.getTrailers();
    String code = trailers == null ? null : trailers.get(ERROR_CODE);
    if (code == null) {
      return new SwitchboardException(
          s.getCode() == Status.Code.DEADLINE_EXCEEDED ? "TIMEOUT" : "UNAVAILABLE",
          method + " failed: " + s,
          e);
    }
    String description = s.getDescription() == null ? code : s.getDescription();
    String message =
        description.startsWith(code + ": ")
            ? description.substring(code.length() + 2)
            : description;
    SwitchboardException refused = new SwitchboardException(0, code, message);
    refused.initCause(e);
    return refused;
  }
}
