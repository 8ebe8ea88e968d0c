package io.switchboard.server.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Switchboard features reached through stock SQS calls ({@code docs/sqs.md}, "Extensions"), all
 * under the reserved name prefix {@code Switchboard.}, so a caller that does not use the prefix
 * sees SQS and nothing else:
 *
 * <ul>
 *   <li>message attribute {@code Switchboard.Priority} (Number, an int): the message's priority;
 *   <li>message attributes {@code Switchboard.List.<name>} (String, a JSON array of strings): a
 *       list attribute {@code <name>}, for selectors' {@code HAS};
 *   <li>a {@code MessageAttributeNames} entry {@code Switchboard.Selector=<selector>} on
 *       ReceiveMessage: only messages the selector accepts;
 *   <li>queue attributes {@code Switchboard.Order} ({@code FIFO} or {@code LIFO}) and {@code
 *       Switchboard.IndexedAttributes} (comma-separated names).
 * </ul>
 *
 * <p>Reserved message attributes are taken out of the stored attributes (the priority becomes the
 * message's priority, a list a native list attribute) but count in {@code MD5OfMessageAttributes}
 * of the send, which digests what the caller sent. A receive returns them only when named.
 */
final class Extensions {

  static final String PREFIX = "Switchboard.";
  static final String PRIORITY = "Switchboard.Priority";
  static final String LIST_PREFIX = "Switchboard.List.";
  static final String SELECTOR_PREFIX = "Switchboard.Selector=";
  static final String ORDER = "Switchboard.Order";
  static final String INDEXED_ATTRIBUTES = "Switchboard.IndexedAttributes";
  static final String KEY_LIMIT = "Switchboard.KeyLimit";

  private Extensions() {}

  static Order order(boolean fifo, String value) {
    Order order =
        switch (value) {
          case "FIFO" -> Order.FIFO;
          case "LIFO" -> Order.LIFO;
          default -> throw invalidAttribute(ORDER, "must be FIFO or LIFO, got '" + value + "'");
        };
    if (fifo && order == Order.LIFO) {
      throw invalidAttribute(ORDER, "a FIFO (.fifo) queue keeps FIFO order within each group");
    }
    return order;
  }

  static Set<String> indexed(String value) {
    Set<String> names = new TreeSet<>();
    for (String n : value.split(",", -1)) {
      if (!n.isBlank()) {
        names.add(n.strip());
      }
    }
    return names;
  }

  /**
   * The queue's limit per key ({@code docs/queues.md}, "Fair queues"): the most messages of one
   * message group in flight, or empty for none.
   */
  static java.util.OptionalInt keyLimit(String value) {
    if (value.isEmpty()) {
      return java.util.OptionalInt.empty();
    }
    try {
      int n = Integer.parseInt(value.strip());
      if (n >= 1 && n <= io.switchboard.queue.QueueConfig.MAX_KEY_LIMIT) {
        return java.util.OptionalInt.of(n);
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw invalidAttribute(
        KEY_LIMIT,
        "must be an integer 1..120000 (the most messages of one message group in flight) or empty"
            + " for none, got '"
            + value
            + "'");
  }

  private static SqsError invalidAttribute(String key, String reason) {
    return SqsError.sender(
        "InvalidAttributeValue", "Invalid value for the parameter " + key + ": " + reason + ".");
  }

  // ---- sends ---------------------------------------------------------------------------------

  /**
   * Moves the reserved attributes of {@code sent} into the message: the priority, and lists as
   * native list attributes. Returns the attributes to store.
   */
  static Map<String, AttributeValue> apply(
      Map<String, AttributeValue> sent, NewMessage.Builder message) {
    Map<String, AttributeValue> stored = new LinkedHashMap<>();
    for (var e : sent.entrySet()) {
      if (!e.getKey().startsWith(PREFIX)) {
        stored.put(e.getKey(), e.getValue());
      }
    }
    for (var e : sent.entrySet()) {
      String name = e.getKey();
      if (!name.startsWith(PREFIX)) {
        continue;
      }
      if (name.equals(PRIORITY)) {
        message.priority(priority(e.getValue()));
      } else if (name.startsWith(LIST_PREFIX) && name.length() > LIST_PREFIX.length()) {
        String target = name.substring(LIST_PREFIX.length());
        if (stored.containsKey(target)) {
          throw SqsError.invalidParameter(
              "Message attributes " + name + " and " + target + " name the same attribute.");
        }
        stored.put(target, list(name, e.getValue()));
      } else {
        throw SqsError.invalidParameter(
            "Message attribute names starting with 'Switchboard.' are reserved; known are "
                + PRIORITY
                + " and "
                + LIST_PREFIX
                + "<name>, got '"
                + name
                + "'.");
      }
    }
    return stored;
  }

  private static int priority(AttributeValue v) {
    if (v instanceof AttributeValue.NumberValue n) {
      try {
        return Integer.parseInt(n.value().strip());
      } catch (NumberFormatException e) {
        // answered below
      }
    }
    throw SqsError.invalidParameter(
        PRIORITY + " must be a Number attribute holding an integer, got " + describe(v) + ".");
  }

  private static AttributeValue list(String name, AttributeValue v) {
    if (v instanceof AttributeValue.StringValue s) {
      try {
        JsonNode node = SqsJson.MAPPER.readTree(s.value());
        if (node != null && node.isArray()) {
          List<String> items = new ArrayList<>();
          for (JsonNode item : node) {
            if (!item.isTextual()) {
              throw new IOException("not a string");
            }
            items.add(item.asText());
          }
          return AttributeValue.stringList(items);
        }
      } catch (IOException e) {
        // answered below
      }
    }
    throw SqsError.invalidParameter(
        name
            + " must be a String attribute holding a JSON array of strings, got "
            + describe(v)
            + ".");
  }

  private static String describe(AttributeValue v) {
    return switch (v) {
      case AttributeValue.StringValue s -> v.dataType() + " '" + s.value() + "'";
      case AttributeValue.NumberValue n -> v.dataType() + " '" + n.value() + "'";
      default -> v.dataType();
    };
  }

  // ---- receives ------------------------------------------------------------------------------

  /** The selector a receive's {@code MessageAttributeNames} carries, if any. */
  static Optional<String> selector(List<String> attributeNames) {
    Optional<String> selector = Optional.empty();
    for (String n : attributeNames) {
      if (n.startsWith(SELECTOR_PREFIX)) {
        if (selector.isPresent()) {
          throw SqsError.invalidParameter(
              "At most one " + SELECTOR_PREFIX + "<selector> entry in MessageAttributeNames.");
        }
        selector = Optional.of(n.substring(SELECTOR_PREFIX.length()));
      }
    }
    return selector;
  }

  /**
   * The reserved attributes a receive named: {@code Switchboard.Priority}, and {@code
   * Switchboard.List.<name>} or {@code Switchboard.List.*} for list attributes.
   */
  static Map<String, AttributeValue> received(Message m, List<String> attributeNames) {
    Map<String, AttributeValue> out = new LinkedHashMap<>();
    if (attributeNames.contains(PRIORITY)) {
      out.put(PRIORITY, AttributeValue.number(Integer.toString(m.priority())));
    }
    for (var e : m.attributes().entrySet()) {
      if (e.getValue() instanceof AttributeValue.StringListValue l
          && (attributeNames.contains(LIST_PREFIX + "*")
              || attributeNames.contains(LIST_PREFIX + e.getKey()))) {
        out.put(
            LIST_PREFIX + e.getKey(),
            AttributeValue.string(SqsJson.MAPPER.valueToTree(l.value()).toString()));
      }
    }
    return out;
  }
}
