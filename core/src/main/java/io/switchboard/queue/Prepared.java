package io.switchboard.queue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A {@link NewMessage} checked against a queue's rules and turned into the stored form: UTF-8 body,
 * flat attribute array, resolved deduplication key, delay and expiry. Checking happens before the
 * queue's lock is taken and before anything changes, so a refused batch leaves no trace.
 */
record Prepared(
    NewMessage source,
    byte[] body,
    Object[] attributes,
    String dedupId,
    String dedupKey,
    long delayMillis,
    long ttlMillis) {

  static final int MAX_ATTRIBUTES = 64;
  private static final Pattern ATTRIBUTE_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,256}");
  private static final Pattern GROUP_OR_DEDUP_ID = Pattern.compile("[\\x21-\\x7E]{1,128}");

  /**
   * Checks one message; {@code index} is its place in a batch, or -1 for a single send. The field
   * label ({@code messages[3].body}) is built only when something is wrong.
   */
  static Prepared of(NewMessage m, int index, String queue, boolean grouped, QueueConfig config) {
    try {
      return of(m, "", queue, grouped, config);
    } catch (QueueException e) {
      String label = index < 0 ? "message" : "messages[" + index + "]";
      throw new QueueException(e.code(), label + e.getMessage(), e);
    }
  }

  private static Prepared of(
      NewMessage m, String field, String queue, boolean grouped, QueueConfig config) {
    byte[] body = m.body().getBytes(StandardCharsets.UTF_8);
    if (body.length != m.body().length() || hasQuestionMark(body)) {
      // Not plainly ASCII: UTF-8 encoding turns an unpaired surrogate into '?', so look closer.
      checkText(m.body(), field + ".body");
    }
    Object[] attributes = attributes(m.attributes(), field);
    int size = body.length + attributeBytes(attributes);
    if (size > config.maxMessageSize()) {
      throw new QueueException(
          ErrorCode.MESSAGE_TOO_LARGE,
          field
              + " is "
              + size
              + " bytes (body plus attributes); queue '"
              + queue
              + "' allows at most "
              + config.maxMessageSize());
    }
    m.groupId().ifPresent(g -> checkId(g, field + ".groupId"));
    m.deduplicationId().ifPresent(d -> checkId(d, field + ".deduplicationId"));
    if (grouped && m.groupId().isEmpty()) {
      throw QueueException.invalid(
          field + ".groupId is required on grouped queue '" + queue + "', got none");
    }
    String dedupId = dedupId(m, body, field, queue, grouped, config);
    String dedupKey =
        dedupId != null && config.dedupScope() == DedupScope.GROUP && m.groupId().isPresent()
            ? m.groupId().get() + '\u0000' + dedupId
            : dedupId;
    long delay = m.delay().orElse(config.delay()).toMillis();
    m.delay()
        .ifPresent(
            d -> QueueConfig.checkRange(field + ".delay", d, Duration.ZERO, QueueConfig.MAX_DELAY));
    long ttl = config.retention().toMillis();
    if (m.timeToLive().isPresent()) {
      QueueConfig.checkRange(
          field + ".timeToLive", m.timeToLive().get(), Duration.ofMillis(1), config.retention());
      ttl = m.timeToLive().get().toMillis();
    }
    return new Prepared(m, body, attributes, dedupId, dedupKey, delay, ttl);
  }

  private static String dedupId(
      NewMessage m, byte[] body, String field, String queue, boolean grouped, QueueConfig config) {
    String id = m.deduplicationId().orElse(null);
    if (id == null && config.contentBasedDeduplication()) {
      id = sha256Hex(body);
    }
    if (id == null) {
      if (grouped) {
        throw QueueException.invalid(
            field
                + ".deduplicationId is required on grouped queue '"
                + queue
                + "' unless contentBasedDeduplication is on, got none");
      }
      return null;
    }
    return id;
  }

  static String sha256Hex(byte[] body) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  static Object[] attributes(Map<String, AttributeValue> attributes, String field) {
    if (attributes.isEmpty()) {
      return AttributeMap.empty();
    }
    if (attributes.size() > MAX_ATTRIBUTES) {
      throw QueueException.invalid(
          field + ".attributes may hold at most 64 attributes, got " + attributes.size());
    }
    for (String name : attributes.keySet()) {
      checkAttributeName(name, field);
    }
    return AttributeMap.flatten(attributes);
  }

  static int attributeBytes(Object[] flat) {
    int size = 0;
    for (int i = 0; i < flat.length; i += 2) {
      size += ((String) flat[i]).length() + ((AttributeValue) flat[i + 1]).sizeInBytes();
    }
    return size;
  }

  private static void checkAttributeName(String name, String field) {
    if (!ATTRIBUTE_NAME.matcher(name).matches()) {
      throw QueueException.invalid(
          field
              + ".attributes: a name must be 1..256 characters of [A-Za-z0-9_.-], got '"
              + name
              + "'");
    }
    if (name.regionMatches(true, 0, "sys.", 0, 4)) {
      throw QueueException.invalid(
          field
              + ".attributes: names starting with 'sys.' are reserved for system facts, got '"
              + name
              + "'");
    }
  }

  private static void checkId(String id, String field) {
    if (!GROUP_OR_DEDUP_ID.matcher(id).matches()) {
      throw QueueException.invalid(
          field + " must be 1..128 printable ASCII characters (no spaces), got '" + id + "'");
    }
  }

  private static boolean hasQuestionMark(byte[] bytes) {
    for (byte b : bytes) {
      if (b == '?') {
        return true;
      }
    }
    return false;
  }

  /** Refuses text that UTF-8 cannot carry unchanged: unpaired surrogates. */
  private static void checkText(String text, String field) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw QueueException.invalid(
            field + " must be valid Unicode; found an unpaired surrogate at index " + i);
      }
    }
  }
}
