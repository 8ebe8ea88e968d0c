package io.switchboard.client;

import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Timestamp;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.proto.v1.AttributeValue;
import io.switchboard.proto.v1.Delivery;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import org.junit.jupiter.api.Test;

/**
 * The gRPC consumer reads a {@link Message} from its hand-written form, the {@link Delivery}
 * ({@link GrpcConsumer#message}): each field of the delivery, changed alone, changes the message
 * read, so a field added to the delivery and left out of the reading fails here. (That the server's
 * mapping puts every component of the message into the delivery is {@code ProtosTest}.)
 */
class GrpcConsumerFormsTest {

  private static Timestamp at(long seconds) {
    return Timestamp.newBuilder().setSeconds(seconds).setNanos(123_000_000).build();
  }

  @Test
  void message_readsEveryFieldOfTheDelivery() {
    Delivery base =
        Delivery.newBuilder()
            .setId("m-1")
            .setBody("body")
            .putAttributes(
                "a", AttributeValue.newBuilder().setDataType("String").setStringValue("x").build())
            .setPriority(3)
            .setGroupId("group")
            .setDeduplicationId("dedup")
            .setSequence(17)
            .setSentAt(at(1_700_000_000))
            .setReceiveCount(2)
            .setLeaseEndsAt(at(1_700_000_030))
            .setReceipt("AAAAAAAAAAEAAAAB")
            .setExpiresAt(at(1_700_345_600))
            .setFirstReceivedAt(at(1_700_000_001))
            .setState(WireFormat.wireName(MessageState.IN_FLIGHT))
            .setDeadLetterSource("source-queue")
            .build();
    Message original = GrpcConsumer.message(base);
    for (FieldDescriptor f : Delivery.getDescriptor().getFields()) {
      Delivery.Builder b = base.toBuilder();
      if (f.isMapField()) {
        b.putAttributes(
            "b", AttributeValue.newBuilder().setDataType("String").setStringValue("y").build());
      } else if (f.getName().equals("state")) {
        b.setState(WireFormat.wireName(MessageState.DELAYED));
      } else {
        Object v = base.getField(f);
        b.setField(
            f,
            switch (f.getJavaType()) {
              case STRING -> v + "~";
              case INT -> (Integer) v + 1;
              case LONG -> (Long) v + 1;
              case MESSAGE ->
                  ((Timestamp) v).toBuilder().setSeconds(((Timestamp) v).getSeconds() + 1).build();
              default ->
                  throw new AssertionError(
                      f.getName() + ": a field of a type this test does not change");
            });
      }
      assertNotEquals(original, GrpcConsumer.message(b.build()), f.getName() + " is read");
    }
  }
}
