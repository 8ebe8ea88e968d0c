package io.switchboard.client.wire;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.DeadLetterPolicy;
import io.switchboard.queue.DedupScope;
import io.switchboard.queue.ExpiryAction;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.Overflow;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.RedriveTask;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The native API's JSON, in one place for both ends: the server decodes requests and encodes
 * responses with it, the client does the reverse, so the two cannot disagree. {@code docs/api.md}
 * is the human description of the same shapes.
 *
 * <p>Conventions: durations are whole seconds in fields named {@code ...Seconds} (ages measured by
 * the server are milliseconds, {@code ...Millis}); instants are ISO-8601 UTC strings; enums are
 * lower camel case ({@code fifo}, {@code deadLetter}, {@code dropOldest}, {@code in_flight} for
 * message states); absent optional values are left out.
 *
 * <p>Public for the server; not part of the client API.
 */
public final class WireFormat {

  private WireFormat() {}

  public static ObjectNode object() {
    return Json.STRICT.getNodeFactory().objectNode();
  }

  public static ArrayNode array() {
    return Json.STRICT.getNodeFactory().arrayNode();
  }

  /**
   * Parses a request or response body; an empty body reads as {@code {}}. Refuses malformed JSON
   * with {@code MALFORMED_JSON}.
   */
  public static JsonNode parse(byte[] body) {
    if (body.length == 0) {
      return object();
    }
    try {
      JsonNode node = Json.STRICT.readTree(body);
      return node == null || node.isMissingNode() ? object() : node;
    } catch (JsonProcessingException e) {
      throw new WireFormatException(
          WireCode.MALFORMED_JSON, "malformed JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new WireFormatException(WireCode.MALFORMED_JSON, "unreadable body: " + e.getMessage());
    }
  }

  public static byte[] bytes(JsonNode node) {
    return Json.bytes(node);
  }

  // ---- enums -------------------------------------------------------------------------------

  /** The wire name of an enum constant: {@code DROP_OLDEST} → {@code dropOldest}. */
  public static String wireName(Enum<?> value) {
    if (value instanceof MessageState state) {
      return state.wireName();
    }
    StringBuilder out = new StringBuilder();
    boolean upper = false;
    for (char c : value.name().toCharArray()) {
      if (c == '_') {
        upper = true;
      } else {
        out.append(upper ? c : Character.toLowerCase(c));
        upper = false;
      }
    }
    return out.toString();
  }

  /**
   * The tag of a configuration, sent as the {@code ETag} of a queue and compared with a PATCH's
   * {@code If-Match}: a hash of its wire form (the same on every server and client, since the wire
   * form orders every list and map), quoted as HTTP wants it.
   */
  public static String configTag(QueueConfig c) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256")
              .digest(config(c).toString().getBytes(StandardCharsets.UTF_8));
      return "\"" + HexFormat.of().formatHex(hash, 0, 16) + "\"";
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** Reads an enum by its wire name, its Java name, or any case of either. */
  public static <E extends Enum<E>> E enumValue(Class<E> type, String field, String text) {
    Enum<?> named = BY_WIRE_NAME.get(type).get(text);
    if (named != null) {
      return type.cast(named); // what the loop below would find, without lowering every name
    }
    return enumByName(type, field, text);
  }

  /**
   * Each constant's wire name ({@link #wireName}), the form answers carry, to the constant {@link
   * #enumValue} reads it as.
   */
  private static final ClassValue<Map<String, Enum<?>>> BY_WIRE_NAME =
      new ClassValue<>() {
        @Override
        protected Map<String, Enum<?>> computeValue(Class<?> type) {
          Object[] constants = type.getEnumConstants();
          Map<String, Enum<?>> names = new HashMap<>();
          for (Object constant : constants) {
            String name = wireName((Enum<?>) constant);
            String wanted = normalized(name);
            for (Object first : constants) { // the first match, as enumByName takes
              if (normalized(((Enum<?>) first).name()).equals(wanted)) {
                names.put(name, (Enum<?>) first);
                break;
              }
            }
          }
          return Map.copyOf(names);
        }
      };

  private static String normalized(String name) {
    return name.replace("_", "").toLowerCase(Locale.ROOT);
  }

  private static <E extends Enum<E>> E enumByName(Class<E> type, String field, String text) {
    String wanted = normalized(text);
    List<String> allowed = new ArrayList<>();
    for (E constant : type.getEnumConstants()) {
      if (normalized(constant.name()).equals(wanted)) {
        return constant;
      }
      allowed.add(wireName(constant));
    }
    throw new WireFormatException(
        WireCode.INVALID_ARGUMENT,
        field + " must be one of " + String.join(", ", allowed) + ", got '" + text + "'");
  }

  private static <E extends Enum<E>> Optional<E> enumField(
      JsonFields f, String field, Class<E> type) {
    return f.string(field).map(s -> enumValue(type, field, s));
  }

  // ---- queue configuration -----------------------------------------------------------------

  /** A queue's configuration as answers carry it ({@link NativeWire.ConfigView}). */
  public static ObjectNode config(QueueConfig c) {
    return Json.tree(NativeWire.ConfigView.of(c));
  }

  /**
   * Applies the fields present in {@code f} over {@code base}: a create passes the defaults, an
   * update the current configuration. {@code "deadLetter": null} removes the dead-letter policy,
   * {@code "maxDepth": null} makes the queue unbounded and {@code "keyLimit": null} removes the
   * limit per key. Validation is the engine's (through the {@link QueueConfig} constructor).
   */
  public static QueueConfig config(JsonFields f, QueueConfig base) {
    QueueConfig.Builder b = base.toBuilder();
    enumField(f, "order", Order.class).ifPresent(b::order);
    f.seconds("visibilityTimeoutSeconds").ifPresent(b::visibilityTimeout);
    f.seconds("delaySeconds", QueueConfig.MAX_DELAY).ifPresent(b::delay);
    f.seconds("retentionSeconds").ifPresent(b::retention);
    enumField(f, "onExpire", ExpiryAction.class).ifPresent(b::onExpire);
    f.int32("maxMessageSizeBytes").ifPresent(b::maxMessageSize);
    f.seconds("receiveWaitSeconds").ifPresent(b::receiveWait);
    if (f.isNull("deadLetter")) {
      b.noDeadLetter();
    }
    f.object("deadLetter")
        .ifPresent(
            d -> {
              String target = d.requiredString("target");
              int max = d.requiredInt32("maxReceiveCount");
              d.finish();
              b.deadLetter(DeadLetterPolicy.of(target, max));
            });
    Optional<Overflow> overflow = enumField(f, "overflow", Overflow.class);
    OptionalLong maxDepth = f.int64("maxDepth");
    if (f.isNull("maxDepth")) {
      b.unbounded();
    } else if (maxDepth.isPresent()) {
      b.maxDepth(maxDepth.getAsLong(), overflow.orElse(base.overflow()));
    } else if (overflow.isPresent() && base.maxDepth().isPresent()) {
      b.maxDepth(base.maxDepth().getAsLong(), overflow.get());
    } else if (overflow.isPresent() && overflow.get() != base.overflow()) {
      throw new WireFormatException(
          WireCode.INVALID_ARGUMENT, "overflow needs maxDepth: an unbounded queue never overflows");
    }
    f.bool("contentBasedDeduplication").ifPresent(b::contentBasedDeduplication);
    enumField(f, "dedupScope", DedupScope.class).ifPresent(b::dedupScope);
    f.seconds("historyRetentionSeconds").ifPresent(b::historyRetention);
    f.strings("indexedAttributes").ifPresent(names -> b.indexedAttributes(Set.copyOf(names)));
    if (f.isNull("keyLimit")) {
      b.noKeyLimit();
    }
    f.object("keyLimit")
        .ifPresent(
            k -> {
              int max = k.requiredInt32("maxConcurrent");
              k.finish();
              b.keyLimit(max);
            });
    f.raw("metadata").ifPresent(m -> b.metadata(metadata(m)));
    return b.build();
  }

  /** A queue's metadata: an object of strings, replaced as a whole. */
  private static Map<String, String> metadata(JsonNode node) {
    if (!node.isObject()) {
      throw new WireFormatException(
          WireCode.INVALID_ARGUMENT,
          "field 'metadata' must be an object of strings, got " + JsonFields.typeName(node));
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : node.properties()) {
      if (!e.getValue().isTextual()) {
        throw new WireFormatException(
            WireCode.INVALID_ARGUMENT,
            "field 'metadata."
                + e.getKey()
                + "' must be a string, got "
                + JsonFields.typeName(e.getValue()));
      }
      out.put(e.getKey(), e.getValue().textValue());
    }
    return out;
  }

  // ---- queues and stats --------------------------------------------------------------------

  /** A queue as answers carry it ({@link NativeWire.QueueView}). */
  public static ObjectNode queueInfo(QueueInfo q) {
    return Json.tree(NativeWire.QueueView.of(q, null));
  }

  /** A queue of an answer, read leniently ({@link NativeWire.QueueView}). */
  public static QueueInfo queueInfo(JsonFields f) {
    return Json.lenient(f.node(), NativeWire.QueueView.class).toQueueInfo();
  }

  public static ObjectNode stats(QueueStats s) {
    return Json.tree(NativeWire.Stats.of(s));
  }

  public static QueueStats stats(JsonFields f) {
    return Json.lenient(f.node(), NativeWire.Stats.class).toStats();
  }

  // ---- messages ----------------------------------------------------------------------------

  public static ObjectNode newMessage(NewMessage m) {
    return Json.tree(NativeWire.SendMessage.of(m));
  }

  /** Binds a message to send strictly ({@link NativeWire.SendMessage}). */
  public static NewMessage newMessage(JsonFields f) {
    return Json.strict(f.node(), f.where(), NativeWire.SendMessage.class).toNewMessage();
  }

  /** A message as answers carry it ({@link MessageJson}). */
  public static ObjectNode message(Message m) {
    return Json.tree(m);
  }

  /** A message of an answer, read leniently ({@link MessageJson}). */
  public static Message message(JsonFields f) {
    return Json.lenient(f.node(), Message.class);
  }

  // ---- attributes --------------------------------------------------------------------------

  /**
   * Attributes in their short form where the type says it all ({@code "es"}, {@code 42}, {@code
   * ["billing","vip"]}) and the long form ({@code {"dataType": "Binary", "value": "base64"}}) for
   * binary values and labelled types such as {@code Number.int}.
   */
  public static ObjectNode attributes(Map<String, AttributeValue> attributes) {
    ObjectNode o = object();
    if (attributes.isEmpty()) {
      return o; // most messages: no stream to sort nothing
    }
    attributes.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(e -> o.set(e.getKey(), attribute(e.getValue())));
    return o;
  }

  private static JsonNode attribute(AttributeValue value) {
    boolean plain = value.dataType().indexOf('.') < 0;
    switch (value) {
      case AttributeValue.StringValue s when plain -> {
        return Json.STRICT.getNodeFactory().textNode(s.value());
      }
      case AttributeValue.NumberValue n when plain && jsonNumberKeepsText(n.value()) -> {
        return Json.STRICT.getNodeFactory().numberNode(new BigDecimal(n.value()));
      }
      case AttributeValue.StringListValue l when plain -> {
        ArrayNode a = array();
        l.value().forEach(a::add);
        return a;
      }
      default -> {
        ObjectNode o = object().put("dataType", value.dataType());
        switch (value) {
          case AttributeValue.StringValue s -> o.put("value", s.value());
          case AttributeValue.NumberValue n -> o.put("value", n.value());
          case AttributeValue.BinaryValue b ->
              o.put("value", Base64.getEncoder().encodeToString(b.value()));
          case AttributeValue.StringListValue l -> {
            ArrayNode a = o.putArray("value");
            l.value().forEach(a::add);
          }
        }
        return o;
      }
    }
  }

  /**
   * Whether a number's text survives a JSON number unchanged ({@code 42}, {@code -1.50}); other
   * texts ({@code -1.50e3}, {@code " 7"}, {@code +1}) go in the long form, as a string, so that a
   * value reads back exactly as it was sent.
   */
  private static boolean jsonNumberKeepsText(String text) {
    try {
      return new BigDecimal(text).toString().equals(text);
    } catch (NumberFormatException e) {
      return false;
    }
  }

  public static Map<String, AttributeValue> attributes(JsonNode node) {
    if (!node.isObject()) {
      throw new WireFormatException(
          WireCode.INVALID_ARGUMENT,
          "field 'attributes' must be an object, got " + JsonFields.typeName(node));
    }
    Map<String, AttributeValue> out = new LinkedHashMap<>();
    node.properties().forEach(e -> out.put(e.getKey(), attribute(e.getKey(), e.getValue())));
    return out;
  }

  private static AttributeValue attribute(String name, JsonNode v) {
    String field = "attributes." + name;
    if (v.isTextual()) {
      return AttributeValue.string(v.textValue());
    }
    if (v.isNumber()) {
      return AttributeValue.number(v.numberValue().toString());
    }
    if (v.isArray()) {
      return AttributeValue.stringList(stringItems(field, v));
    }
    if (v.isObject()) {
      JsonFields f = JsonFields.strict(v, field);
      String type = f.requiredString("dataType");
      JsonNode value =
          f.raw("value")
              .orElseThrow(
                  () ->
                      new WireFormatException(
                          WireCode.INVALID_ARGUMENT, "field 'value' is required in " + field));
      f.finish();
      String base = type.contains(".") ? type.substring(0, type.indexOf('.')) : type;
      return switch (base) {
        case "String" -> new AttributeValue.StringValue(type, text(field, value));
        case "Number" ->
            new AttributeValue.NumberValue(
                type, value.isNumber() ? value.numberValue().toString() : text(field, value));
        case "Binary" -> new AttributeValue.BinaryValue(type, base64(field, text(field, value)));
        case "StringList" ->
            new AttributeValue.StringListValue(type, stringItems(field + ".value", value));
        default ->
            throw new WireFormatException(
                WireCode.INVALID_ARGUMENT,
                field
                    + ".dataType must be String, Number, Binary or StringList (with an optional"
                    + " .label), got '"
                    + type
                    + "'");
      };
    }
    throw new WireFormatException(
        WireCode.INVALID_ARGUMENT,
        field
            + " must be a string, a number, an array of strings or {\"dataType\", \"value\"}, got "
            + JsonFields.typeName(v));
  }

  private static String text(String field, JsonNode v) {
    if (!v.isTextual()) {
      throw new WireFormatException(
          WireCode.INVALID_ARGUMENT,
          field + ".value must be a string, got " + JsonFields.typeName(v));
    }
    return v.textValue();
  }

  private static byte[] base64(String field, String text) {
    try {
      return Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw new WireFormatException(WireCode.INVALID_ARGUMENT, field + ".value must be base64");
    }
  }

  private static List<String> stringItems(String field, JsonNode v) {
    if (!v.isArray()) {
      throw new WireFormatException(
          WireCode.INVALID_ARGUMENT,
          field + " must be an array of strings, got " + JsonFields.typeName(v));
    }
    List<String> out = new ArrayList<>(v.size());
    for (JsonNode item : v) {
      if (!item.isTextual()) {
        throw new WireFormatException(
            WireCode.INVALID_ARGUMENT,
            field
                + " must be an array of strings, got an item that is "
                + JsonFields.typeName(item));
      }
      out.add(item.textValue());
    }
    return out;
  }

  // ---- redrive -----------------------------------------------------------------------------

  /** A redrive task as answers carry it ({@link NativeWire.RedriveTaskView}). */
  public static ObjectNode redriveTask(RedriveTask t) {
    return Json.tree(NativeWire.RedriveTaskView.of(t));
  }

  /** A redrive task of an answer, read leniently ({@link NativeWire.RedriveTaskView}). */
  public static RedriveTask redriveTask(JsonFields f) {
    return Json.lenient(f.node(), NativeWire.RedriveTaskView.class).toTask();
  }

  // ---- helpers -----------------------------------------------------------------------------

  /** An ISO-8601 instant of an answer; empty for an absent ({@code null}) field. */
  static Optional<Instant> instant(String field, @Nullable String text) {
    return Optional.ofNullable(text)
        .map(
            s -> {
              Instant usual = InstantText.parse(s);
              if (usual != null) {
                return usual;
              }
              try {
                return Instant.parse(s);
              } catch (DateTimeParseException e) {
                throw new WireFormatException(
                    WireCode.INVALID_ARGUMENT,
                    field + " must be an ISO-8601 instant, got '" + s + "'");
              }
            });
  }

  /** Whole seconds of a duration that goes on the wire; a fraction cannot be expressed. */
  public static long wholeSeconds(String field, Duration d) {
    if (d.toNanosPart() != 0) {
      throw new IllegalArgumentException(
          field + " must be whole seconds on the native API, got " + d.toMillis() + " ms");
    }
    return d.toSeconds();
  }
}
