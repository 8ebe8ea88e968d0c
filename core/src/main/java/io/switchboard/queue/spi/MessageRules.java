package io.switchboard.queue.spi;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.DedupScope;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The rules every engine applies to messages: what a send may carry (checked before anything
 * changes, so a refused batch leaves no trace), updates, and the errors of leases, each with the
 * one error code and text all engines answer with.
 */
public final class MessageRules {

  /** The most attributes a message may carry. */
  public static final int MAX_ATTRIBUTES = 64;

  /** How long a deduplication id is remembered, the same in every engine. */
  public static final long DEDUP_WINDOW_MILLIS = 5 * 60 * 1000L;

  /** Letters of any script (as Amazon SQS allows in attribute names), digits, {@code _ . -}. */
  private static final Pattern ATTRIBUTE_NAME = Pattern.compile("[\\p{L}\\p{Nd}_.-]{1,256}");

  private static final Pattern GROUP_OR_DEDUP_ID = Pattern.compile("[\\x21-\\x7E]{1,128}");

  /**
   * Checks one message; {@code index} is its place in a batch, or -1 for a single send. The field
   * label ({@code messages[3].body}) is built only when something is wrong.
   */
  public static CheckedMessage check(
      NewMessage m, int index, String queue, boolean grouped, QueueConfig config) {
    try {
      return check(m, "", queue, grouped, config);
    } catch (QueueException e) {
      String label = index < 0 ? "message" : "messages[" + index + "]";
      throw new QueueException(e.code(), label + e.getMessage(), e);
    }
  }

  private static CheckedMessage check(
      NewMessage m, String field, String queue, boolean grouped, QueueConfig config) {
    byte[] body = m.body().getBytes(StandardCharsets.UTF_8);
    if (body.length != m.body().length() || hasQuestionMark(body)) {
      // Not plainly ASCII: UTF-8 encoding turns an unpaired surrogate into '?', so look closer.
      checkText(m.body(), field + ".body");
    }
    int size = body.length + attributeBytes(m.attributes(), field);
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
    m.delay()
        .ifPresent(
            d -> QueueRules.checkRange(field + ".delay", d, Duration.ZERO, QueueConfig.MAX_DELAY));
    long delay = m.delay().orElse(config.delay()).toMillis(); // checked first: cannot overflow
    long ttl = config.retention().toMillis();
    if (m.timeToLive().isPresent()) {
      QueueRules.checkRange(
          field + ".timeToLive", m.timeToLive().get(), Duration.ofMillis(1), config.retention());
      ttl = m.timeToLive().get().toMillis();
    }
    return new CheckedMessage(m, body, dedupId, dedupKey, delay, ttl);
  }

  private static @Nullable String dedupId(
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

  private static String sha256Hex(byte[] body) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /**
   * Checks attributes (at most 64, names of letters, digits and {@code _ . -}, none starting with
   * {@code sys.}) and returns their size in bytes as counted toward {@code maxMessageSize}; {@code
   * field} labels them in an error ({@code "update"} for an update).
   */
  public static int attributeBytes(Map<String, AttributeValue> attributes, String field) {
    if (attributes.isEmpty()) {
      return 0;
    }
    if (attributes.size() > MAX_ATTRIBUTES) {
      throw QueueException.invalid(
          field + ".attributes may hold at most 64 attributes, got " + attributes.size());
    }
    for (String name : attributes.keySet()) {
      checkAttributeName(name, field);
    }
    int size = 0;
    for (Map.Entry<String, AttributeValue> e : attributes.entrySet()) {
      size += e.getKey().length() + e.getValue().sizeInBytes();
    }
    return size;
  }

  private static void checkAttributeName(String name, String field) {
    if (!ATTRIBUTE_NAME.matcher(name).matches()) {
      throw QueueException.invalid(
          field
              + ".attributes: a name must be 1..256 letters, digits, '_', '.' or '-', got '"
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
    // Eight bytes at a time (a byte equal to '?' is a zero byte of x; the classic zero-byte test):
    // the byte loop was a visible share of a send of short bodies (docs/bench-history/engine.md).
    int i = 0;
    for (; i + 8 <= bytes.length; i += 8) {
      long x = (long) LONGS.get(bytes, i) ^ 0x3F3F3F3F3F3F3F3FL;
      if (((x - 0x0101010101010101L) & ~x & 0x8080808080808080L) != 0) {
        return true;
      }
    }
    for (; i < bytes.length; i++) {
      if (bytes[i] == '?') {
        return true;
      }
    }
    return false;
  }

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

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

  // ---- updates and leases ----------------------------------------------------------------

  /** Refuses (MESSAGE_TOO_LARGE) an update that makes a message larger than the queue allows. */
  public static void checkUpdateSize(int size, String queue, QueueConfig config) {
    if (size > config.maxMessageSize()) {
      throw new QueueException(
          ErrorCode.MESSAGE_TOO_LARGE,
          "update makes the message "
              + size
              + " bytes (body plus attributes); queue '"
              + queue
              + "' allows at most "
              + config.maxMessageSize());
    }
  }

  /**
   * Checks a release: the delay's range, and (CONFLICT) no release to the back on a grouped queue.
   */
  public static void checkRelease(String queue, boolean grouped, Duration delay, boolean toBack) {
    QueueRules.checkRange("delay", delay, Duration.ZERO, QueueConfig.MAX_DELAY);
    if (toBack && grouped) {
      throw new QueueException(
          ErrorCode.CONFLICT,
          "release to the back is not allowed on grouped queue '"
              + queue
              + "': order within a group is fixed");
    }
  }

  /** Refuses (CONFLICT) a touch on a grouped queue. */
  public static void checkTouch(String queue, boolean grouped) {
    if (grouped) {
      throw new QueueException(
          ErrorCode.CONFLICT,
          "touch is not allowed on grouped queue '" + queue + "': order within a group is fixed");
    }
  }

  /** Checks the new visibility timeout of an extend, before the lease is looked at. */
  public static void checkExtend(Duration visibilityTimeout) {
    QueueRules.checkRange(
        "visibilityTimeout", visibilityTimeout, Duration.ZERO, QueueConfig.MAX_VISIBILITY);
  }

  /**
   * When a lease that began at {@code leasedAt} ends once extended by {@code visibilityTimeout}
   * (checked by {@link #checkExtend}); refuses a lease ending more than 12 hours after its receive.
   */
  public static long extendedUntil(Duration visibilityTimeout, long leasedAt, long now) {
    long until = now + visibilityTimeout.toMillis();
    long limit = leasedAt + QueueConfig.MAX_VISIBILITY.toMillis();
    if (until > limit) {
      throw QueueException.invalid(
          "visibilityTimeout would end the lease "
              + (until - leasedAt) / 1000
              + " seconds after the receive; at most 43200 seconds (12 h) are allowed, got "
              + visibilityTimeout.toSeconds());
    }
    return until;
  }

  /** The message a receipt names is no longer in the queue (MESSAGE_NOT_FOUND). */
  public static QueueException leaseGone(String queue) {
    return new QueueException(
        ErrorCode.MESSAGE_NOT_FOUND,
        "the message of this receipt is no longer in queue '" + queue + "'");
  }

  /** The receipt names an earlier lease of message {@code id} (RECEIPT_STALE). */
  public static QueueException staleReceipt(String id) {
    return new QueueException(
        ErrorCode.RECEIPT_STALE,
        "receipt is stale: message '"
            + id
            + "' was received again, or dead-lettered and brought back, since this receipt was"
            + " issued");
  }

  /** The lease of message {@code id} ran out; it is now {@code state} (MESSAGE_NOT_IN_FLIGHT). */
  public static QueueException notInFlight(String id, MessageState state) {
    return new QueueException(
        ErrorCode.MESSAGE_NOT_IN_FLIGHT,
        "message '" + id + "' is not in flight (its lease ran out); it is " + state.wireName());
  }
}
