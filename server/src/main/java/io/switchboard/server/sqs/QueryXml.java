package io.switchboard.server.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Renders an action's answer, built in the JSON protocol's shape, as the query protocol's XML:
 * {@code <XResponse xmlns="..."><XResult>...</XResult><ResponseMetadata><RequestId/>
 * </ResponseMetadata></XResponse>}, and errors as {@code <ErrorResponse>}.
 *
 * <p>As on the request side ({@link QueryForm}), every list and map of the model is flattened: a
 * list {@code Messages} is a run of {@code <Message>} elements, a map {@code Attributes} a run of
 * {@code <Attribute><Name/><Value/></Attribute>}. Text is escaped for XML, and a carriage return as
 * {@code &#xD;}, because an XML parser turns a literal one into a line feed and the body (and its
 * MD5) would change on the way.
 */
final class QueryXml {

  static final String NAMESPACE = "http://queue.amazonaws.com/doc/2012-11-05/";

  /** Flattened lists: member name → element name of one entry. */
  private static final Map<String, String> LISTS =
      Map.of(
          "QueueUrls", "QueueUrl",
          "queueUrls", "QueueUrl",
          "Messages", "Message",
          "Failed", "BatchResultErrorEntry",
          "Results", "ListMessageMoveTasksResultEntry",
          "StringListValues", "StringListValue",
          "BinaryListValues", "BinaryListValue",
          "AttributeNames", "AttributeName");

  /** Flattened maps: member name → entry element, key element, value element. */
  private static final Map<String, String[]> MAPS =
      Map.of(
          "Attributes", new String[] {"Attribute", "Name", "Value"},
          "MessageAttributes", new String[] {"MessageAttribute", "Name", "Value"},
          "Tags", new String[] {"Tag", "Key", "Value"});

  private QueryXml() {}

  /** The answer of a successful {@code action}. */
  static String response(String action, ObjectNode result, String requestId) {
    StringBuilder x = new StringBuilder(256);
    x.append("<?xml version=\"1.0\"?>");
    x.append('<').append(action).append("Response xmlns=\"").append(NAMESPACE).append("\">");
    if (!SqsOperation.has(action, SqsOperation.Flag.NO_RESULT)) {
      if (result.isEmpty()) {
        x.append('<').append(action).append("Result/>"); // as SQS: <ReceiveMessageResult/>
      } else {
        x.append('<').append(action).append("Result>");
        members(x, action, result);
        x.append("</").append(action).append("Result>");
      }
    }
    x.append("<ResponseMetadata><RequestId>").append(requestId);
    x.append("</RequestId></ResponseMetadata>");
    x.append("</").append(action).append("Response>");
    return x.toString();
  }

  /**
   * The answer of a successful {@code action} to a query-protocol request that accepts JSON: the
   * XML answer's tree, {@code {"<X>Response": {"<X>Result": {...}, "ResponseMetadata":
   * {"RequestId": "..."}}}}, with the result's members as the JSON protocol names them.
   */
  static byte[] jsonResponse(String action, ObjectNode result, String requestId) {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    ObjectNode response = root.putObject(action + "Response");
    if (!SqsOperation.has(action, SqsOperation.Flag.NO_RESULT)) {
      response.set(action + "Result", result);
    }
    response.putObject("ResponseMetadata").put("RequestId", requestId);
    return root.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** An error as JSON: {@code {"Error": {"Type", "Code", "Message"}, "RequestId"}}. */
  static byte[] jsonError(SqsError e, String requestId) {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    root.putObject("Error")
        .put("Type", e.senderFault() ? "Sender" : "Receiver")
        .put("Code", e.queryCode())
        .put("Message", e.queryMessage() == null ? "" : e.queryMessage());
    root.put("RequestId", requestId);
    return root.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** An error: the query protocol's (legacy) code, {@code Sender} or {@code Receiver}. */
  static String error(SqsError e, String requestId) {
    StringBuilder x = new StringBuilder(256);
    x.append("<?xml version=\"1.0\"?>");
    x.append("<ErrorResponse xmlns=\"").append(NAMESPACE).append("\"><Error>");
    x.append("<Type>").append(e.senderFault() ? "Sender" : "Receiver").append("</Type>");
    element(x, "Code", e.queryCode());
    element(x, "Message", e.queryMessage() == null ? "" : e.queryMessage());
    x.append("<Detail/></Error>");
    element(x, "RequestId", requestId);
    x.append("</ErrorResponse>");
    return x.toString();
  }

  private static void members(StringBuilder x, String action, JsonNode object) {
    for (var e : object.properties()) {
      member(x, action, e.getKey(), e.getValue());
    }
  }

  private static void member(StringBuilder x, String action, String name, JsonNode value) {
    if (value.isNull()) {
      return;
    }
    if (value.isArray()) {
      String entry = name.equals("Successful") ? action + "ResultEntry" : LISTS.get(name);
      for (JsonNode item : value) {
        member(x, action, entry == null ? name : entry, item);
      }
    } else if (value.isObject() && MAPS.containsKey(name)) {
      String[] m = MAPS.get(name);
      for (var e : value.properties()) {
        x.append('<').append(m[0]).append('>');
        element(x, m[1], e.getKey());
        member(x, action, m[2], e.getValue());
        x.append("</").append(m[0]).append('>');
      }
    } else if (value.isObject()) {
      x.append('<').append(name).append('>');
      members(x, action, value);
      x.append("</").append(name).append('>');
    } else {
      element(x, name, value.asText());
    }
  }

  private static void element(StringBuilder x, String name, String text) {
    x.append('<').append(name).append('>');
    escape(x, text);
    x.append("</").append(name).append('>');
  }

  static void escape(StringBuilder x, String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '&' -> x.append("&amp;");
        case '<' -> x.append("&lt;");
        case '>' -> x.append("&gt;");
        case '"' -> x.append("&quot;");
        case '\r' -> x.append("&#xD;");
        default -> x.append(c);
      }
    }
  }
}
