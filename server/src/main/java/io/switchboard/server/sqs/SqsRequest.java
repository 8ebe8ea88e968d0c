package io.switchboard.server.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One AWS JSON 1.0 request body, read leniently about fields it does not know (SDKs add members
 * over time) and strictly about the types of those it does: a wrong type is {@code
 * InvalidParameterValue}, a required field missing is {@code MissingParameter}.
 */
final class SqsRequest {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final JsonNode root;
  private final QueueAddress address;

  private SqsRequest(JsonNode root, QueueAddress address) {
    this.root = root;
    this.address = address;
  }

  /**
   * A request already in tree form, such as a translated query-protocol request, made at {@code
   * address}.
   */
  static SqsRequest of(JsonNode root, QueueAddress address) {
    return new SqsRequest(root, address);
  }

  static SqsRequest parse(byte[] body, QueueAddress address) {
    if (body.length == 0) {
      return new SqsRequest(JsonNodeFactory.instance.objectNode(), address);
    }
    JsonNode root;
    try {
      root = MAPPER.readTree(body);
    } catch (IOException e) {
      throw SqsError.sender("SerializationException", "the request body is not JSON");
    }
    if (root == null || !root.isObject()) {
      throw SqsError.sender("SerializationException", "the request body must be a JSON object");
    }
    return new SqsRequest(root, address);
  }

  /** The region and account the request is made in: how its queue names, URLs and ARNs resolve. */
  QueueAddress address() {
    return address;
  }

  /** The engine queue the request's {@code QueueUrl} names. */
  String queue() {
    return address.fromUrl(required("QueueUrl"));
  }

  private Optional<JsonNode> node(String field) {
    JsonNode n = root.get(field);
    return n == null || n.isNull() ? Optional.empty() : Optional.of(n);
  }

  /** Whether the field is present and not null. */
  boolean has(String field) {
    return node(field).isPresent();
  }

  Optional<String> string(String field) {
    return node(field)
        .map(
            n -> {
              if (!n.isTextual()) {
                throw SqsError.invalidParameter(field + " must be a string");
              }
              return n.asText();
            });
  }

  String required(String field) {
    return string(field).orElseThrow(() -> SqsError.missingParameter(field));
  }

  OptionalInt integer(String field) {
    Optional<JsonNode> n = node(field);
    if (n.isEmpty()) {
      return OptionalInt.empty();
    }
    if (!n.get().isIntegralNumber() || !n.get().canConvertToInt()) {
      throw SqsError.invalidParameter(field + " must be an integer, got " + n.get());
    }
    return OptionalInt.of(n.get().intValue());
  }

  /** An integer that must lie in {@code min..max}, as SQS words the error. */
  OptionalInt integer(String field, int min, int max) {
    OptionalInt v = integer(field);
    if (v.isPresent() && (v.getAsInt() < min || v.getAsInt() > max)) {
      throw SqsErrorText.VALUE_OUT_OF_RANGE.error(v.getAsInt(), field, min, max);
    }
    return v;
  }

  List<String> strings(String field) {
    List<String> out = new ArrayList<>();
    node(field)
        .ifPresent(
            n -> {
              if (!n.isArray()) {
                throw SqsError.invalidParameter(field + " must be a list of strings");
              }
              n.forEach(
                  e -> {
                    if (!e.isTextual()) {
                      throw SqsError.invalidParameter(field + " must be a list of strings");
                    }
                    out.add(e.asText());
                  });
            });
    return out;
  }

  /** A map of string to string, such as queue attributes; empty when absent. */
  Map<String, String> stringMap(String field) {
    Map<String, String> out = new LinkedHashMap<>();
    for (var e : objects(field).entrySet()) {
      JsonNode v = e.getValue().root;
      if (!v.isTextual()) {
        throw SqsError.invalidParameter(field + "." + e.getKey() + " must be a string");
      }
      out.put(e.getKey(), v.asText());
    }
    return out;
  }

  /** A map of name to structure, such as message attributes; empty when absent. */
  Map<String, SqsRequest> objects(String field) {
    Map<String, SqsRequest> out = new LinkedHashMap<>();
    node(field)
        .ifPresent(
            n -> {
              if (!n.isObject()) {
                throw SqsError.invalidParameter(field + " must be a map");
              }
              n.properties()
                  .forEach(e -> out.put(e.getKey(), new SqsRequest(e.getValue(), address)));
            });
    return out;
  }

  /** A list of structures, such as batch entries; empty when absent. */
  List<SqsRequest> list(String field) {
    List<SqsRequest> out = new ArrayList<>();
    node(field)
        .ifPresent(
            n -> {
              if (!n.isArray()) {
                throw SqsError.invalidParameter(field + " must be a list");
              }
              n.forEach(
                  e -> {
                    if (!e.isObject()) {
                      throw SqsError.invalidParameter(field + " entries must be structures");
                    }
                    out.add(new SqsRequest(e, address));
                  });
            });
    return out;
  }
}
