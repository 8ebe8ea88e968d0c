package io.switchboard.client.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The strict binding answers bad requests with the same codes and words as the tree reader, so a
 * user sees one API whichever of the two reads a route.
 */
class JsonTest {

  public record Inner(@Json.Required String target, Integer count) {}

  public record Body(
      @Json.Required String name,
      Integer small,
      Long big,
      Boolean flag,
      List<String> names,
      Inner inner,
      List<Inner> items) {}

  private static Body strict(String json) {
    return Json.strict(
        WireFormat.parse(json.getBytes(StandardCharsets.UTF_8)), "request body", Body.class);
  }

  /** The same body bound straight from its bytes, as the server binds requests. */
  private static Body strictBytes(String json) {
    return Json.strict(json.getBytes(StandardCharsets.UTF_8), "request body", Body.class);
  }

  /** Refused alike by both ways of binding: from the tree and straight from the bytes. */
  private static void refused(WireCode code, String message, String json) {
    WireFormatException e = assertThrows(WireFormatException.class, () -> strict(json));
    assertEquals(code, e.wireCode(), e.getMessage());
    assertEquals(message, e.getMessage());
    WireFormatException b = assertThrows(WireFormatException.class, () -> strictBytes(json));
    assertEquals(code, b.wireCode(), b.getMessage());
    assertEquals(message, b.getMessage());
  }

  @Test
  void unknownFields_areRefused_allListed_withTheKnownOnesInDeclarationOrder() {
    refused(
        WireCode.UNKNOWN_FIELD,
        "unknown fields 'x', 'y' in request body; known fields: name, small, big, flag, names,"
            + " inner, items",
        "{\"name\":\"n\",\"y\":1,\"x\":2}");
    refused(
        WireCode.UNKNOWN_FIELD,
        "unknown field 'z' in inner; known fields: target, count",
        "{\"name\":\"n\",\"inner\":{\"target\":\"t\",\"z\":1}}");
    refused(
        WireCode.UNKNOWN_FIELD,
        "unknown field 'z' in items[1]; known fields: target, count",
        "{\"name\":\"n\",\"items\":[{\"target\":\"t\"},{\"target\":\"t\",\"z\":1}]}");
  }

  @Test
  void typesAreExact() {
    refused(
        WireCode.INVALID_ARGUMENT,
        "field 'small' must be an integer, got a string \"5\"",
        "{\"name\":\"n\",\"small\":\"5\"}");
    refused(
        WireCode.INVALID_ARGUMENT,
        "field 'small' must be an integer, got a number 5.0",
        "{\"name\":\"n\",\"small\":5.0}");
    refused(
        WireCode.INVALID_ARGUMENT,
        "field 'small' must be an integer in -2147483648..2147483647, got a number 5000000000",
        "{\"name\":\"n\",\"small\":5000000000}");
    refused(
        WireCode.INVALID_ARGUMENT,
        "field 'big' must be a 64-bit integer, got a number 99999999999999999999",
        "{\"name\":\"n\",\"big\":99999999999999999999}");
    refused(
        WireCode.INVALID_ARGUMENT, "field 'name' must be a string, got a number 5", "{\"name\":5}");
    refused(
        WireCode.INVALID_ARGUMENT,
        "field 'flag' must be true or false, got a number 1",
        "{\"name\":\"n\",\"flag\":1}");
    refused(
        WireCode.INVALID_ARGUMENT,
        "field 'names' must be an array, got a string \"a\"",
        "{\"name\":\"n\",\"names\":\"a\"}");
    refused(
        WireCode.INVALID_ARGUMENT,
        "field 'names' must be an array of strings, got a number 7",
        "{\"name\":\"n\",\"names\":[\"a\",7]}");
    refused(
        WireCode.INVALID_ARGUMENT,
        "field 'names' must be an array of strings, got null",
        "{\"name\":\"n\",\"names\":[\"a\",null]}");
    refused(
        WireCode.INVALID_ARGUMENT,
        "field 'inner' must be an object, got an array",
        "{\"name\":\"n\",\"inner\":[]}");
    refused(WireCode.INVALID_ARGUMENT, "request body must be a JSON object, got an array", "[1]");
  }

  @Test
  void requiredFields_absentOrNull_areNamedWithWhereTheyWereMissing() {
    refused(WireCode.INVALID_ARGUMENT, "field 'name' is required in request body", "{}");
    refused(
        WireCode.INVALID_ARGUMENT, "field 'name' is required in request body", "{\"name\":null}");
    refused(
        WireCode.INVALID_ARGUMENT,
        "field 'target' is required in items[0]",
        "{\"name\":\"n\",\"items\":[{\"count\":1}]}");
  }

  @Test
  void nullReadsAsAbsent_andAbsentIsLeftOutWhenWritten() {
    Body b = strict("{\"name\":\"n\",\"small\":null}");
    assertEquals(new Body("n", null, null, null, null, null, null), b);
    assertEquals("{\"name\":\"n\"}", Json.tree(b).toString());
  }

  /**
   * Binding straight from the bytes (one pass, the seams regression fix) reads and refuses every
   * body as the tree does: same value, or same code and words.
   */
  @Test
  void bindingFromBytes_agreesWithTheTree_onEveryKindOfBody() {
    for (String json :
        List.of(
            "{\"name\":\"n\",\"small\":5,\"big\":9007199254740993,\"flag\":true,"
                + "\"names\":[\"a\"],\"inner\":{\"target\":\"t\"},\"items\":[]}",
            " \n\t{\"name\":\"n\"} ",
            "",
            "   ",
            "null",
            "[]",
            "\"text\"",
            "5",
            "{",
            "{\"name\":\"n\"} {}",
            "{\"name\":\"n\",\"name\":\"m\"}",
            "{\"name\":\"n\",\"small\":5.0}",
            "{\"name\":\"n\",\"small\":2147483648}",
            "{\"name\":\"n\",\"names\":[null]}",
            "{\"name\":\"n\",\"items\":[{\"target\":1}]}")) {
      Object tree = outcome(() -> strict(json));
      Object bytes = outcome(() -> strictBytes(json));
      assertEquals(tree, bytes, json);
    }
  }

  private static Object outcome(java.util.function.Supplier<Body> bind) {
    try {
      return bind.get();
    } catch (WireFormatException e) {
      return e.wireCode() + ": " + e.getMessage();
    }
  }

  @Test
  void lenientReader_fromBytes_ignoresFieldsItDoesNotKnow() {
    Body b =
        Json.lenient("{\"name\":\"n\",\"newer\":1}".getBytes(StandardCharsets.UTF_8), Body.class);
    assertEquals("n", b.name());
  }

  @Test
  void lenientReader_ignoresFieldsItDoesNotKnow() {
    Body b =
        Json.lenient(
            WireFormat.parse("{\"name\":\"n\",\"newer\":1}".getBytes(StandardCharsets.UTF_8)),
            Body.class);
    assertEquals("n", b.name());
  }
}
