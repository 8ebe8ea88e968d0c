package io.switchboard.server.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.server.security.sigv4.FormParameters;
import io.switchboard.server.security.sigv4.SigV4Error;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Translates a query-protocol request (flattened form parameters such as {@code
 * Attribute.1.Name=VisibilityTimeout}) into the request tree the JSON protocol's actions read
 * ({@code {"Attributes": {"VisibilityTimeout": "..."}}}), so both protocols share one
 * implementation of every action.
 *
 * <p>The SQS service model (API version 2012-11-05) marks every list and map as {@code flattened}:
 * a list member {@code AttributeNames} travels as {@code AttributeName.1}, {@code AttributeName.2},
 * ... (its {@code locationName}), a map member {@code Attributes} as {@code Attribute.N.Name} /
 * {@code Attribute.N.Value}. The tables below are those location names; they are the same in every
 * action, so one translation serves all 23. Numbers arrive as text and become JSON numbers for the
 * members the model types as integers; text that is not a number stays text, so the action refuses
 * it with the same {@code InvalidParameterValue} as in JSON.
 */
final class QueryForm {

  /** The query protocol's own parameters, and those of presigned URLs: not action members. */
  private static final Set<String> PROTOCOL_PARAMETERS =
      Set.of(
          "Action",
          "Version",
          "X-Amz-Algorithm",
          "X-Amz-Credential",
          "X-Amz-Date",
          "X-Amz-Expires",
          "X-Amz-SignedHeaders",
          "X-Amz-Signature",
          "X-Amz-Security-Token",
          "AWSAccessKeyId",
          "Signature",
          "SignatureMethod",
          "SignatureVersion",
          "Timestamp",
          "Expires");

  /** Flattened lists: location name → member name. */
  private static final Map<String, String> LISTS =
      Map.ofEntries(
          Map.entry("AttributeName", "AttributeNames"),
          Map.entry("MessageAttributeName", "MessageAttributeNames"),
          Map.entry("MessageSystemAttributeName", "MessageSystemAttributeNames"),
          Map.entry("TagKey", "TagKeys"),
          Map.entry("AWSAccountId", "AWSAccountIds"),
          Map.entry("ActionName", "Actions"),
          Map.entry("StringListValue", "StringListValues"),
          Map.entry("BinaryListValue", "BinaryListValues"),
          Map.entry("SendMessageBatchRequestEntry", "Entries"),
          Map.entry("DeleteMessageBatchRequestEntry", "Entries"),
          Map.entry("ChangeMessageVisibilityBatchRequestEntry", "Entries"),
          // the member names themselves, which some clients use for the same lists
          Map.entry("AttributeNames", "AttributeNames"),
          Map.entry("MessageAttributeNames", "MessageAttributeNames"),
          Map.entry("MessageSystemAttributeNames", "MessageSystemAttributeNames"),
          Map.entry("TagKeys", "TagKeys"),
          Map.entry("AWSAccountIds", "AWSAccountIds"),
          Map.entry("Actions", "Actions"),
          Map.entry("Entries", "Entries"));

  /** A flattened map: its member name and the location names of an entry's key and value. */
  private record MapMember(String member, String key, String value) {}

  private static final Map<String, MapMember> MAPS =
      Map.of(
          "Attribute", new MapMember("Attributes", "Name", "Value"),
          "MessageAttribute", new MapMember("MessageAttributes", "Name", "Value"),
          "MessageSystemAttribute", new MapMember("MessageSystemAttributes", "Name", "Value"),
          "Tag", new MapMember("Tags", "Key", "Value"),
          // TagQueue's map has no location name: SDKs send Tags.N.Key (CreateQueue's, Tag.N.Key)
          "Tags", new MapMember("Tags", "Key", "Value"));

  /** Members the model types as integers (or longs). */
  private static final Set<String> INTEGERS =
      Set.of(
          "DelaySeconds",
          "MaxResults",
          "MaxNumberOfMessages",
          "VisibilityTimeout",
          "WaitTimeSeconds",
          "MaxNumberOfMessagesPerSecond");

  private QueryForm() {}

  /**
   * Form parameters, in the order they came, each name with its first value ({@link
   * FormParameters}, which SigV4 reads the query with too).
   *
   * @throws SqsError {@code MalformedQueryString} for an escape that does not decode
   */
  static Map<String, String> parse(String form) {
    try {
      return FormParameters.parse(form);
    } catch (SigV4Error e) {
      throw SqsError.of(e);
    }
  }

  /**
   * The request tree of {@code action}'s members.
   *
   * @throws SqsError {@code InvalidParameterValue} for a list or map entry whose index is not a
   *     positive number, or a map entry without its key
   */
  static ObjectNode tree(String action, Map<String, String> parameters) {
    Node root = new Node();
    for (var p : parameters.entrySet()) {
      if (!PROTOCOL_PARAMETERS.contains(p.getKey())) {
        root.put(p.getKey().split("\\.", -1), 0, p.getValue());
      }
    }
    ObjectNode tree = structure(root, "");
    if (action.equals("CreateQueue") && tree.has("Tags")) {
      // CreateQueue's tag map is the one member the model spells in lower case ("tags").
      tree.set("tags", tree.remove("Tags"));
    }
    return tree;
  }

  /** One segment of dotted parameter names: a value, children, or both (then the value wins). */
  private static final class Node {
    @Nullable String value;
    final Map<String, Node> children = new LinkedHashMap<>();

    void put(String[] path, int at, String v) {
      if (at == path.length) {
        value = v;
        return;
      }
      children.computeIfAbsent(path[at], k -> new Node()).put(path, at + 1, v);
    }
  }

  private static ObjectNode structure(Node node, String prefix) {
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    for (var e : node.children.entrySet()) {
      String name = e.getKey();
      Node child = e.getValue();
      String path = prefix + name;
      if (LISTS.containsKey(name) && child.children.isEmpty() && "".equals(child.value)) {
        // an empty list: SDKs of the query protocol send the member name with no value
        out.putArray(LISTS.get(name));
      } else if (LISTS.containsKey(name) && child.value == null) {
        ArrayNode list = out.putArray(LISTS.get(name));
        for (Node item : indexed(child, path).values()) {
          list.add(member(item, path + ".N."));
        }
      } else if (MAPS.containsKey(name) && child.value == null) {
        MapMember m = MAPS.get(name);
        ObjectNode map = out.putObject(m.member());
        for (var item : indexed(child, path).entrySet()) {
          Node key = item.getValue().children.get(m.key());
          if (key == null || key.value == null) {
            throw SqsError.invalidParameter(
                path + "." + item.getKey() + "." + m.key() + " is missing");
          }
          Node value = item.getValue().children.getOrDefault(m.value(), new Node());
          map.set(key.value, member(value, path + "." + item.getKey() + "." + m.value() + "."));
        }
      } else if (child.value != null) {
        out.set(name, scalar(name, child.value));
      } else {
        out.set(name, structure(child, path + "."));
      }
    }
    return out;
  }

  private static JsonNode member(Node node, String path) {
    return node.value != null
        ? JsonNodeFactory.instance.textNode(node.value)
        : structure(node, path);
  }

  private static JsonNode scalar(String name, String text) {
    if (INTEGERS.contains(name)) {
      try {
        return JsonNodeFactory.instance.numberNode(Integer.parseInt(text.trim()));
      } catch (NumberFormatException e) {
        // left as text: the action refuses it, naming the member and the value
      }
    }
    return JsonNodeFactory.instance.textNode(text);
  }

  /** A flattened list's entries by index, in index order (SDKs number them from 1). */
  private static Map<Integer, Node> indexed(Node list, String path) {
    Map<Integer, Node> out = new TreeMap<>();
    List<String> bad = new ArrayList<>();
    for (var e : list.children.entrySet()) {
      try {
        int index = Integer.parseInt(e.getKey());
        if (index < 1) {
          bad.add(e.getKey());
        }
        out.put(index, e.getValue());
      } catch (NumberFormatException x) {
        bad.add(e.getKey());
      }
    }
    if (!bad.isEmpty()) {
      throw SqsError.invalidParameter(
          path + ".N must be numbered from 1, got " + path + "." + bad.get(0));
    }
    return out;
  }
}
