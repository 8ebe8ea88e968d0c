package io.switchboard.client.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.switchboard.client.AckResult;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.SendResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the client writes from a request record, the server reads back strictly into the same. */
class NativeWireTest {

  /** Through the bytes, as over HTTP, and read the way the server reads a request. */
  private static <T> T overTheWire(Object sent, Class<T> type) {
    return Json.strict(WireFormat.parse(Json.bytes(sent)), "request body", type);
  }

  private static String json(Object value) {
    return new String(Json.bytes(value), StandardCharsets.UTF_8);
  }

  @Test
  void requests_readBackStrictlyAsSent() {
    NewMessage m =
        NewMessage.builder("b")
            .attribute("n", AttributeValue.number("1.50"))
            .priority(3)
            .groupId("g")
            .delay(Duration.ofSeconds(2))
            .build();
    assertEquals(
        m, overTheWire(NativeWire.SendMessage.of(m), NativeWire.SendMessage.class).toNewMessage());
    ReceiveRequest r =
        ReceiveRequest.builder()
            .maxMessages(7)
            .waitTime(Duration.ofSeconds(5))
            .visibilityTimeout(Duration.ofSeconds(30))
            .build();
    NativeWire.Receive receive =
        overTheWire(NativeWire.Receive.of(r, Optional.of("a = 1")), NativeWire.Receive.class);
    assertEquals("a = 1", receive.selector());
    assertEquals(r, receive.toRequest().build());
    NativeWire.Release release =
        overTheWire(NativeWire.Release.of(Duration.ofSeconds(4), true), NativeWire.Release.class);
    assertEquals(Duration.ofSeconds(4), release.delay());
    assertEquals(true, release.back());
    assertEquals(
        Duration.ofSeconds(9),
        overTheWire(NativeWire.Extend.of(Duration.ofSeconds(9)), NativeWire.Extend.class)
            .visibilityTimeout());
    assertEquals(
        List.of("r1", "r2"),
        overTheWire(new NativeWire.AckBatch(List.of("r1", "r2")), NativeWire.AckBatch.class)
            .receipts());
    RedriveRequest redrive = RedriveRequest.to("dest").maxPerSecond(10);
    assertEquals(
        redrive,
        overTheWire(NativeWire.StartRedrive.of(redrive), NativeWire.StartRedrive.class)
            .toRequest());
    NativeWire.UpdateMessage update =
        overTheWire(
            NativeWire.UpdateMessage.of(
                Optional.empty(), Optional.of(Map.of("k", AttributeValue.string("v")))),
            NativeWire.UpdateMessage.class);
    assertEquals(Optional.of(Map.of("k", AttributeValue.string("v"))), update.attributeValues());
  }

  @Test
  void absentFieldsAreLeftOut_asTheApiDocumentsTheShapes() {
    assertEquals(
        "{\"body\":\"b\"}", json(NativeWire.SendMessage.of(NewMessage.builder("b").build())));
    assertEquals(
        "{\"maxMessages\":1}",
        json(NativeWire.Receive.of(ReceiveRequest.builder().build(), Optional.empty())));
    assertEquals(
        "{\"results\":[{\"receipt\":\"r\",\"acked\":true},"
            + "{\"receipt\":\"s\",\"acked\":false,\"code\":\"RECEIPT_STALE\",\"message\":\"m\"}]}",
        json(
            new NativeWire.AckResults(
                List.of(
                    NativeWire.Acked.of(AckResult.acked("r")),
                    NativeWire.Acked.of(AckResult.failed("s", "RECEIPT_STALE", "m"))))));
    assertEquals(
        "{\"id\":\"i\",\"sequence\":4,\"duplicate\":false}", json(new SendResult("i", 4, false)));
  }

  @Test
  void negativeSeconds_areRefusedWithTheFieldAndValue() {
    WireFormatException e =
        assertThrows(
            WireFormatException.class,
            () ->
                Json.strict(
                        WireFormat.parse("{\"delaySeconds\":-1}".getBytes(StandardCharsets.UTF_8)),
                        "request body",
                        NativeWire.Release.class)
                    .delay());
    assertEquals("delaySeconds must be a whole number of seconds >= 0, got -1", e.getMessage());
  }

  @Test
  void anAckBatchWithANullReceipt_isRefused_notAckedAsNull() {
    WireFormatException e =
        assertThrows(
            WireFormatException.class,
            () ->
                Json.strict(
                    WireFormat.parse(
                        "{\"receipts\":[\"r\",null]}".getBytes(StandardCharsets.UTF_8)),
                    "request body",
                    NativeWire.AckBatch.class));
    assertEquals(WireCode.INVALID_ARGUMENT, e.wireCode());
  }
}
