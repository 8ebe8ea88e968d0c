package io.switchboard.server.grpc;

import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.switchboard.client.wire.Json;
import io.switchboard.client.wire.JsonFields;
import io.switchboard.client.wire.NativeWire;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.proto.QueuesService;
import io.switchboard.proto.v1.BrowseRequest;
import io.switchboard.proto.v1.BrowseResponse;
import io.switchboard.proto.v1.CancelRedriveRequest;
import io.switchboard.proto.v1.CreateQueueRequest;
import io.switchboard.proto.v1.Delivery;
import io.switchboard.proto.v1.Done;
import io.switchboard.proto.v1.ExtendRequest;
import io.switchboard.proto.v1.LeaseRef;
import io.switchboard.proto.v1.ListQueuesRequest;
import io.switchboard.proto.v1.ListQueuesResponse;
import io.switchboard.proto.v1.ListRedrivesResponse;
import io.switchboard.proto.v1.MessageRef;
import io.switchboard.proto.v1.PurgeResponse;
import io.switchboard.proto.v1.QueueRef;
import io.switchboard.proto.v1.QueueResponse;
import io.switchboard.proto.v1.RedriveTaskResponse;
import io.switchboard.proto.v1.ReleaseRequest;
import io.switchboard.proto.v1.SendBatchRequest;
import io.switchboard.proto.v1.SendBatchResponse;
import io.switchboard.proto.v1.SendResponse;
import io.switchboard.proto.v1.StartRedriveRequest;
import io.switchboard.proto.v1.StatsResponse;
import io.switchboard.proto.v1.UpdateMessageRequest;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Page;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueCreation;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import io.switchboard.queue.SelectorFilter;
import io.switchboard.queue.SendResult;
import io.switchboard.server.api.queues.NativeApi;
import io.switchboard.server.auth.Access;
import io.switchboard.server.auth.Action;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The unary calls of {@code switchboard.v1.Queues} for the rest of the queue API: each checks the
 * grant its HTTP route needs (on every queue it names: a destination is a send, through {@link
 * Caller#engine}) and makes the same engine call; the queue-level documents are the HTTP API's
 * JSON, read and written by the same {@link WireFormat} code.
 */
final class QueueCalls {

  private static final int DEFAULT_BROWSE_LIMIT = 100;

  private final QueueEngine engine;
  private final int maxBatch;
  private final int maxSelectorLength;
  private final java.util.concurrent.atomic.LongAdder sent;

  QueueCalls(
      QueueEngine engine,
      int maxBatch,
      int maxSelectorLength,
      java.util.concurrent.atomic.LongAdder sent) {
    this.engine = engine;
    this.maxBatch = maxBatch;
    this.maxSelectorLength = maxSelectorLength;
    this.sent = sent;
  }

  ServerServiceDefinition.Builder addTo(ServerServiceDefinition.Builder b) {
    return b.addMethod(QueuesService.CREATE_QUEUE, ServerCalls.asyncUnaryCall(this::createQueue))
        .addMethod(QueuesService.GET_QUEUE, ServerCalls.asyncUnaryCall(this::getQueue))
        .addMethod(QueuesService.UPDATE_QUEUE, ServerCalls.asyncUnaryCall(this::updateQueue))
        .addMethod(QueuesService.DELETE_QUEUE, ServerCalls.asyncUnaryCall(this::deleteQueue))
        .addMethod(QueuesService.LIST_QUEUES, ServerCalls.asyncUnaryCall(this::listQueues))
        .addMethod(QueuesService.STATS, ServerCalls.asyncUnaryCall(this::stats))
        .addMethod(QueuesService.PURGE, ServerCalls.asyncUnaryCall(this::purge))
        .addMethod(QueuesService.SEND_BATCH, ServerCalls.asyncUnaryCall(this::sendBatch))
        .addMethod(QueuesService.BROWSE, ServerCalls.asyncUnaryCall(this::browse))
        .addMethod(QueuesService.RELEASE, ServerCalls.asyncUnaryCall(this::release))
        .addMethod(QueuesService.EXTEND, ServerCalls.asyncUnaryCall(this::extend))
        .addMethod(QueuesService.FAIL, ServerCalls.asyncUnaryCall(this::fail))
        .addMethod(QueuesService.DEAD_LETTER, ServerCalls.asyncUnaryCall(this::deadLetter))
        .addMethod(QueuesService.GET_MESSAGE, ServerCalls.asyncUnaryCall(this::getMessage))
        .addMethod(QueuesService.UPDATE_MESSAGE, ServerCalls.asyncUnaryCall(this::updateMessage))
        .addMethod(QueuesService.REMOVE_MESSAGE, ServerCalls.asyncUnaryCall(this::removeMessage))
        .addMethod(QueuesService.TOUCH, ServerCalls.asyncUnaryCall(this::touch))
        .addMethod(
            QueuesService.DEAD_LETTER_MESSAGE, ServerCalls.asyncUnaryCall(this::deadLetterMessage))
        .addMethod(QueuesService.RESTORE, ServerCalls.asyncUnaryCall(this::restore))
        .addMethod(QueuesService.START_REDRIVE, ServerCalls.asyncUnaryCall(this::startRedrive))
        .addMethod(QueuesService.LIST_REDRIVES, ServerCalls.asyncUnaryCall(this::listRedrives))
        .addMethod(QueuesService.CANCEL_REDRIVE, ServerCalls.asyncUnaryCall(this::cancelRedrive));
  }

  // ---- queues ------------------------------------------------------------------------------

  private void createQueue(CreateQueueRequest r, StreamObserver<QueueResponse> out) {
    QueuesEndpoint.unary(
        out,
        () -> {
          // the engine refuses a bad name (an empty one too), naming the field as on HTTP
          String name = r.getName();
          Caller caller = Caller.current();
          caller.require(Action.QUEUE_ADMIN, name);
          JsonFields f = fields(r.getConfigJson(), "config_json");
          QueueConfig config = WireFormat.config(f, QueueConfig.defaults());
          f.finish();
          QueueCreation c = engine().ensureQueue(name, config);
          return queue(c.queue(), null).setCreated(c.created()).build();
        });
  }

  private void getQueue(QueueRef r, StreamObserver<QueueResponse> out) {
    QueuesEndpoint.unary(
        out,
        () -> {
          String name = named(r.getQueue(), Action.QUEUE_BROWSE);
          QueueInfo info = engine().queue(name);
          return queue(info, engine().stats(name)).build();
        });
  }

  private void updateQueue(
      io.switchboard.proto.v1.UpdateQueueRequest r, StreamObserver<QueueResponse> out) {
    QueuesEndpoint.unary(
        out,
        () -> {
          String name = named(r.getQueue(), Action.QUEUE_ADMIN);
          JsonFields f = fields(r.getConfigJson(), "config_json");
          Optional<String> ifMatch =
              r.getIfMatch().isEmpty() ? Optional.empty() : Optional.of(r.getIfMatch());
          QueueInfo info = NativeApi.updateQueue(engine(), name, f, ifMatch);
          return queue(info, null).build();
        });
  }

  private void deleteQueue(QueueRef r, StreamObserver<Done> out) {
    QueuesEndpoint.unary(
        out,
        () -> {
          engine().deleteQueue(named(r.getQueue(), Action.QUEUE_ADMIN));
          return Done.getDefaultInstance();
        });
  }

  private void listQueues(ListQueuesRequest r, StreamObserver<ListQueuesResponse> out) {
    QueuesEndpoint.unary(
        out,
        () -> {
          Caller caller = Caller.current();
          caller.require(Access.any(Action.QUEUE_BROWSE));
          int limit = r.getLimit() == 0 ? 1000 : (int) Math.min(r.getLimit(), Integer.MAX_VALUE);
          NativeWire.Queues page =
              NativeApi.queuePage(engine, caller.principal(), r.getPrefix(), r.getCursor(), limit);
          ListQueuesResponse.Builder b = ListQueuesResponse.newBuilder();
          for (NativeWire.QueueView q : Json.items(page.queues())) {
            b.addQueuesJson(json(q));
          }
          if (page.nextCursor() != null) {
            b.setNextCursor(page.nextCursor());
          }
          return b.build();
        });
  }

  private void stats(QueueRef r, StreamObserver<StatsResponse> out) {
    QueuesEndpoint.unary(
        out,
        () -> {
          String name = named(r.getQueue(), Action.QUEUE_BROWSE);
          return StatsResponse.newBuilder()
              .setStatsJson(json(WireFormat.stats(engine().stats(name))))
              .build();
        });
  }

  private void purge(QueueRef r, StreamObserver<PurgeResponse> out) {
    QueuesEndpoint.unary(
        out,
        () ->
            PurgeResponse.newBuilder()
                .setPurged(engine().purge(named(r.getQueue(), Action.QUEUE_ADMIN)))
                .build());
  }

  // ---- messages ----------------------------------------------------------------------------

  private void sendBatch(SendBatchRequest r, StreamObserver<SendBatchResponse> out) {
    QueuesEndpoint.unary(
        out,
        () -> {
          String name = named(r.getQueue(), Action.QUEUE_SEND);
          SendBatchResponse.Builder b = SendBatchResponse.newBuilder();
          for (SendResult s : sendBatch(engine(), name, r.getMessagesList(), maxBatch)) {
            b.addResults(answer(s));
          }
          sent.add(r.getMessagesCount());
          return b.build();
        });
  }

  /** Sends {@code messages} (1..{@code maxBatch}) to {@code queue} in one batch. */
  static List<SendResult> sendBatch(
      QueueEngine engine,
      String queue,
      List<io.switchboard.proto.v1.OutgoingMessage> messages,
      int maxBatch) {
    if (messages.isEmpty()) {
      throw new QueueException(
          ErrorCode.INVALID_ARGUMENT, "a batch must hold 1.." + maxBatch + " messages, got none");
    }
    if (messages.size() > maxBatch) {
      throw new QueueException(
          ErrorCode.BATCH_TOO_LARGE,
          "a batch may hold at most " + maxBatch + " messages, got " + messages.size());
    }
    List<NewMessage> batch = messages.stream().map(Protos::message).toList();
    return engine.sendBatch(queue, batch);
  }

  static SendResponse answer(SendResult s) {
    return SendResponse.newBuilder()
        .setId(s.id())
        .setSequence(s.sequence())
        .setDuplicate(s.duplicate())
        .build();
  }

  private void browse(BrowseRequest r, StreamObserver<BrowseResponse> out) {
    QueuesEndpoint.unary(
        out,
        () -> {
          String name = named(r.getQueue(), Action.QUEUE_BROWSE);
          int limit =
              r.getLimit() == 0 ? DEFAULT_BROWSE_LIMIT : (int) Math.min(r.getLimit(), 1 << 20);
          var request =
              io.switchboard.queue.BrowseRequest.first(limit)
                  .includeInvisible(r.getIncludeInvisible());
          if (!r.getCursor().isEmpty()) {
            request = request.after(r.getCursor());
          }
          if (!r.getSelector().isEmpty()) {
            request = request.filter(SelectorFilter.parse(selector(r.getSelector())));
          }
          Page page = engine().browse(name, request);
          BrowseResponse.Builder b = BrowseResponse.newBuilder();
          for (Message m : page.items()) {
            b.addMessages(Protos.delivery(m));
          }
          page.nextCursor().ifPresent(b::setNextCursor);
          return b.build();
        });
  }

  /** A selector within {@code max-selector-length}, as the HTTP API takes it. */
  String selector(String text) {
    if (text.length() > maxSelectorLength) {
      throw new QueueException(
          ErrorCode.INVALID_SELECTOR,
          "selector must be at most " + maxSelectorLength + " characters, got " + text.length());
    }
    return text;
  }

  // ---- leases ------------------------------------------------------------------------------

  private void release(ReleaseRequest r, StreamObserver<Done> out) {
    QueuesEndpoint.unary(
        out,
        () -> {
          String name = named(r.getQueue(), Action.QUEUE_RECEIVE);
          Duration delay = r.hasDelay() ? Protos.duration("delay", r.getDelay()) : Duration.ZERO;
          engine().release(name, receipt(r.getReceipt()), delay, r.getToBack());
          return Done.getDefaultInstance();
        });
  }

  private void extend(ExtendRequest r, StreamObserver<Delivery> out) {
    QueuesEndpoint.unary(
        out,
        () -> {
          String name = named(r.getQueue(), Action.QUEUE_RECEIVE);
          if (!r.hasVisibilityTimeout()) {
            throw Statuses.invalid("visibility_timeout is required");
          }
          Duration d = Protos.duration("visibility_timeout", r.getVisibilityTimeout());
          return Protos.delivery(engine().extend(name, receipt(r.getReceipt()), d));
        });
  }

  private void fail(LeaseRef r, StreamObserver<Done> out) {
    QueuesEndpoint.unary(
        out,
        () -> {
          String name = named(r.getQueue(), Action.QUEUE_RECEIVE);
          engine().fail(name, receipt(r.getReceipt()));
          return Done.getDefaultInstance();
        });
  }

  private void deadLetter(LeaseRef r, StreamObserver<Done> out) {
    QueuesEndpoint.unary(
        out,
        () -> {
          String name = named(r.getQueue(), Action.QUEUE_RECEIVE);
          engine().deadLetter(name, receipt(r.getReceipt()));
          return Done.getDefaultInstance();
        });
  }

  // ---- messages by id ----------------------------------------------------------------------

  private void getMessage(MessageRef r, StreamObserver<Delivery> out) {
    QueuesEndpoint.unary(
        out,
        () -> {
          String name = named(r.getQueue(), Action.QUEUE_BROWSE);
          return Protos.delivery(engine().get(name, id(r.getId())));
        });
  }

  private void updateMessage(UpdateMessageRequest r, StreamObserver<Delivery> out) {
    QueuesEndpoint.unary(
        out,
        () -> {
          String name = named(r.getQueue(), Action.QUEUE_ADMIN);
          if (!r.hasPriority() && !r.getReplaceAttributes()) {
            throw Statuses.invalid(
                "an update needs priority, replace_attributes (with attributes) or both; got"
                    + " neither");
          }
          if (!r.getReplaceAttributes() && r.getAttributesCount() > 0) {
            throw Statuses.invalid(
                "attributes are given but replace_attributes is false: set it to replace the"
                    + " message's attributes with them");
          }
          MessageUpdate update =
              new MessageUpdate(
                  r.hasPriority() ? Optional.of(r.getPriority()) : Optional.empty(),
                  r.getReplaceAttributes()
                      ? Optional.of(Protos.attributes(r.getAttributesMap()))
                      : Optional.empty());
          return Protos.delivery(engine().update(name, id(r.getId()), update));
        });
  }

  private void removeMessage(MessageRef r, StreamObserver<Done> out) {
    QueuesEndpoint.unary(
        out,
        () -> {
          engine().remove(named(r.getQueue(), Action.QUEUE_ADMIN), id(r.getId()));
          return Done.getDefaultInstance();
        });
  }

  private void touch(MessageRef r, StreamObserver<Delivery> out) {
    QueuesEndpoint.unary(
        out,
        () ->
            Protos.delivery(
                engine().touch(named(r.getQueue(), Action.QUEUE_ADMIN), id(r.getId()))));
  }

  private void deadLetterMessage(MessageRef r, StreamObserver<Done> out) {
    QueuesEndpoint.unary(
        out,
        () -> {
          String name = named(r.getQueue(), Action.QUEUE_ADMIN);
          engine().deadLetterById(name, id(r.getId()));
          return Done.getDefaultInstance();
        });
  }

  private void restore(MessageRef r, StreamObserver<Delivery> out) {
    QueuesEndpoint.unary(
        out,
        () -> {
          String name = named(r.getQueue(), Action.QUEUE_ADMIN);
          return Protos.delivery(engine().restore(name, id(r.getId())));
        });
  }

  // ---- redrive -----------------------------------------------------------------------------

  private void startRedrive(StartRedriveRequest r, StreamObserver<RedriveTaskResponse> out) {
    QueuesEndpoint.unary(
        out,
        () -> {
          String name = named(r.getQueue(), Action.QUEUE_ADMIN);
          RedriveRequest request =
              r.getDestination().isEmpty()
                  ? RedriveRequest.toSources()
                  : RedriveRequest.to(r.getDestination());
          if (r.getMaxPerSecond() != 0) {
            request = request.maxPerSecond((int) Math.min(r.getMaxPerSecond(), Integer.MAX_VALUE));
          }
          return task(engine().startRedrive(name, request));
        });
  }

  private void listRedrives(QueueRef r, StreamObserver<ListRedrivesResponse> out) {
    QueuesEndpoint.unary(
        out,
        () -> {
          String name = named(r.getQueue(), Action.QUEUE_BROWSE);
          ListRedrivesResponse.Builder b = ListRedrivesResponse.newBuilder();
          for (RedriveTask t : engine().redriveTasks(name)) {
            b.addTasksJson(json(WireFormat.redriveTask(t)));
          }
          return b.build();
        });
  }

  /** A task id names no queue this side of the engine: the key must administer every queue. */
  private void cancelRedrive(CancelRedriveRequest r, StreamObserver<RedriveTaskResponse> out) {
    QueuesEndpoint.unary(
        out,
        () -> {
          Caller.current().require(Action.QUEUE_ADMIN, "*");
          if (r.getTask().isEmpty()) {
            throw Statuses.invalid("task is required");
          }
          return task(engine().cancelRedrive(r.getTask()));
        });
  }

  // ---- helpers -----------------------------------------------------------------------------

  /**
   * The engine as the caller's key uses it, as the HTTP API's handlers do: what names a second
   * queue, or moves messages into one, needs {@code queue:send} there ({@link Caller#engine}).
   */
  private QueueEngine engine() {
    return Caller.current().engine(engine);
  }

  /** The queue a request names, once the caller may do {@code action} on it. */
  private static String named(String queue, Action action) {
    String name = QueuesEndpoint.queue(queue);
    Caller.current().require(action, name);
    return name;
  }

  private static String receipt(String receipt) {
    if (receipt.isEmpty()) {
      throw Statuses.invalid("receipt is required");
    }
    return receipt;
  }

  private static String id(String id) {
    if (id.isEmpty()) {
      throw Statuses.invalid("id is required");
    }
    return id;
  }

  /** A JSON object field of a request (empty: {@code {}}), read strictly. */
  private static JsonFields fields(String json, String field) {
    return JsonFields.strict(WireFormat.parse(json.getBytes(StandardCharsets.UTF_8)), field);
  }

  private static QueueResponse.Builder queue(
      QueueInfo info, io.switchboard.queue.@org.jspecify.annotations.Nullable QueueStats stats) {
    return QueueResponse.newBuilder()
        .setQueueJson(json(NativeWire.QueueView.of(info, stats)))
        .setTag(WireFormat.configTag(info.config()));
  }

  private static RedriveTaskResponse task(RedriveTask t) {
    return RedriveTaskResponse.newBuilder().setTaskJson(json(WireFormat.redriveTask(t))).build();
  }

  private static String json(Object value) {
    return new String(Json.bytes(value), StandardCharsets.UTF_8);
  }
}
