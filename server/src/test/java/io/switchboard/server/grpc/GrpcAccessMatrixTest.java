package io.switchboard.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.proto.QueuesService;
import io.switchboard.proto.RoutingService;
import io.switchboard.proto.v1.AckRequest;
import io.switchboard.proto.v1.CancelRedriveRequest;
import io.switchboard.proto.v1.ConsumeOpen;
import io.switchboard.proto.v1.ConsumeRequest;
import io.switchboard.proto.v1.CreateQueueRequest;
import io.switchboard.proto.v1.EventsRequest;
import io.switchboard.proto.v1.ExtendRequest;
import io.switchboard.proto.v1.LeaseRef;
import io.switchboard.proto.v1.ListQueuesRequest;
import io.switchboard.proto.v1.ListQueuesResponse;
import io.switchboard.proto.v1.MessageRef;
import io.switchboard.proto.v1.OutgoingMessage;
import io.switchboard.proto.v1.PublishRequest;
import io.switchboard.proto.v1.QueueRef;
import io.switchboard.proto.v1.ReceiveRequest;
import io.switchboard.proto.v1.ReleaseRequest;
import io.switchboard.proto.v1.SendBatchRequest;
import io.switchboard.proto.v1.SendRequest;
import io.switchboard.proto.v1.StartRedriveRequest;
import io.switchboard.proto.v1.UpdateMessageRequest;
import io.switchboard.proto.v1.UpdateQueueRequest;
import io.switchboard.queue.DeadLetterPolicy;
import io.switchboard.queue.QueueConfig;
import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.Grant;
import io.switchboard.server.auth.Principal;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every RPC of {@code switchboard.v1.Queues} and {@code switchboard.v1.Routing} against the access
 * keys: no credentials or wrong ones are {@code UNAUTHENTICATED}, a key without the action the RPC
 * needs on the queue it names is {@code PERMISSION_DENIED}, a key with it is served; a second queue
 * a request names (a dead-letter target, a redrive's destination, the queue a message is moved
 * into) needs {@code queue:send} there, as on the HTTP API. A method added to a service fails here
 * until it has its row.
 */
class GrpcAccessMatrixTest {

  /** What a row's action is checked on: the queue it names, every queue, or none (listing). */
  private enum Scope {
    QUEUE,
    EVERY_QUEUE,
    LISTING
  }

  /**
   * Each RPC, the action it needs, where, the status a key with it gets (OK, or the engine's answer
   * past the access check), and one call of it on a queue.
   */
  private record Rpc(
      Action needs, Scope scope, Status.Code served, BiFunction<CallOptions, String, Status> call) {
    Rpc(Action needs, BiFunction<CallOptions, String, Status> call) {
      this(needs, Scope.QUEUE, Status.Code.OK, call);
    }
  }

  private static final List<Action> QUEUE_ACTIONS =
      List.of(Action.QUEUE_SEND, Action.QUEUE_RECEIVE, Action.QUEUE_BROWSE, Action.QUEUE_ADMIN);

  private static final io.switchboard.queue.ReceiveRequest RECEIVE_ONE =
      io.switchboard.queue.ReceiveRequest.builder()
          .maxMessages(1)
          .waitTime(java.time.Duration.ZERO)
          .build();

  private static GrpcHarness h;
  private static ManagedChannel channel;
  private static final Map<String, Rpc> RPCS = new LinkedHashMap<>();

  @BeforeAll
  static void start() {
    h = new GrpcHarness(c -> c);
    h.server.keys().put(Principal.admin("ADMIN", "ADMIN-secret"));
    for (Action a : QUEUE_ACTIONS) {
      h.server.keys().put(key("HAS-" + a.name(), Grant.of("*", a)));
      h.server.keys().put(key("JOBS-" + a.name(), Grant.of("jobs", a)));
    }
    // administers jobs and may send to dlq, but not to other
    h.server
        .keys()
        .put(
            new Principal(
                "MOVER",
                "MOVER-secret",
                Optional.empty(),
                List.of(
                    Grant.of("jobs", Action.QUEUE_ADMIN, Action.QUEUE_RECEIVE),
                    Grant.of("dlq", Action.QUEUE_SEND, Action.QUEUE_ADMIN)),
                Optional.empty()));
    h.server
        .keys()
        .put(
            new Principal(
                "SUPERVISOR",
                "SUPERVISOR-secret",
                Optional.empty(),
                List.of(Grant.of("default", Action.ROUTING_SUPERVISOR)),
                Optional.empty()));
    for (String agent : List.of("ann", "bob")) {
      h.server
          .keys()
          .put(
              new Principal(
                  agent.toUpperCase(Locale.ROOT),
                  agent.toUpperCase(Locale.ROOT) + "-secret",
                  Optional.empty(),
                  List.of(Grant.of("default", Action.ROUTING_AGENT)),
                  Optional.of(agent)));
    }
    for (String agent : List.of("ann", "bob")) {
      createAgent(agent);
    }
    h.engine.createQueue("jobs", QueueConfig.defaults());
    h.engine.createQueue("other", QueueConfig.defaults());
    h.engine.createQueue("dlq", QueueConfig.defaults());
    channel = h.channel();
    Action send = Action.QUEUE_SEND;
    Action receive = Action.QUEUE_RECEIVE;
    Action browse = Action.QUEUE_BROWSE;
    Action admin = Action.QUEUE_ADMIN;
    RPCS.put("Publish", new Rpc(send, GrpcAccessMatrixTest::publish));
    RPCS.put("Consume", new Rpc(receive, GrpcAccessMatrixTest::consume));
    RPCS.put("Send", new Rpc(send, GrpcAccessMatrixTest::send));
    RPCS.put("Receive", new Rpc(receive, GrpcAccessMatrixTest::receive));
    RPCS.put("Ack", new Rpc(receive, GrpcAccessMatrixTest::ack));
    RPCS.put(
        "CreateQueue",
        new Rpc(
            admin,
            (o, q) ->
                unary(
                    QueuesService.CREATE_QUEUE,
                    o,
                    CreateQueueRequest.newBuilder().setName(q).setConfigJson("{}").build())));
    RPCS.put("GetQueue", new Rpc(browse, (o, q) -> unary(QueuesService.GET_QUEUE, o, ref(q))));
    RPCS.put(
        "UpdateQueue",
        new Rpc(
            admin,
            (o, q) ->
                unary(
                    QueuesService.UPDATE_QUEUE,
                    o,
                    UpdateQueueRequest.newBuilder()
                        .setQueue(q)
                        .setConfigJson("{\"visibilityTimeoutSeconds\": 30}")
                        .build())));
    RPCS.put(
        "DeleteQueue",
        new Rpc(
            admin,
            (o, q) -> {
              Status s = unary(QueuesService.DELETE_QUEUE, o, ref(q));
              h.engine.ensureQueue(q, QueueConfig.defaults()); // for the rows after
              return s;
            }));
    RPCS.put(
        "ListQueues",
        new Rpc(
            browse,
            Scope.LISTING,
            Status.Code.OK,
            (o, q) -> unary(QueuesService.LIST_QUEUES, o, ListQueuesRequest.getDefaultInstance())));
    RPCS.put("Stats", new Rpc(browse, (o, q) -> unary(QueuesService.STATS, o, ref(q))));
    RPCS.put("Purge", new Rpc(admin, (o, q) -> unary(QueuesService.PURGE, o, ref(q))));
    RPCS.put(
        "SendBatch",
        new Rpc(
            send,
            (o, q) ->
                unary(
                    QueuesService.SEND_BATCH,
                    o,
                    SendBatchRequest.newBuilder()
                        .setQueue(q)
                        .addMessages(OutgoingMessage.newBuilder().setBody("a"))
                        .addMessages(OutgoingMessage.newBuilder().setBody("b"))
                        .build())));
    RPCS.put(
        "Browse",
        new Rpc(
            browse,
            (o, q) ->
                unary(
                    QueuesService.BROWSE,
                    o,
                    io.switchboard.proto.v1.BrowseRequest.newBuilder().setQueue(q).build())));
    RPCS.put(
        "Release",
        new Rpc(
            receive,
            (o, q) ->
                unary(
                    QueuesService.RELEASE,
                    o,
                    ReleaseRequest.newBuilder().setQueue(q).setReceipt(leased(q)).build())));
    RPCS.put(
        "Extend",
        new Rpc(
            receive,
            (o, q) ->
                unary(
                    QueuesService.EXTEND,
                    o,
                    ExtendRequest.newBuilder()
                        .setQueue(q)
                        .setReceipt(leased(q))
                        .setVisibilityTimeout(
                            com.google.protobuf.Duration.newBuilder().setSeconds(60))
                        .build())));
    RPCS.put("Fail", new Rpc(receive, (o, q) -> unary(QueuesService.FAIL, o, lease(q))));
    // past the access check, the engine refuses: these queues have no dead-letter target
    RPCS.put(
        "DeadLetter",
        new Rpc(
            receive,
            Scope.QUEUE,
            Status.Code.FAILED_PRECONDITION,
            (o, q) -> unary(QueuesService.DEAD_LETTER, o, lease(q))));
    RPCS.put(
        "GetMessage", new Rpc(browse, (o, q) -> unary(QueuesService.GET_MESSAGE, o, queued(q))));
    RPCS.put(
        "UpdateMessage",
        new Rpc(
            admin,
            (o, q) ->
                unary(
                    QueuesService.UPDATE_MESSAGE,
                    o,
                    UpdateMessageRequest.newBuilder()
                        .setQueue(q)
                        .setId(queued(q).getId())
                        .setPriority(5)
                        .build())));
    RPCS.put(
        "RemoveMessage",
        new Rpc(admin, (o, q) -> unary(QueuesService.REMOVE_MESSAGE, o, queued(q))));
    RPCS.put("Touch", new Rpc(admin, (o, q) -> unary(QueuesService.TOUCH, o, queued(q))));
    RPCS.put(
        "DeadLetterMessage",
        new Rpc(
            admin,
            Scope.QUEUE,
            Status.Code.FAILED_PRECONDITION,
            (o, q) -> unary(QueuesService.DEAD_LETTER_MESSAGE, o, queued(q))));
    // past the access check, the engine finds no such dead-lettered message
    RPCS.put(
        "Restore",
        new Rpc(
            admin,
            Scope.QUEUE,
            Status.Code.NOT_FOUND,
            (o, q) ->
                unary(
                    QueuesService.RESTORE,
                    o,
                    MessageRef.newBuilder().setQueue(q).setId("no-such-message").build())));
    RPCS.put(
        "StartRedrive",
        new Rpc(
            admin,
            (o, q) ->
                unary(
                    QueuesService.START_REDRIVE,
                    o,
                    StartRedriveRequest.newBuilder().setQueue(q).build())));
    RPCS.put(
        "ListRedrives", new Rpc(browse, (o, q) -> unary(QueuesService.LIST_REDRIVES, o, ref(q))));
    // a task id names no queue: it needs queue:admin on every queue; past it, no such task
    RPCS.put(
        "CancelRedrive",
        new Rpc(
            admin,
            Scope.EVERY_QUEUE,
            Status.Code.NOT_FOUND,
            (o, q) ->
                unary(
                    QueuesService.CANCEL_REDRIVE,
                    o,
                    CancelRedriveRequest.newBuilder().setTask("no-such-task").build())));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  private static void createAgent(String id) {
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(h.server.uri().resolve("/v1/routing/agents"))
                  .header(
                      "Authorization",
                      "Basic "
                          + Base64.getEncoder()
                              .encodeToString(
                                  "ADMIN:ADMIN-secret".getBytes(StandardCharsets.UTF_8)))
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"id\":\"" + id + "\",\"capacity\":{\"voice\":1}}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(201, r.statusCode(), r.body());
    } catch (java.io.IOException | InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  private static Principal key(String id, Grant grant) {
    return new Principal(id, id + "-secret", Optional.empty(), List.of(grant), Optional.empty());
  }

  private static CallOptions as(String id) {
    return GrpcHarness.basic(id, id + "-secret");
  }

  @Test
  void everyMethodOfTheService_hasItsRow() {
    TreeSet<String> methods = new TreeSet<>();
    QueuesService.SERVICE.getMethods().forEach(m -> methods.add(m.getBareMethodName()));
    assertEquals(methods, new TreeSet<>(RPCS.keySet()));
    assertEquals(
        List.of("Events"),
        RoutingService.SERVICE.getMethods().stream()
            .map(io.grpc.MethodDescriptor::getBareMethodName)
            .toList(),
        "Routing's methods, each tested in routingEvents_needTheSseFeedsAccess");
  }

  @Test
  void withoutValidCredentials_everyRpcIsUnauthenticated() {
    Map<String, BiFunction<CallOptions, String, Status>> calls = new LinkedHashMap<>();
    RPCS.forEach((name, rpc) -> calls.put(name, rpc.call()));
    calls.put("Events", (o, q) -> events(o, EventsRequest.getDefaultInstance()));
    for (var rpc : calls.entrySet()) {
      for (CallOptions options :
          List.of(
              CallOptions.DEFAULT,
              GrpcHarness.basic("ADMIN", "guessed-s3cret"),
              GrpcHarness.basic("NOBODY", "x"))) {
        Status s = rpc.getValue().apply(options, "jobs");
        assertEquals(Status.Code.UNAUTHENTICATED, s.getCode(), rpc.getKey() + ": " + s);
        assertTrue(!s.getDescription().contains("s3cret"), "the secret is never echoed: " + s);
      }
    }
  }

  @Test
  void aKeyWithoutTheAction_isPermissionDenied_andOneWithIt_isServed() {
    for (var rpc : RPCS.entrySet()) {
      Rpc row = rpc.getValue();
      Action needed = row.needs();
      String what = rpc.getKey() + " needs " + needed.wireName();

      Status served = row.call().apply(as("HAS-" + needed.name()), "jobs");
      assertEquals(row.served(), served.getCode(), what + ": " + served);
      assertEquals(
          row.served(), row.call().apply(as("ADMIN"), "jobs").getCode(), what + " (admin)");
      Status onJobs = row.call().apply(as("JOBS-" + needed.name()), "jobs");
      if (row.scope() == Scope.EVERY_QUEUE) {
        assertEquals(
            Status.Code.PERMISSION_DENIED,
            onJobs.getCode(),
            what + " on every queue: a grant on one queue is not enough");
      } else {
        assertEquals(row.served(), onJobs.getCode(), what + " (granted on the queue): " + onJobs);
      }

      for (Action other : QUEUE_ACTIONS) {
        if (other == needed) {
          continue;
        }
        Status denied = row.call().apply(as("HAS-" + other.name()), "jobs");
        assertEquals(
            Status.Code.PERMISSION_DENIED, denied.getCode(), what + ", not " + other.wireName());
        assertTrue(denied.getDescription().contains(needed.wireName()), what + ": " + denied);
      }
      if (row.scope() == Scope.QUEUE) {
        Status elsewhere = row.call().apply(as("JOBS-" + needed.name()), "other");
        assertEquals(
            Status.Code.PERMISSION_DENIED, elsewhere.getCode(), what + " on another queue");
      }
    }
  }

  @Test
  void listQueues_showsTheQueuesTheKeyMayBrowse() {
    assertEquals(List.of("dlq", "jobs", "other"), listed("HAS-QUEUE_BROWSE"));
    assertEquals(List.of("jobs"), listed("JOBS-QUEUE_BROWSE"));
  }

  private static List<String> listed(String key) {
    ListQueuesResponse page =
        ClientCalls.blockingUnaryCall(
            channel, QueuesService.LIST_QUEUES, as(key), ListQueuesRequest.getDefaultInstance());
    return page.getQueuesJsonList().stream()
        .map(j -> WireFormat.parse(j.getBytes(StandardCharsets.UTF_8)).get("name").asText())
        .toList();
  }

  /**
   * A second queue a request names or moves messages into needs {@code queue:send} there: MOVER
   * administers jobs and may send to dlq, not to other; refused, nothing changed.
   */
  @Test
  void namingOrMovingIntoAnotherQueue_needsSendThere() {
    String toOther = "{\"deadLetter\": {\"target\": \"other\", \"maxReceiveCount\": 3}}";
    String toDlq = "{\"deadLetter\": {\"target\": \"dlq\", \"maxReceiveCount\": 3}}";

    Status created =
        unary(
            QueuesService.CREATE_QUEUE,
            as("MOVER"),
            CreateQueueRequest.newBuilder().setName("jobs").setConfigJson(toOther).build());
    destinationForbidden(created, "CreateQueue naming other as dead-letter target");
    Status updated =
        unary(
            QueuesService.UPDATE_QUEUE,
            as("MOVER"),
            UpdateQueueRequest.newBuilder().setQueue("jobs").setConfigJson(toOther).build());
    destinationForbidden(updated, "UpdateQueue naming other as dead-letter target");
    assertTrue(h.engine.queue("jobs").config().deadLetter().isEmpty(), "nothing changed");

    Status redrive =
        unary(
            QueuesService.START_REDRIVE,
            as("MOVER"),
            StartRedriveRequest.newBuilder().setQueue("jobs").setDestination("other").build());
    destinationForbidden(redrive, "StartRedrive to other");
    assertEquals(
        Status.Code.OK,
        unary(
                QueuesService.START_REDRIVE,
                as("MOVER"),
                StartRedriveRequest.newBuilder().setQueue("jobs").setDestination("dlq").build())
            .getCode(),
        "a redrive to a queue it may send to");

    // other's dead-letter target is set by the admin; MOVER may not send there
    h.engine.updateQueue(
        "other", c -> c.toBuilder().deadLetter(DeadLetterPolicy.of("jobs", 3)).build());
    h.engine.updateQueue(
        "jobs", c -> c.toBuilder().deadLetter(DeadLetterPolicy.of("other", 3)).build());
    try {
      MessageRef queued = queued("jobs");
      destinationForbidden(
          unary(QueuesService.DEAD_LETTER_MESSAGE, as("MOVER"), queued),
          "DeadLetterMessage into other");
      assertEquals("m", h.engine.get("jobs", queued.getId()).body(), "it stayed in jobs");
      destinationForbidden(
          unary(QueuesService.DEAD_LETTER, as("MOVER"), lease("jobs")), "DeadLetter into other");

      // a message dead-lettered from other into jobs: restoring it moves it to other
      h.engine.purge("other");
      h.engine.send("other", io.switchboard.queue.NewMessage.of("back"));
      var lease = h.engine.receive("other", RECEIVE_ONE).get(0);
      h.engine.deadLetter("other", lease.receipt().orElseThrow());
      String inJobs =
          h.engine.browse("jobs", io.switchboard.queue.BrowseRequest.first(100)).items().stream()
              .filter(m -> m.body().equals("back"))
              .findFirst()
              .orElseThrow()
              .id();
      destinationForbidden(
          unary(
              QueuesService.RESTORE,
              as("MOVER"),
              MessageRef.newBuilder().setQueue("jobs").setId(inJobs).build()),
          "Restore into other");
      assertEquals(
          Status.Code.OK,
          unary(
                  QueuesService.RESTORE,
                  as("ADMIN"),
                  MessageRef.newBuilder().setQueue("jobs").setId(inJobs).build())
              .getCode(),
          "restored by a key that may send to other");
    } finally {
      h.engine.updateQueue("jobs", c -> c.toBuilder().noDeadLetter().build());
      h.engine.updateQueue("other", c -> c.toBuilder().noDeadLetter().build());
    }
  }

  private static void destinationForbidden(Status s, String what) {
    assertEquals(Status.Code.PERMISSION_DENIED, s.getCode(), what + ": " + s);
    assertTrue(s.getDescription().startsWith("DESTINATION_FORBIDDEN"), what + ": " + s);
    assertTrue(s.getDescription().contains("queue:send on queue 'other'"), what + ": " + s);
  }

  /** The SSE feed's access: routing:supervisor, or routing:agent as that agent for its events. */
  @Test
  void routingEvents_needTheSseFeedsAccess() {
    EventsRequest all = EventsRequest.getDefaultInstance();
    EventsRequest anns = EventsRequest.newBuilder().setAgent("ann").build();
    assertEquals(Status.Code.OK, events(as("SUPERVISOR"), all).getCode());
    assertEquals(Status.Code.OK, events(as("ADMIN"), all).getCode());
    assertEquals(Status.Code.OK, events(as("SUPERVISOR"), anns).getCode());
    assertEquals(Status.Code.OK, events(as("ANN"), anns).getCode());
    for (String key : List.of("ANN", "HAS-QUEUE_ADMIN", "HAS-QUEUE_BROWSE")) {
      Status denied = events(as(key), all);
      assertEquals(Status.Code.PERMISSION_DENIED, denied.getCode(), key + ": " + denied);
      assertTrue(denied.getDescription().contains("routing:supervisor"), key + ": " + denied);
    }
    assertEquals(
        Status.Code.PERMISSION_DENIED, events(as("BOB"), anns).getCode(), "another agent's events");
    assertEquals(
        Status.Code.PERMISSION_DENIED,
        events(as("SUPERVISOR"), all.toBuilder().setWorkspace("sales").build()).getCode(),
        "a supervisor of another workspace");
  }

  // ---- one call of each RPC ---------------------------------------------------------------

  private static Status publish(CallOptions options, String queue) {
    var s = h.publish(channel, options);
    s.requests()
        .onNext(
            PublishRequest.newBuilder()
                .setQueue(queue)
                .setMessage(OutgoingMessage.newBuilder().setBody("x"))
                .build());
    Status first = s.answers().first();
    s.requests().onCompleted();
    return first;
  }

  private static Status consume(CallOptions options, String queue) {
    var s = h.consume(channel, options);
    s.requests()
        .onNext(
            ConsumeRequest.newBuilder()
                .setOpen(ConsumeOpen.newBuilder().setQueue(queue).setCredit(1))
                .build());
    Status first = s.answers().first();
    s.requests().onCompleted();
    return first;
  }

  private static Status send(CallOptions options, String queue) {
    return unary(
        () ->
            ClientCalls.blockingUnaryCall(
                channel,
                QueuesService.SEND,
                options,
                SendRequest.newBuilder()
                    .setQueue(queue)
                    .setMessage(OutgoingMessage.newBuilder().setBody("x"))
                    .build()));
  }

  private static Status receive(CallOptions options, String queue) {
    return unary(
        () ->
            ClientCalls.blockingUnaryCall(
                channel,
                QueuesService.RECEIVE,
                options,
                ReceiveRequest.newBuilder().setQueue(queue).build()));
  }

  private static Status ack(CallOptions options, String queue) {
    return unary(
        () ->
            ClientCalls.blockingUnaryCall(
                channel,
                QueuesService.ACK,
                options,
                AckRequest.newBuilder().setQueue(queue).addReceipts("no-such-receipt").build()));
  }

  private static Status unary(Runnable call) {
    try {
      call.run();
      return Status.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    }
  }

  // ---- helpers -----------------------------------------------------------------------------

  private static <Q, A> Status unary(io.grpc.MethodDescriptor<Q, A> method, CallOptions o, Q q) {
    return unary(() -> ClientCalls.blockingUnaryCall(channel, method, o, q));
  }

  private static QueueRef ref(String queue) {
    return QueueRef.newBuilder().setQueue(queue).build();
  }

  /** A message sent to {@code queue} now, by id. */
  private static MessageRef queued(String queue) {
    String id = h.engine.send(queue, io.switchboard.queue.NewMessage.of("m")).id();
    return MessageRef.newBuilder().setQueue(queue).setId(id).build();
  }

  /** The receipt of a message sent to {@code queue} and received now. */
  private static String leased(String queue) {
    h.engine.purge(queue);
    h.engine.send(queue, io.switchboard.queue.NewMessage.of("m"));
    return h.engine.receive(queue, RECEIVE_ONE).get(0).receipt().orElseThrow();
  }

  private static LeaseRef lease(String queue) {
    return LeaseRef.newBuilder().setQueue(queue).setReceipt(leased(queue)).build();
  }

  /**
   * The status an Events stream starts with: OK once its first event comes (a {@code start} event,
   * asked for with from_now), else its error.
   */
  private static Status events(CallOptions options, EventsRequest request) {
    var answers = new GrpcHarness.Answers<io.switchboard.proto.v1.RoutingEvent>();
    io.grpc.ClientCall<EventsRequest, io.switchboard.proto.v1.RoutingEvent> call =
        channel.newCall(RoutingService.EVENTS, options);
    ClientCalls.asyncServerStreamingCall(
        call, request.toBuilder().setFromNow(true).build(), answers);
    Status first = answers.first();
    call.cancel("done", null);
    return first;
  }
}
