package io.switchboard.server.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.Timestamp;
import io.switchboard.proto.v1.Delivery;
import io.switchboard.proto.v1.OutgoingMessage;
import io.switchboard.proto.v1.StringList;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** Between the protocol's messages and the engine's. */
final class Protos {

  private Protos() {}

  /**
   * The message to send that {@code m} describes.
   *
   * @throws io.grpc.StatusRuntimeException {@code INVALID_ARGUMENT} naming what is wrong
   */
  static NewMessage message(OutgoingMessage m) {
    NewMessage.Builder b = NewMessage.builder(m.getBody());
    b.attributes(attributes(m.getAttributesMap())).priority(m.getPriority());
    if (!m.getGroupId().isEmpty()) {
      b.groupId(m.getGroupId());
    }
    if (!m.getDeduplicationId().isEmpty()) {
      b.deduplicationId(m.getDeduplicationId());
    }
    if (m.hasDelay()) {
      b.delay(duration("message.delay", m.getDelay()));
    }
    if (m.hasTimeToLive()) {
      b.timeToLive(duration("message.time_to_live", m.getTimeToLive()));
    }
    return b.build();
  }

  /** The engine's attributes of the protocol's; {@code INVALID_ARGUMENT} naming a bad one. */
  static Map<String, AttributeValue> attributes(
      Map<String, io.switchboard.proto.v1.AttributeValue> given) {
    Map<String, AttributeValue> attributes = new LinkedHashMap<>();
    for (var e : given.entrySet()) {
      attributes.put(e.getKey(), attribute(e.getKey(), e.getValue()));
    }
    return attributes;
  }

  private static AttributeValue attribute(String name, io.switchboard.proto.v1.AttributeValue v) {
    String type = v.getDataType();
    String base = type.contains(".") ? type.substring(0, type.indexOf('.')) : type;
    String field = "attribute '" + name + "'";
    try {
      return switch (base) {
        case "String" -> new AttributeValue.StringValue(type, string(field, v));
        case "Number" -> new AttributeValue.NumberValue(type, string(field, v));
        case "Binary" -> {
          if (v.getValueCase() != io.switchboard.proto.v1.AttributeValue.ValueCase.BINARY_VALUE) {
            throw Statuses.invalid(field + " of type " + type + " needs binary_value");
          }
          yield new AttributeValue.BinaryValue(type, v.getBinaryValue().toByteArray());
        }
        case "StringList" -> {
          if (v.getValueCase()
              != io.switchboard.proto.v1.AttributeValue.ValueCase.STRING_LIST_VALUE) {
            throw Statuses.invalid(field + " of type " + type + " needs string_list_value");
          }
          yield new AttributeValue.StringListValue(type, v.getStringListValue().getValuesList());
        }
        default ->
            throw Statuses.invalid(
                field
                    + ": data_type must be String, Number, Binary or StringList (with an optional"
                    + " .label), got '"
                    + type
                    + "'");
      };
    } catch (IllegalArgumentException e) {
      throw Statuses.invalid(field + ": " + e.getMessage());
    }
  }

  private static String string(String field, io.switchboard.proto.v1.AttributeValue v) {
    if (v.getValueCase() != io.switchboard.proto.v1.AttributeValue.ValueCase.STRING_VALUE) {
      throw Statuses.invalid(field + " of type " + v.getDataType() + " needs string_value");
    }
    return v.getStringValue();
  }

  static Duration duration(String field, com.google.protobuf.Duration d) {
    if (d.getSeconds() < 0 || d.getNanos() < 0) {
      throw Statuses.invalid(
          field + " must not be negative, got " + d.getSeconds() + "s " + d.getNanos() + "ns");
    }
    return Duration.ofSeconds(d.getSeconds(), d.getNanos());
  }

  static Delivery delivery(Message m) {
    Delivery.Builder b =
        Delivery.newBuilder()
            .setId(m.id())
            .setBody(m.body())
            .setPriority(m.priority())
            .setGroupId(m.groupId().orElse(""))
            .setDeduplicationId(m.deduplicationId().orElse(""))
            .setSequence(m.sequence())
            .setSentAt(timestamp(m.sentAt()))
            .setReceiveCount(m.receiveCount())
            .setReceipt(m.receipt().orElse(""))
            .setExpiresAt(timestamp(m.expiresAt()));
    b.setState(io.switchboard.client.wire.WireFormat.wireName(m.state()));
    m.deadLetterSource().ifPresent(b::setDeadLetterSource);
    m.firstReceivedAt().ifPresent(t -> b.setFirstReceivedAt(timestamp(t)));
    m.visibleAt().ifPresent(t -> b.setLeaseEndsAt(timestamp(t)));
    for (var e : m.attributes().entrySet()) {
      b.putAttributes(e.getKey(), attribute(e.getValue()));
    }
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

  static Timestamp timestamp(Instant t) {
    return Timestamp.newBuilder().setSeconds(t.getEpochSecond()).setNanos(t.getNano()).build();
  }
}
