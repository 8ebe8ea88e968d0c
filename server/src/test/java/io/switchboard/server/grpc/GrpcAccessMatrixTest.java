package io.switchboard.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.switchboard.proto.QueuesService;
import io.switchboard.proto.v1.AckRequest;
import io.switchboard.proto.v1.ConsumeOpen;
import io.switchboard.proto.v1.ConsumeRequest;
import io.switchboard.proto.v1.OutgoingMessage;
import io.switchboard.proto.v1.PublishRequest;
import io.switchboard.proto.v1.ReceiveRequest;
import io.switchboard.proto.v1.SendRequest;
import io.switchboard.queue.QueueConfig;
import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.Grant;
import io.switchboard.server.auth.Principal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every RPC of {@code switchboard.v1.Queues} against the access keys: no credentials or wrong ones
 * are {@code UNAUTHENTICATED}, a key without the action the RPC needs on the queue it names is
 * {@code PERMISSION_DENIED}, a key with it is served. A method added to the service fails here
 * until it has its row.
 */
class GrpcAccessMatrixTest {

  /** Each RPC, the action it needs on the queue it names, and one call of it on that queue. */
  private record Rpc(Action needs, BiFunction<CallOptions, String, Status> call) {}

  private static GrpcHarness h;
  private static ManagedChannel channel;
  private static final Map<String, Rpc> RPCS = new LinkedHashMap<>();

  @BeforeAll
  static void start() {
    h = new GrpcHarness(c -> c);
    h.server.keys().put(Principal.admin("ADMIN", "ADMIN-secret"));
    for (Action a : List.of(Action.QUEUE_SEND, Action.QUEUE_RECEIVE)) {
      h.server.keys().put(key("HAS-" + a.name(), Grant.of("*", a)));
      h.server.keys().put(key("JOBS-" + a.name(), Grant.of("jobs", a)));
    }
    h.server.keys().put(key("BROWSER", Grant.of("*", Action.QUEUE_BROWSE)));
    h.engine.createQueue("jobs", QueueConfig.defaults());
    h.engine.createQueue("other", QueueConfig.defaults());
    channel = h.channel();
    RPCS.put("Publish", new Rpc(Action.QUEUE_SEND, GrpcAccessMatrixTest::publish));
    RPCS.put("Consume", new Rpc(Action.QUEUE_RECEIVE, GrpcAccessMatrixTest::consume));
    RPCS.put("Send", new Rpc(Action.QUEUE_SEND, GrpcAccessMatrixTest::send));
    RPCS.put("Receive", new Rpc(Action.QUEUE_RECEIVE, GrpcAccessMatrixTest::receive));
    RPCS.put("Ack", new Rpc(Action.QUEUE_RECEIVE, GrpcAccessMatrixTest::ack));
  }

  @AfterAll
  static void stop() {
    h.close();
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
  }

  @Test
  void withoutValidCredentials_everyRpcIsUnauthenticated() {
    for (var rpc : RPCS.entrySet()) {
      for (CallOptions options :
          List.of(
              CallOptions.DEFAULT,
              GrpcHarness.basic("ADMIN", "guessed-s3cret"),
              GrpcHarness.basic("NOBODY", "x"))) {
        Status s = rpc.getValue().call().apply(options, "jobs");
        assertEquals(Status.Code.UNAUTHENTICATED, s.getCode(), rpc.getKey() + ": " + s);
        assertTrue(!s.getDescription().contains("s3cret"), "the secret is never echoed: " + s);
      }
    }
  }

  @Test
  void aKeyWithoutTheAction_isPermissionDenied_andOneWithIt_isServed() {
    for (var rpc : RPCS.entrySet()) {
      Action needed = rpc.getValue().needs();
      Action other = needed == Action.QUEUE_SEND ? Action.QUEUE_RECEIVE : Action.QUEUE_SEND;
      String what = rpc.getKey() + " needs " + needed.wireName();

      Status served = rpc.getValue().call().apply(as("HAS-" + needed.name()), "jobs");
      assertEquals(Status.Code.OK, served.getCode(), what + ": " + served);
      assertEquals(
          Status.Code.OK,
          rpc.getValue().call().apply(as("ADMIN"), "jobs").getCode(),
          what + " (admin)");
      assertEquals(
          Status.Code.OK,
          rpc.getValue().call().apply(as("JOBS-" + needed.name()), "jobs").getCode(),
          what + " (granted on the queue)");

      for (String lacking : List.of("HAS-" + other.name(), "BROWSER")) {
        Status denied = rpc.getValue().call().apply(as(lacking), "jobs");
        assertEquals(Status.Code.PERMISSION_DENIED, denied.getCode(), what + ", " + lacking);
        assertTrue(denied.getDescription().contains(needed.wireName()), what + ": " + denied);
      }
      Status elsewhere = rpc.getValue().call().apply(as("JOBS-" + needed.name()), "other");
      assertEquals(Status.Code.PERMISSION_DENIED, elsewhere.getCode(), what + " on another queue");
    }
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
}
