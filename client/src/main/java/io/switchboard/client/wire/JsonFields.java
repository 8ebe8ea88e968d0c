package io.switchboard.client.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Reads the fields of one JSON object with exact types: an integer field refuses {@code "5"} and
 * {@code 5.5}, a string field refuses {@code 5}. A strict reader also refuses, in {@link
 * #finish()}, every field that was never asked for, which is how the server answers {@code
 * UNKNOWN_FIELD}; the client reads leniently so that a newer server may add fields.
 *
 * <p>JSON {@code null} reads as absent. Public for the server; not part of the client API.
 */
public final class JsonFields {

  private final ObjectNode node;
  private final String where;
  private final boolean strict;
  private final Set<String> known = new LinkedHashSet<>();

  private JsonFields(ObjectNode node, String where, boolean strict) {
    this.node = node;
    this.where = where;
    this.strict = strict;
  }

  /** A strict reader of {@code node}, which must be an object; {@code where} names it in errors. */
  public static JsonFields strict(JsonNode node, String where) {
    return new JsonFields(asObject(node, where), where, true);
  }

  public static JsonFields lenient(JsonNode node) {
    return new JsonFields(asObject(node, "response"), "response", false);
  }

  private static ObjectNode asObject(JsonNode node, String where) {
    if (node instanceof ObjectNode object) {
      return object;
    }
    throw new WireFormatException(
        WireCode.INVALID_ARGUMENT, where + " must be a JSON object, got " + typeName(node));
  }

  /** The object read; for binding it to a record ({@link Json#strict}). */
  public JsonNode node() {
    return node;
  }

  /** How errors name the object read. */
  String where() {
    return where;
  }

  /** True if the field is present, even as {@code null}. */
  public boolean has(String name) {
    known.add(name);
    return node.has(name);
  }

  /** True if the field is present and {@code null} (used by updates to clear a setting). */
  public boolean isNull(String name) {
    known.add(name);
    return node.has(name) && node.get(name).isNull();
  }

  public Optional<String> string(String name) {
    return value(name, JsonNodeType.STRING, "a string").map(JsonNode::textValue);
  }

  public String requiredString(String name) {
    return string(name).orElseThrow(() -> missing(name));
  }

  public OptionalInt int32(String name) {
    Optional<JsonNode> v = integral(name);
    if (v.isEmpty()) {
      return OptionalInt.empty();
    }
    if (!v.get().canConvertToInt()) {
      throw invalid(name, "an integer in -2147483648..2147483647", v.get());
    }
    return OptionalInt.of(v.get().intValue());
  }

  public int requiredInt32(String name) {
    OptionalInt v = int32(name);
    if (v.isEmpty()) {
      throw missing(name);
    }
    return v.getAsInt();
  }

  public OptionalLong int64(String name) {
    Optional<JsonNode> v = integral(name);
    if (v.isEmpty()) {
      return OptionalLong.empty();
    }
    if (!v.get().canConvertToLong()) {
      throw invalid(name, "a 64-bit integer", v.get());
    }
    return OptionalLong.of(v.get().longValue());
  }

  public Optional<Boolean> bool(String name) {
    return value(name, JsonNodeType.BOOLEAN, "true or false").map(JsonNode::booleanValue);
  }

  /** An integer number of seconds, {@code >= 0}; the range beyond that is the engine's to check. */
  public Optional<Duration> seconds(String name) {
    OptionalLong v = int64(name);
    return Json.seconds(name, v.isPresent() ? v.getAsLong() : null);
  }

  /**
   * A whole number of seconds of {@code 0..max}; the error names the field as it is on the wire.
   */
  public Optional<Duration> seconds(String name, Duration max) {
    OptionalLong v = int64(name);
    return Json.seconds(name, v.isPresent() ? v.getAsLong() : null, max);
  }

  /** An integer number of milliseconds, {@code >= 0}. */
  public Optional<Duration> millis(String name) {
    OptionalLong v = int64(name);
    if (v.isEmpty()) {
      return Optional.empty();
    }
    if (v.getAsLong() < 0) {
      throw new WireFormatException(
          WireCode.INVALID_ARGUMENT,
          name + " must be a whole number of milliseconds >= 0, got " + v.getAsLong());
    }
    return Optional.of(Duration.ofMillis(v.getAsLong()));
  }

  public Optional<JsonFields> object(String name) {
    return value(name, JsonNodeType.OBJECT, "an object")
        .map(n -> new JsonFields((ObjectNode) n, name, strict));
  }

  /** The raw node of a field whose shape the caller checks itself. */
  public Optional<JsonNode> raw(String name) {
    known.add(name);
    JsonNode v = node.get(name);
    return v == null || v.isNull() ? Optional.empty() : Optional.of(v);
  }

  public Optional<List<JsonNode>> array(String name) {
    return value(name, JsonNodeType.ARRAY, "an array")
        .map(
            n -> {
              List<JsonNode> items = new ArrayList<>(n.size());
              n.forEach(items::add);
              return items;
            });
  }

  public Optional<List<String>> strings(String name) {
    return array(name)
        .map(
            items -> {
              List<String> out = new ArrayList<>(items.size());
              for (JsonNode item : items) {
                if (!item.isTextual()) {
                  throw invalid(name, "an array of strings", item);
                }
                out.add(item.textValue());
              }
              return out;
            });
  }

  /** Refuses, in a strict reader, every field that no accessor asked for. */
  public void finish() {
    if (!strict) {
      return;
    }
    Set<String> unknown = new TreeSet<>();
    node.fieldNames().forEachRemaining(unknown::add);
    unknown.removeAll(known);
    if (!unknown.isEmpty()) {
      throw unknown(unknown, where, known);
    }
  }

  /** The {@code UNKNOWN_FIELD} error: the fields refused, where, and the fields known there. */
  static WireFormatException unknown(
      Collection<String> unknown, String where, Collection<String> known) {
    return new WireFormatException(
        WireCode.UNKNOWN_FIELD,
        (unknown.size() == 1 ? "unknown field " : "unknown fields ")
            + String.join(", ", unknown.stream().map(n -> "'" + n + "'").toList())
            + " in "
            + where
            + "; known fields: "
            + String.join(", ", known));
  }

  private Optional<JsonNode> integral(String name) {
    known.add(name);
    JsonNode v = node.get(name);
    if (v == null || v.isNull()) {
      return Optional.empty();
    }
    boolean whole =
        v.isIntegralNumber()
            || (v.isNumber()
                && v.decimalValue().stripTrailingZeros().scale() <= 0
                && !v.isFloatingPointNumber());
    if (!whole) {
      throw invalid(name, "an integer", v);
    }
    return Optional.of(v);
  }

  private Optional<JsonNode> value(String name, JsonNodeType type, String expected) {
    known.add(name);
    JsonNode v = node.get(name);
    if (v == null || v.isNull()) {
      return Optional.empty();
    }
    if (v.getNodeType() != type) {
      throw invalid(name, expected, v);
    }
    return Optional.of(v);
  }

  private WireFormatException missing(String name) {
    return new WireFormatException(
        WireCode.INVALID_ARGUMENT, "field '" + name + "' is required in " + where);
  }

  static WireFormatException invalid(String name, String expected, JsonNode got) {
    String shown = got.isValueNode() && !got.isNull() ? " " + abbreviate(got.toString()) : "";
    return new WireFormatException(
        WireCode.INVALID_ARGUMENT,
        "field '" + name + "' must be " + expected + ", got " + typeName(got) + shown);
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 37) + "...";
  }

  /** How an error message names a JSON value's type: "a string", "an array", "null". */
  public static String typeName(@Nullable JsonNode node) {
    if (node == null || node.isMissingNode()) {
      return "nothing";
    }
    return switch (node.getNodeType()) {
      case STRING -> "a string";
      case NUMBER -> "a number";
      case BOOLEAN -> "a boolean";
      case ARRAY -> "an array";
      case OBJECT -> "an object";
      case NULL -> "null";
      default -> node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
    };
  }
}
