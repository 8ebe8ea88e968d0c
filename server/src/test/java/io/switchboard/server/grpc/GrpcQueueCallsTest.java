package io.switchboard.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.proto.QueuesService;
import io.switchboard.proto.v1.BrowseRequest;
import io.switchboard.proto.v1.BrowseResponse;
import io.switchboard.proto.v1.CreateQueueRequest;
import io.switchboard.proto.v1.Delivery;
import io.switchboard.proto.v1.ExtendRequest;
import io.switchboard.proto.v1.ListQueuesRequest;
import io.switchboard.proto.v1.ListQueuesResponse;
import io.switchboard.proto.v1.MessageRef;
import io.switchboard.proto.v1.OutgoingMessage;
import io.switchboard.proto.v1.QueueRef;
import io.switchboard.proto.v1.QueueResponse;
import io.switchboard.proto.v1.ReceiveRequest;
import io.switchboard.proto.v1.ReleaseRequest;
import io.switchboard.proto.v1.SendBatchRequest;
import io.switchboard.proto.v1.SendBatchResponse;
import io.switchboard.proto.v1.UpdateMessageRequest;
import io.switchboard.proto.v1.UpdateQueueRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The unary calls for the rest of the queue API, each as its HTTP route behaves. */
class GrpcQueueCallsTest {

  private GrpcHarness h;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    h = new GrpcHarness(c -> c);
    channel = h.channel();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  private <Q, A> A call(MethodDescriptor<Q, A> method, Q request) {
    return ClientCalls.blockingUnaryCall(channel, method, CallOptions.DEFAULT, request);
  }

  private <Q, A> Status refused(MethodDescriptor<Q, A> method, Q request) {
    return assertThrows(StatusRuntimeException.class, () -> call(method, request)).getStatus();
  }

  private static JsonNode json(String text) {
    return WireFormat.parse(text.getBytes(StandardCharsets.UTF_8));
  }

  private static QueueRef ref(String queue) {
    return QueueRef.newBuilder().setQueue(queue).build();
  }

  @Test
  void createGetUpdateDelete_withTheHttpApisConfiguration_andItsTag() {
    QueueResponse created =
        call(
            QueuesService.CREATE_QUEUE,
            CreateQueueRequest.newBuilder()
                .setName("jobs")
                .setConfigJson("{\"visibilityTimeoutSeconds\": 45}")
                .build());
    assertTrue(created.getCreated());
    assertEquals(Duration.ofSeconds(45), h.engine.queue("jobs").config().visibilityTimeout());
    assertEquals(
        45, json(created.getQueueJson()).get("config").get("visibilityTimeoutSeconds").asInt());
    QueueResponse again =
        call(
            QueuesService.CREATE_QUEUE,
            CreateQueueRequest.newBuilder()
                .setName("jobs")
                .setConfigJson("{\"visibilityTimeoutSeconds\": 45}")
                .build());
    assertFalse(again.getCreated(), "the same configuration: it existed alike");

    QueueResponse got = call(QueuesService.GET_QUEUE, ref("jobs"));
    assertEquals(created.getTag(), got.getTag());
    assertEquals(0, json(got.getQueueJson()).get("stats").get("depth").asLong());

    QueueResponse updated =
        call(
            QueuesService.UPDATE_QUEUE,
            UpdateQueueRequest.newBuilder()
                .setQueue("jobs")
                .setConfigJson("{\"visibilityTimeoutSeconds\": 60}")
                .setIfMatch(got.getTag())
                .build());
    assertEquals(Duration.ofSeconds(60), h.engine.queue("jobs").config().visibilityTimeout());
    Status stale =
        refused(
            QueuesService.UPDATE_QUEUE,
            UpdateQueueRequest.newBuilder()
                .setQueue("jobs")
                .setConfigJson("{\"visibilityTimeoutSeconds\": 90}")
                .setIfMatch(got.getTag())
                .build());
    assertEquals(Status.Code.FAILED_PRECONDITION, stale.getCode());
    assertTrue(stale.getDescription().startsWith("PRECONDITION_FAILED"), stale.toString());
    assertTrue(stale.getDescription().contains(updated.getTag()), "names the current tag");
    assertEquals(Duration.ofSeconds(60), h.engine.queue("jobs").config().visibilityTimeout());

    call(QueuesService.DELETE_QUEUE, ref("jobs"));
    Status gone = refused(QueuesService.GET_QUEUE, ref("jobs"));
    assertEquals(Status.Code.NOT_FOUND, gone.getCode());
    assertTrue(gone.getDescription().startsWith("QUEUE_NOT_FOUND"), gone.toString());
  }

  @Test
  void badConfiguration_isRefused_namingTheField_andCreatesNothing() {
    Status unknown =
        refused(
            QueuesService.CREATE_QUEUE,
            CreateQueueRequest.newBuilder()
                .setName("jobs")
                .setConfigJson("{\"visibilityTimeout\": 45}")
                .build());
    assertEquals(Status.Code.INVALID_ARGUMENT, unknown.getCode());
    assertTrue(unknown.getDescription().contains("visibilityTimeout"), unknown.toString());
    Status malformed =
        refused(
            QueuesService.CREATE_QUEUE,
            CreateQueueRequest.newBuilder().setName("jobs").setConfigJson("{").build());
    assertEquals(Status.Code.INVALID_ARGUMENT, malformed.getCode());
    assertTrue(malformed.getDescription().startsWith("MALFORMED_JSON"), malformed.toString());
    assertTrue(h.engine.listQueues("").isEmpty(), "nothing was created");
  }

  @Test
  void listQueues_pagesByName() {
    for (String q : new String[] {"a1", "a2", "a3", "b1"}) {
      h.engine.createQueue(q, io.switchboard.queue.QueueConfig.defaults());
    }
    ListQueuesResponse first =
        call(
            QueuesService.LIST_QUEUES,
            ListQueuesRequest.newBuilder().setPrefix("a").setLimit(2).build());
    assertEquals(2, first.getQueuesJsonCount());
    assertEquals("a2", first.getNextCursor());
    ListQueuesResponse second =
        call(
            QueuesService.LIST_QUEUES,
            ListQueuesRequest.newBuilder()
                .setPrefix("a")
                .setLimit(2)
                .setCursor(first.getNextCursor())
                .build());
    assertEquals(1, second.getQueuesJsonCount());
    assertEquals("a3", json(second.getQueuesJson(0)).get("name").asText());
    assertEquals("", second.getNextCursor(), "the last page");
    Status limit =
        refused(QueuesService.LIST_QUEUES, ListQueuesRequest.newBuilder().setLimit(1001).build());
    assertEquals(Status.Code.INVALID_ARGUMENT, limit.getCode());
    assertTrue(limit.getDescription().contains("1..1000, got 1001"), limit.toString());
  }

  @Test
  void sendBatch_browse_stats_updateMessage_remove_purge() {
    h.engine.createQueue("jobs", io.switchboard.queue.QueueConfig.defaults());
    SendBatchResponse sent =
        call(
            QueuesService.SEND_BATCH,
            SendBatchRequest.newBuilder()
                .setQueue("jobs")
                .addMessages(OutgoingMessage.newBuilder().setBody("a"))
                .addMessages(OutgoingMessage.newBuilder().setBody("b").setPriority(2))
                .addMessages(OutgoingMessage.newBuilder().setBody("c"))
                .build());
    assertEquals(3, sent.getResultsCount());
    String a = sent.getResults(0).getId();

    BrowseResponse page =
        call(QueuesService.BROWSE, BrowseRequest.newBuilder().setQueue("jobs").setLimit(2).build());
    assertEquals(2, page.getMessagesCount());
    assertFalse(page.getNextCursor().isEmpty(), "a next page");
    assertEquals("", page.getMessages(0).getReceipt(), "browsing leases nothing");

    Delivery changed =
        call(
            QueuesService.UPDATE_MESSAGE,
            UpdateMessageRequest.newBuilder().setQueue("jobs").setId(a).setPriority(7).build());
    assertEquals(7, changed.getPriority());
    assertEquals(7, h.engine.get("jobs", a).priority());
    Status neither =
        refused(
            QueuesService.UPDATE_MESSAGE,
            UpdateMessageRequest.newBuilder().setQueue("jobs").setId(a).build());
    assertEquals(Status.Code.INVALID_ARGUMENT, neither.getCode());

    call(QueuesService.REMOVE_MESSAGE, MessageRef.newBuilder().setQueue("jobs").setId(a).build());
    assertEquals(
        2, json(call(QueuesService.STATS, ref("jobs")).getStatsJson()).get("depth").asLong());
    assertEquals(2, call(QueuesService.PURGE, ref("jobs")).getPurged());
    assertEquals(0, h.engine.stats("jobs").depth());

    Status empty =
        refused(QueuesService.SEND_BATCH, SendBatchRequest.newBuilder().setQueue("jobs").build());
    assertEquals(Status.Code.INVALID_ARGUMENT, empty.getCode());
  }

  @Test
  void extendAndRelease_changeTheLease() {
    h.engine.createQueue("jobs", io.switchboard.queue.QueueConfig.defaults());
    h.engine.send("jobs", io.switchboard.queue.NewMessage.of("m"));
    Delivery leased =
        call(
                QueuesService.RECEIVE,
                ReceiveRequest.newBuilder().setQueue("jobs").setMaxMessages(1).build())
            .getMessages(0);
    Delivery extended =
        call(
            QueuesService.EXTEND,
            ExtendRequest.newBuilder()
                .setQueue("jobs")
                .setReceipt(leased.getReceipt())
                .setVisibilityTimeout(com.google.protobuf.Duration.newBuilder().setSeconds(600))
                .build());
    assertEquals(
        h.clock.instant().plusSeconds(600).getEpochSecond(),
        extended.getLeaseEndsAt().getSeconds());
    call(
        QueuesService.RELEASE,
        ReleaseRequest.newBuilder().setQueue("jobs").setReceipt(leased.getReceipt()).build());
    assertEquals(1, h.engine.stats("jobs").available(), "released: available again");
    Status stale =
        refused(
            QueuesService.RELEASE,
            ReleaseRequest.newBuilder().setQueue("jobs").setReceipt(leased.getReceipt()).build());
    assertEquals(Status.Code.FAILED_PRECONDITION, stale.getCode(), stale.toString());
  }
}
