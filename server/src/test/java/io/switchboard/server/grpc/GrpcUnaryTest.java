package io.switchboard.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.switchboard.proto.QueuesService;
import io.switchboard.proto.v1.AckRequest;
import io.switchboard.proto.v1.AckResponse;
import io.switchboard.proto.v1.AttributeValue;
import io.switchboard.proto.v1.Delivery;
import io.switchboard.proto.v1.OutgoingMessage;
import io.switchboard.proto.v1.ReceiveRequest;
import io.switchboard.proto.v1.ReceiveResponse;
import io.switchboard.proto.v1.SendRequest;
import io.switchboard.proto.v1.SendResponse;
import io.switchboard.queue.QueueConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The unary calls: Send, Receive (at once), Ack. */
class GrpcUnaryTest {

  private GrpcHarness h;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    h = new GrpcHarness(c -> c);
    h.engine.createQueue("jobs", QueueConfig.defaults());
    channel = h.channel();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  private SendResponse send(OutgoingMessage m) {
    return ClientCalls.blockingUnaryCall(
        channel,
        QueuesService.SEND,
        CallOptions.DEFAULT,
        SendRequest.newBuilder().setQueue("jobs").setMessage(m).build());
  }

  private ReceiveResponse receive(int max) {
    return ClientCalls.blockingUnaryCall(
        channel,
        QueuesService.RECEIVE,
        CallOptions.DEFAULT,
        ReceiveRequest.newBuilder().setQueue("jobs").setMaxMessages(max).build());
  }

  @Test
  void sendReceiveAck_roundTrip_withAttributes() {
    SendResponse sent =
        send(
            OutgoingMessage.newBuilder()
                .setBody("hello")
                .setPriority(3)
                .putAttributes(
                    "n",
                    AttributeValue.newBuilder().setDataType("Number").setStringValue("7").build())
                .build());
    send(OutgoingMessage.newBuilder().setBody("second").build());
    ReceiveResponse got = receive(5);
    assertEquals(2, got.getMessagesCount());
    Delivery first = got.getMessages(0);
    assertEquals(sent.getId(), first.getId());
    assertEquals("7", first.getAttributesOrThrow("n").getStringValue());
    assertEquals(3, first.getPriority());
    assertEquals(0, receive(1).getMessagesCount(), "answers at once, empty");

    AckResponse acked =
        ClientCalls.blockingUnaryCall(
            channel,
            QueuesService.ACK,
            CallOptions.DEFAULT,
            AckRequest.newBuilder()
                .setQueue("jobs")
                .addReceipts(first.getReceipt())
                .addReceipts(got.getMessages(1).getReceipt())
                .addReceipts("not-a-receipt")
                .build());
    assertEquals("", acked.getResults(0).getErrorCode());
    assertEquals("", acked.getResults(1).getErrorCode());
    assertTrue(!acked.getResults(2).getErrorCode().isEmpty(), acked.toString());
    assertEquals(0, h.engine.stats("jobs").depth());
  }

  @Test
  void badInput_isInvalidArgument_namingWhatIsAllowed() {
    StatusRuntimeException tooMany =
        assertThrows(StatusRuntimeException.class, () -> receive(1001));
    assertEquals(Status.Code.INVALID_ARGUMENT, tooMany.getStatus().getCode());
    assertEquals(
        "INVALID_ARGUMENT: max_messages must be 1..1000, got 1001",
        tooMany.getStatus().getDescription());

    StatusRuntimeException badType =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                send(
                    OutgoingMessage.newBuilder()
                        .setBody("x")
                        .putAttributes(
                            "a",
                            AttributeValue.newBuilder()
                                .setDataType("Date")
                                .setStringValue("today")
                                .build())
                        .build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, badType.getStatus().getCode());
    assertTrue(
        badType.getStatus().getDescription().contains("got 'Date'"),
        badType.getStatus().getDescription());

    StatusRuntimeException noReceipts =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                ClientCalls.blockingUnaryCall(
                    channel,
                    QueuesService.ACK,
                    CallOptions.DEFAULT,
                    AckRequest.newBuilder().setQueue("jobs").build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, noReceipts.getStatus().getCode());
    assertEquals(0, h.engine.stats("jobs").depth(), "nothing refused was sent");
  }
}
