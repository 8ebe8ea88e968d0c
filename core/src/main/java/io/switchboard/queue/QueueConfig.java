package io.switchboard.queue;

import io.switchboard.queue.spi.QueueRules;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A queue's configuration, validated on construction: every out-of-range value is refused with a
 * message naming the field, the allowed range and the value given. Build one with {@link
 * #builder()}; {@link #defaults()} is what a queue gets when nothing is said.
 *
 * <p>Whether a queue is grouped (SQS FIFO: message groups, mandatory deduplication) follows from
 * its name ending in {@code .fifo}, not from the configuration.
 *
 * @param order tie-break between messages of equal priority
 * @param visibilityTimeout lease length for a receive that names none; 0 s..12 h
 * @param delay delay of a send that names none; 0..900 s
 * @param retention how long a message may stay in the queue; 60 s..14 days
 * @param onExpire what happens to a message whose retention or time to live runs out
 * @param maxMessageSize bytes of body plus attributes; 1 KiB..1 MiB
 * @param receiveWait long-poll wait of a receive that names none; 0..20 s
 * @param deadLetter where messages go after too many receives
 * @param maxDepth the most messages the queue holds (all states); absent means unbounded
 * @param overflow what a send does at {@code maxDepth}
 * @param contentBasedDeduplication derive a missing deduplication id from the SHA-256 of the body
 * @param dedupScope where deduplication ids must be unique (grouped queues)
 * @param historyRetention how long acknowledged and failed messages stay readable by id; 0 keeps
 *     none; at most 14 days
 * @param indexedAttributes attributes a selector can find without walking the queue; at most 16
 * @param metadata key/value pairs kept (and journaled) with the queue and never read by the engine:
 *     front ends keep their own per-queue state here, e.g. the SQS layer its tags and access
 *     policy; at most 256 entries, keys 1..256 characters, values at most 65536 characters
 * @param keyLimit the most messages of one key (message group id) in flight at once; a receive
 *     skips a key at its limit; absent means no limit; 1..120000 ({@code docs/design.md}, "Limits
 *     per key")
 */
public record QueueConfig(
    Order order,
    Duration visibilityTimeout,
    Duration delay,
    Duration retention,
    ExpiryAction onExpire,
    int maxMessageSize,
    Duration receiveWait,
    Optional<DeadLetterPolicy> deadLetter,
    OptionalLong maxDepth,
    Overflow overflow,
    boolean contentBasedDeduplication,
    DedupScope dedupScope,
    Duration historyRetention,
    Set<String> indexedAttributes,
    Map<String, String> metadata,
    OptionalInt keyLimit) {

  public static final Duration MAX_VISIBILITY = Duration.ofHours(12);
  public static final Duration MAX_DELAY = Duration.ofSeconds(900);
  public static final Duration MIN_RETENTION = Duration.ofSeconds(60);
  public static final Duration MAX_RETENTION = Duration.ofDays(14);
  public static final Duration MAX_RECEIVE_WAIT = Duration.ofSeconds(20);
  public static final int MIN_MESSAGE_SIZE = 1024;
  public static final int MAX_MESSAGE_SIZE = 1024 * 1024;
  public static final long MAX_DEPTH_LIMIT = 1_000_000_000L;
  public static final int MAX_INDEXED_ATTRIBUTES = 16;
  public static final int MAX_METADATA_ENTRIES = 256;
  public static final int MAX_METADATA_KEY = 256;
  public static final int MAX_METADATA_VALUE = 65_536;

  /** The largest {@code keyLimit}: SQS's in-flight limit of a standard queue. */
  public static final int MAX_KEY_LIMIT = 120_000;

  private static final Pattern ATTRIBUTE_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,256}");

  private static final QueueConfig DEFAULTS = builder().build();

  public QueueConfig {
    Objects.requireNonNull(order, "order");
    Objects.requireNonNull(onExpire, "onExpire");
    Objects.requireNonNull(deadLetter, "deadLetter");
    Objects.requireNonNull(maxDepth, "maxDepth");
    Objects.requireNonNull(overflow, "overflow");
    Objects.requireNonNull(dedupScope, "dedupScope");
    Objects.requireNonNull(keyLimit, "keyLimit");
    if (keyLimit.isPresent() && (keyLimit.getAsInt() < 1 || keyLimit.getAsInt() > MAX_KEY_LIMIT)) {
      throw QueueException.invalid(
          "keyLimit.maxConcurrent must be 1..120000 messages in flight per message group, got "
              + keyLimit.getAsInt());
    }
    QueueRules.checkRange("visibilityTimeout", visibilityTimeout, Duration.ZERO, MAX_VISIBILITY);
    QueueRules.checkRange("delay", delay, Duration.ZERO, MAX_DELAY);
    QueueRules.checkRange("retention", retention, MIN_RETENTION, MAX_RETENTION);
    QueueRules.checkRange("receiveWait", receiveWait, Duration.ZERO, MAX_RECEIVE_WAIT);
    QueueRules.checkRange("historyRetention", historyRetention, Duration.ZERO, MAX_RETENTION);
    if (maxMessageSize < MIN_MESSAGE_SIZE || maxMessageSize > MAX_MESSAGE_SIZE) {
      throw QueueException.invalid(
          "maxMessageSize must be 1024..1048576 bytes, got " + maxMessageSize);
    }
    if (maxDepth.isPresent()
        && (maxDepth.getAsLong() < 1 || maxDepth.getAsLong() > MAX_DEPTH_LIMIT)) {
      throw QueueException.invalid(
          "maxDepth must be 1..1000000000 messages, got " + maxDepth.getAsLong());
    }
    indexedAttributes = Set.copyOf(Objects.requireNonNull(indexedAttributes, "indexedAttributes"));
    if (indexedAttributes.size() > MAX_INDEXED_ATTRIBUTES) {
      throw QueueException.invalid(
          "indexedAttributes may name at most 16 attributes, got " + indexedAttributes.size());
    }
    for (String name : indexedAttributes) {
      if (!ATTRIBUTE_NAME.matcher(name).matches() || name.startsWith("sys.")) {
        throw QueueException.invalid(
            "indexedAttributes: a name must be 1..256 characters of [A-Za-z0-9_.-] and not start"
                + " with 'sys.', got '"
                + name
                + "'");
      }
    }
    metadata = checkMetadata(metadata);
    if (onExpire == ExpiryAction.DEAD_LETTER && deadLetter.isEmpty()) {
      throw QueueException.invalid(
          "onExpire=deadLetter needs a deadLetter policy (target and maxReceiveCount), got none");
    }
  }

  private static Map<String, String> checkMetadata(Map<String, String> metadata) {
    Objects.requireNonNull(metadata, "metadata");
    if (metadata.size() > MAX_METADATA_ENTRIES) {
      throw QueueException.invalid(
          "metadata may hold at most " + MAX_METADATA_ENTRIES + " entries, got " + metadata.size());
    }
    for (var e : metadata.entrySet()) {
      String key = Objects.requireNonNull(e.getKey(), "metadata key");
      String value = Objects.requireNonNull(e.getValue(), "metadata value");
      if (key.isEmpty() || key.length() > MAX_METADATA_KEY) {
        throw QueueException.invalid(
            "metadata keys must be 1..256 characters, got " + key.length() + " ('" + key + "')");
      }
      if (value.length() > MAX_METADATA_VALUE) {
        throw QueueException.invalid(
            "metadata values must be at most 65536 characters, got "
                + value.length()
                + " for '"
                + key
                + "'");
      }
    }
    return Collections.unmodifiableMap(new TreeMap<>(metadata));
  }

  public static QueueConfig defaults() {
    return DEFAULTS;
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Builds a {@link QueueConfig}; every setter's range is the one documented on the record. */
  public static final class Builder {
    private Order order = Order.FIFO;
    private Duration visibilityTimeout = Duration.ofSeconds(30);
    private Duration delay = Duration.ZERO;
    private Duration retention = Duration.ofDays(4);
    private ExpiryAction onExpire = ExpiryAction.DELETE;
    private int maxMessageSize = MAX_MESSAGE_SIZE;
    private Duration receiveWait = Duration.ZERO;
    private Optional<DeadLetterPolicy> deadLetter = Optional.empty();
    private OptionalLong maxDepth = OptionalLong.empty();
    private Overflow overflow = Overflow.REJECT;
    private boolean contentBasedDeduplication;
    private DedupScope dedupScope = DedupScope.QUEUE;
    private Duration historyRetention = Duration.ZERO;
    private Set<String> indexedAttributes = Set.of();
    private Map<String, String> metadata = Map.of();
    private OptionalInt keyLimit = OptionalInt.empty();

    private Builder() {}

    private Builder(QueueConfig c) {
      order = c.order;
      visibilityTimeout = c.visibilityTimeout;
      delay = c.delay;
      retention = c.retention;
      onExpire = c.onExpire;
      maxMessageSize = c.maxMessageSize;
      receiveWait = c.receiveWait;
      deadLetter = c.deadLetter;
      maxDepth = c.maxDepth;
      overflow = c.overflow;
      contentBasedDeduplication = c.contentBasedDeduplication;
      dedupScope = c.dedupScope;
      historyRetention = c.historyRetention;
      indexedAttributes = c.indexedAttributes;
      metadata = c.metadata;
      keyLimit = c.keyLimit;
    }

    public Builder order(Order order) {
      this.order = order;
      return this;
    }

    public Builder visibilityTimeout(Duration visibilityTimeout) {
      this.visibilityTimeout = visibilityTimeout;
      return this;
    }

    public Builder delay(Duration delay) {
      this.delay = delay;
      return this;
    }

    public Builder retention(Duration retention) {
      this.retention = retention;
      return this;
    }

    public Builder onExpire(ExpiryAction onExpire) {
      this.onExpire = onExpire;
      return this;
    }

    public Builder maxMessageSize(int maxMessageSize) {
      this.maxMessageSize = maxMessageSize;
      return this;
    }

    public Builder receiveWait(Duration receiveWait) {
      this.receiveWait = receiveWait;
      return this;
    }

    public Builder deadLetter(DeadLetterPolicy deadLetter) {
      this.deadLetter = Optional.of(deadLetter);
      return this;
    }

    public Builder deadLetter(String target, int maxReceiveCount) {
      return deadLetter(DeadLetterPolicy.of(target, maxReceiveCount));
    }

    public Builder noDeadLetter() {
      this.deadLetter = Optional.empty();
      return this;
    }

    public Builder maxDepth(long maxDepth, Overflow overflow) {
      this.maxDepth = OptionalLong.of(maxDepth);
      this.overflow = overflow;
      return this;
    }

    public Builder unbounded() {
      this.maxDepth = OptionalLong.empty();
      this.overflow = Overflow.REJECT;
      return this;
    }

    public Builder contentBasedDeduplication(boolean contentBasedDeduplication) {
      this.contentBasedDeduplication = contentBasedDeduplication;
      return this;
    }

    public Builder dedupScope(DedupScope dedupScope) {
      this.dedupScope = dedupScope;
      return this;
    }

    public Builder historyRetention(Duration historyRetention) {
      this.historyRetention = historyRetention;
      return this;
    }

    /** Attributes to index for filtered receive and browse (see {@code docs/selectors.md}). */
    public Builder indexedAttributes(Set<String> indexedAttributes) {
      this.indexedAttributes = indexedAttributes;
      return this;
    }

    public Builder indexedAttributes(String... indexedAttributes) {
      return indexedAttributes(Set.of(indexedAttributes));
    }

    /** Replaces the queue's metadata (see the record's {@code metadata}). */
    public Builder metadata(Map<String, String> metadata) {
      this.metadata = metadata;
      return this;
    }

    /**
     * At most {@code maxConcurrent} messages of one message group in flight at once (see the
     * record's {@code keyLimit}).
     */
    public Builder keyLimit(int maxConcurrent) {
      this.keyLimit = OptionalInt.of(maxConcurrent);
      return this;
    }

    /** No limit per key. */
    public Builder noKeyLimit() {
      this.keyLimit = OptionalInt.empty();
      return this;
    }

    public QueueConfig build() {
      return new QueueConfig(
          order,
          visibilityTimeout,
          delay,
          retention,
          onExpire,
          maxMessageSize,
          receiveWait,
          deadLetter,
          maxDepth,
          overflow,
          contentBasedDeduplication,
          dedupScope,
          historyRetention,
          indexedAttributes,
          metadata,
          keyLimit);
    }
  }
}
