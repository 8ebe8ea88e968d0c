package io.switchboard.server.sqs;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.QueueException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * SQS message attributes ({@code {"DataType": "Number.int", "StringValue": "7"}}) mapped to the
 * engine's {@link AttributeValue}s and back. The data type is kept whole, custom label included,
 * and numbers keep the text sent, so an attribute round-trips byte for byte and its MD5 matches.
 * The engine's native {@code StringList} has no SQS form: SQS callers never see such attributes.
 */
final class MessageAttributes {

  static final int MAX_ATTRIBUTES = 10;

  /** The one message system attribute a sender may set. */
  static final String AWS_TRACE_HEADER = "AWSTraceHeader";

  /**
   * The stored attribute that holds a message's {@code AWSTraceHeader}: a name SQS callers cannot
   * send ({@code AWS.} is reserved), so it never clashes with theirs, and kept out of the {@code
   * MessageAttributes} a receive returns ({@code docs/decisions.md}, 2026-11-25).
   */
  static final String TRACE_HEADER_ATTRIBUTE = "AWS.TraceHeader";

  /** Letters (any script, as SQS allows), digits, underscore, hyphen and period. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,256}");

  private MessageAttributes() {}

  static Map<String, AttributeValue> read(Map<String, SqsRequest> attributes) {
    if (attributes.size() > MAX_ATTRIBUTES) {
      throw SqsErrorText.TOO_MANY_MESSAGE_ATTRIBUTES.error(attributes.size(), MAX_ATTRIBUTES);
    }
    Map<String, AttributeValue> out = new LinkedHashMap<>();
    for (var e : attributes.entrySet()) {
      checkName(e.getKey());
      out.put(e.getKey(), value(e.getKey(), e.getValue()));
    }
    return out;
  }

  /**
   * A send's {@code MessageSystemAttributes}: only {@code AWSTraceHeader}, of type {@code String}.
   */
  static Map<String, AttributeValue> readSystem(Map<String, SqsRequest> attributes) {
    Map<String, AttributeValue> out = new LinkedHashMap<>();
    for (var e : attributes.entrySet()) {
      if (!e.getKey().equals(AWS_TRACE_HEADER)) {
        throw SqsError.invalidParameter(
            "Message system attribute name '"
                + e.getKey()
                + "' is invalid: the only one a sender may set is "
                + AWS_TRACE_HEADER
                + ".");
      }
      AttributeValue v = value(e.getKey(), e.getValue());
      if (!(v instanceof AttributeValue.StringValue) || !v.dataType().equals("String")) {
        throw SqsError.invalidParameter(
            "Message system attribute "
                + AWS_TRACE_HEADER
                + " must be of DataType String, got "
                + v.dataType()
                + ".");
      }
      out.put(e.getKey(), v);
    }
    return out;
  }

  /**
   * An {@code X-Amzn-Trace-Id} header as the {@code AWSTraceHeader} system attribute. HTTP headers
   * carry no character SQS refuses in a string attribute but control characters; a header with one
   * is refused as the same value sent in {@code MessageSystemAttributes} would be.
   */
  static AttributeValue traceHeader(String header) {
    MessageActions.firstInvalidCharacter(header)
        .ifPresent(
            c -> {
              throw SqsError.invalidParameter(
                  "The X-Amzn-Trace-Id header has an invalid character '#x"
                      + Integer.toHexString(c)
                      + "'; the set of allowed characters is #x9 | #xA | #xD | #x20 to #xD7FF |"
                      + " #xE000 to #xFFFD | #x10000 to #x10FFFF");
            });
    return new AttributeValue.StringValue("String", header);
  }

  /**
   * SQS's naming rules: 1..256 ASCII letters and digits, {@code _-.}, no leading, trailing or
   * double period, and not starting with the reserved {@code AWS.} or {@code Amazon.} (any case).
   * Stricter than the engine's own rule (letters of any script), which the native API keeps.
   */
  private static void checkName(String name) {
    String reason = null;
    if (!NAME.matcher(name).matches()) {
      reason = "must be 1..256 characters of A-Z, a-z, 0-9, underscore, hyphen and period";
    } else if (name.startsWith(".") || name.endsWith(".") || name.contains("..")) {
      reason = "must not start or end with a period nor have two in a row";
    } else if (name.regionMatches(true, 0, "AWS.", 0, 4)
        || name.regionMatches(true, 0, "Amazon.", 0, 7)) {
      reason = "must not start with the reserved prefixes AWS. and Amazon.";
    }
    if (reason != null) {
      throw SqsError.invalidParameter(
          "Message (user) attribute name '" + name + "' is invalid: it " + reason + ".");
    }
  }

  private static AttributeValue value(String name, SqsRequest a) {
    String type = a.string("DataType").orElseThrow(() -> missing(name, "DataType"));
    String base = type.contains(".") ? type.substring(0, type.indexOf('.')) : type;
    try {
      return switch (base) {
        case "String" -> new AttributeValue.StringValue(type, stringValue(name, type, a));
        case "Number" -> new AttributeValue.NumberValue(type, stringValue(name, type, a));
        case "Binary" -> {
          String value = a.string("BinaryValue").orElseThrow(() -> missing(name, "BinaryValue"));
          if (value.isEmpty()) {
            throw SqsErrorText.ATTRIBUTE_VALUE_EMPTY.error(name, type);
          }
          yield new AttributeValue.BinaryValue(type, Base64.getDecoder().decode(value));
        }
        default ->
            throw SqsError.invalidParameter(
                "The type of message (user) attribute '"
                    + name
                    + "' is invalid. You must use only the following supported type prefixes:"
                    + " Binary, Number, String.");
      };
    } catch (QueueException | IllegalArgumentException e) {
      throw SqsError.invalidParameter(
          "Message (user) attribute '" + name + "' is invalid: " + e.getMessage());
    }
  }

  /**
   * A {@code String} or {@code Number} attribute's {@code StringValue}: present, not empty, and of
   * the characters SQS allows in a message, as SQS refuses them otherwise.
   */
  private static String stringValue(String name, String type, SqsRequest a) {
    String value = a.string("StringValue").orElseThrow(() -> missing(name, "StringValue"));
    if (value.isEmpty()) {
      throw SqsErrorText.STRING_ATTRIBUTE_VALUE_EMPTY.error(name, type);
    }
    MessageActions.firstInvalidCharacter(value)
        .ifPresent(
            c -> {
              throw SqsError.invalidParameter(
                  "Message (user) attribute '"
                      + name
                      + "' has an invalid character '#x"
                      + Integer.toHexString(c)
                      + "' in its value; the set of allowed characters is #x9 | #xA | #xD | #x20"
                      + " to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF");
            });
    return value;
  }

  private static SqsError missing(String name, String field) {
    return SqsError.invalidParameter(
        "The message (user) attribute '" + name + "' must contain a non-empty " + field + ".");
  }

  /**
   * The attributes a receive asked for: {@code All}, {@code *} or {@code .*} for every one, {@code
   * prefix.*} for those starting with the prefix, otherwise exact names.
   */
  static Map<String, AttributeValue> select(
      Map<String, AttributeValue> attributes, List<String> names) {
    Map<String, AttributeValue> out = new LinkedHashMap<>();
    if (names.isEmpty()) {
      return out;
    }
    for (var e : attributes.entrySet()) {
      if (!(e.getValue() instanceof AttributeValue.StringListValue)
          && !e.getKey().equals(TRACE_HEADER_ATTRIBUTE)
          && names.stream().anyMatch(n -> matches(n, e.getKey()))) {
        out.put(e.getKey(), e.getValue());
      }
    }
    return out;
  }

  private static boolean matches(String pattern, String name) {
    if (pattern.equals("All") || pattern.equals("*") || pattern.equals(".*")) {
      return true;
    }
    if (pattern.endsWith(".*")) {
      return name.startsWith(pattern.substring(0, pattern.length() - 2));
    }
    return pattern.equals(name);
  }

  static ObjectNode write(Map<String, AttributeValue> attributes) {
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    attributes.forEach(
        (name, v) -> {
          ObjectNode a = out.putObject(name).put("DataType", v.dataType());
          switch (v) {
            case AttributeValue.StringValue s -> a.put("StringValue", s.value());
            case AttributeValue.NumberValue n -> a.put("StringValue", n.value());
            case AttributeValue.BinaryValue b ->
                a.put("BinaryValue", Base64.getEncoder().encodeToString(b.value()));
            case AttributeValue.StringListValue l ->
                throw new IllegalArgumentException("StringList has no SQS form");
          }
        });
    return out;
  }
}
