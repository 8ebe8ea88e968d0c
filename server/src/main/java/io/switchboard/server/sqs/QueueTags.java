package io.switchboard.server.sqs;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.queue.QueueEngine;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * TagQueue, UntagQueue, ListQueueTags and the tags of CreateQueue. Tags live in the queue's
 * metadata as {@code sqs.tag.<key>}, so they are journaled with the queue and survive a restart of
 * a durable server. SQS's limits: at most 50 tags a queue, keys of 1..128 and values of 0..256
 * characters (letters, digits, spaces and {@code _ . : / = + - @}), keys case-sensitive, the {@code
 * aws:} prefix reserved.
 */
final class QueueTags {

  static final String PREFIX = "sqs.tag.";
  static final int MAX_TAGS = 50;
  private static final int MAX_KEY = 128;
  private static final int MAX_VALUE = 256;
  private static final Pattern CHARACTERS = Pattern.compile("[\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*");

  private QueueTags() {}

  static ObjectNode tag(QueueEngine engine, SqsRequest r) {
    String queue = SqsApi.queue(r);
    Map<String, String> tags = check(r.stringMap("Tags"));
    if (tags.isEmpty()) {
      // SQS: no tags at all is a missing parameter, as is an empty map
      throw SqsError.missingParameter("Tags");
    }
    r.state().updateMetadata(queue, m -> put(queue, m, tags));
    return JsonNodeFactory.instance.objectNode();
  }

  static ObjectNode untag(QueueEngine engine, SqsRequest r) {
    String queue = SqsApi.queue(r);
    if (!r.has("TagKeys")) {
      throw SqsError.missingParameter("TagKeys");
    }
    List<String> keys = r.strings("TagKeys");
    if (keys.isEmpty()) {
      throw SqsErrorText.TAG_KEYS_EMPTY.error();
    }
    r.state()
        .updateMetadata(
            queue,
            m -> {
              keys.forEach(k -> m.remove(PREFIX + k));
              return m;
            });
    return JsonNodeFactory.instance.objectNode();
  }

  static ObjectNode list(QueueEngine engine, SqsRequest r) {
    String queue = SqsApi.queue(r);
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    Map<String, String> tags = of(engine.queue(queue).config().metadata());
    if (!tags.isEmpty()) {
      ObjectNode t = o.putObject("Tags");
      tags.forEach(t::put);
    }
    return o;
  }

  /** The tags in a queue's metadata, by key. */
  static Map<String, String> of(Map<String, String> metadata) {
    Map<String, String> tags = new TreeMap<>();
    metadata.forEach(
        (k, v) -> {
          if (k.startsWith(PREFIX)) {
            tags.put(k.substring(PREFIX.length()), v);
          }
        });
    return tags;
  }

  /** Adds or replaces {@code tags} in {@code metadata}, refusing more than 50 in all. */
  static Map<String, String> put(
      String queue, Map<String, String> metadata, Map<String, String> tags) {
    tags.forEach((k, v) -> metadata.put(PREFIX + k, v));
    int count = of(metadata).size();
    if (count > MAX_TAGS) {
      throw SqsErrorText.TOO_MANY_TAGS.error(queue);
    }
    return metadata;
  }

  /** Checks tag keys and values against SQS's rules. */
  static Map<String, String> check(Map<String, String> tags) {
    for (var e : tags.entrySet()) {
      String key = e.getKey();
      String value = e.getValue();
      if (key.isEmpty() || key.length() > MAX_KEY || !CHARACTERS.matcher(key).matches()) {
        throw SqsError.invalidParameter(
            "Tag key must be 1.."
                + MAX_KEY
                + " characters of letters, digits, spaces and _ . : / = + - @, got '"
                + key
                + "'.");
      }
      if (key.regionMatches(true, 0, "aws:", 0, 4)) {
        throw SqsError.invalidParameter(
            "Tag keys starting with 'aws:' are reserved for AWS use, got '" + key + "'.");
      }
      if (value.length() > MAX_VALUE || !CHARACTERS.matcher(value).matches()) {
        throw SqsError.invalidParameter(
            "Tag value for key '"
                + key
                + "' must be 0.."
                + MAX_VALUE
                + " characters of letters, digits, spaces and _ . : / = + - @, got '"
                + value
                + "'.");
      }
    }
    return tags;
  }
}
