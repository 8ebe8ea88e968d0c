package io.switchboard.queue;

import java.util.Map;

/**
 * The core's validation rules and receipt format, opened to engines that live outside the core (the
 * PostgreSQL engine), so every engine refuses the same input with the same message. It reaches the
 * package-private helpers the in-memory engine uses ({@code Prepared}, {@code Receipts}, {@code
 * QueueNames}) and adds no behaviour of its own. It lives in the core, not in the engine's module,
 * so no package is split across jars (a split package is refused on the module path and breaks
 * sealed-package checks).
 */
public final class EngineSupport {

  private EngineSupport() {}

  /**
   * A message checked against a queue's rules, in the form an engine stores.
   *
   * @param body UTF-8 body
   * @param dedupId the deduplication id (explicit or content-based), or null
   * @param dedupKey the key the dedup window is searched by (scoped to the group when asked)
   */
  public record Checked(
      NewMessage source,
      byte[] body,
      Map<String, AttributeValue> attributes,
      String dedupId,
      String dedupKey,
      long delayMillis,
      long ttlMillis) {}

  /** Checks one message of a send; {@code index} is its place in a batch, -1 for a single send. */
  public static Checked check(
      NewMessage message, int index, String queue, boolean grouped, QueueConfig config) {
    Prepared p = Prepared.of(message, index, queue, grouped, config);
    return new Checked(
        message,
        p.body(),
        AttributeMap.of(p.attributes()),
        p.dedupId(),
        p.dedupKey(),
        p.delayMillis(),
        p.ttlMillis());
  }

  /** Checks the attributes of an update and returns their size in bytes. */
  public static int checkedAttributeBytes(Map<String, AttributeValue> attributes) {
    return Prepared.attributeBytes(Prepared.attributes(attributes, "update"));
  }

  /** Checks a queue name (1..80 of {@code [A-Za-z0-9_-]}, optional {@code .fifo}). */
  public static void checkQueueName(String name, String field) {
    QueueNames.check(name, field);
  }

  public static boolean isGrouped(String name) {
    return QueueNames.isGrouped(name);
  }

  /** Checks a duration against a range with the core's wording. */
  public static void checkRange(
      String field, java.time.Duration value, java.time.Duration min, java.time.Duration max) {
    QueueConfig.checkRange(field, value, min, max);
  }

  public static String encodeReceipt(long key, long serial, int leaseEpoch) {
    return Receipts.encode(key, serial, leaseEpoch);
  }

  /** The (serial, lease epoch) a receipt carries; refuses one not issued under {@code key}. */
  public static long[] decodeReceipt(long key, String receipt, String queue) {
    Receipts.Handle h = Receipts.decode(key, receipt, queue);
    return new long[] {h.serial(), h.leaseEpoch()};
  }

  public static QueueException invalid(String message) {
    return QueueException.invalid(message);
  }

  public static QueueException queueNotFound(String name) {
    return QueueException.queueNotFound(name);
  }

  public static QueueException messageNotFound(String queue, String id) {
    return QueueException.messageNotFound(queue, id);
  }

  /** Deduplication window length, the same for every engine. */
  public static long dedupWindowMillis() {
    return DedupWindow.WINDOW_MILLIS;
  }
}
