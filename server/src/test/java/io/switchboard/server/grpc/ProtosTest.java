package io.switchboard.server.grpc;

import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.switchboard.proto.v1.Delivery;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.testing.Components;
import java.lang.reflect.Type;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The gRPC delivery is a hand-written form of {@link Message} ({@link Protos#delivery}): each
 * component of the message, changed alone, changes the delivery, so a field added to the record and
 * left out of the mapping fails here (the client's reading of it back is {@code
 * GrpcConsumerFormsTest}).
 */
class ProtosTest {

  private static final Instant SENT = Instant.ofEpochMilli(1_700_000_000_123L);

  @Test
  void delivery_carriesEveryComponentOfTheMessage() {
    Message base =
        new Message(
            "m-1",
            "body",
            Map.of(),
            3,
            Optional.of("group"),
            Optional.of("dedup"),
            17,
            MessageState.IN_FLIGHT,
            SENT,
            Optional.of(SENT.plusMillis(5)),
            2,
            Optional.of(SENT.plusSeconds(30)),
            SENT.plusSeconds(345_600),
            Optional.of("AAAAAAAAAAEAAAAB"),
            Optional.of("source-queue"));
    Delivery original = Protos.delivery(base);
    Components.eachChanged(base, ProtosTest::other)
        .forEach(
            (name, m) ->
                assertNotEquals(original, Protos.delivery(m), name + " is in the delivery"));
  }

  private static @Nullable Object other(Type type, @Nullable Object value) {
    return value instanceof Map<?, ?> ? Map.of("a", AttributeValue.string("x")) : null;
  }
}
