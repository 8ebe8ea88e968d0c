package io.switchboard.server.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.queue.DedupScope;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.QueueStats;
import io.switchboard.server.auth.KeyRing;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * SQS queue attributes, mapped to and from the engine's {@link QueueConfig} and {@link QueueStats}.
 * Values travel as strings, as SQS sends them. Ranges are SQS's, which are also the engine's.
 */
final class QueueAttributes {

  /** Attributes a caller can set, in the order GetQueueAttributes lists them. */
  static final List<String> SETTABLE =
      List.of(
          "VisibilityTimeout",
          "DelaySeconds",
          "MessageRetentionPeriod",
          "MaximumMessageSize",
          "ReceiveMessageWaitTimeSeconds",
          "RedrivePolicy",
          "FifoQueue",
          "ContentBasedDeduplication",
          "DeduplicationScope",
          "FifoThroughputLimit",
          "Policy",
          "RedriveAllowPolicy",
          "KmsMasterKeyId",
          "KmsDataKeyReusePeriodSeconds",
          "SqsManagedSseEnabled",
          Extensions.ORDER,
          Extensions.INDEXED_ATTRIBUTES,
          Extensions.KEY_LIMIT);

  private static final List<String> READ_ONLY =
      List.of(
          "ApproximateNumberOfMessages",
          "ApproximateNumberOfMessagesNotVisible",
          "ApproximateNumberOfMessagesDelayed",
          "CreatedTimestamp",
          "LastModifiedTimestamp",
          "QueueArn");

  private static final Set<String> FIFO_ONLY =
      Set.of("FifoQueue", "ContentBasedDeduplication", "DeduplicationScope", "FifoThroughputLimit");

  /** Metadata keys of the attributes the engine has no field for. */
  static final String FIFO_THROUGHPUT_LIMIT = "sqs.FifoThroughputLimit";

  static final String REDRIVE_ALLOW_POLICY = "sqs.RedriveAllowPolicy";
  static final String LAST_MODIFIED = "sqs.LastModifiedTimestamp";

  /**
   * The encryption attributes, kept and reported but not acted on: Switchboard does not encrypt
   * messages itself; encryption at rest is the disk's ({@code docs/sqs.md}).
   */
  static final String KMS_MASTER_KEY_ID = "sqs.KmsMasterKeyId";

  static final String KMS_DATA_KEY_REUSE_PERIOD = "sqs.KmsDataKeyReusePeriodSeconds";
  static final String SQS_MANAGED_SSE = "sqs.SqsManagedSseEnabled";

  /** SQS's default data key reuse period, reported once a KMS key is set. */
  private static final String DEFAULT_KMS_REUSE_PERIOD = "300";

  private static final Pattern QUEUE_NAME = Pattern.compile("[A-Za-z0-9_-]{1,80}");
  private static final Pattern FIFO_QUEUE_NAME = Pattern.compile("[A-Za-z0-9_-]{1,75}\\.fifo");

  private QueueAttributes() {}

  /**
   * SQS's queue-name rule, with its texts: 1..80 characters of {@code [A-Za-z0-9_-]}; with {@code
   * FifoQueue=true} (any case), the same ending in {@code .fifo}, 80 in all; without it a {@code
   * .fifo} name breaks the first rule, as SQS answers it.
   */
  static void checkName(String name, Map<String, String> attributes) {
    if (isTrue(attributes.get("FifoQueue"))) {
      if (!FIFO_QUEUE_NAME.matcher(name).matches()) {
        throw SqsErrorText.FIFO_QUEUE_NAME_INVALID.error();
      }
    } else if (!QUEUE_NAME.matcher(name).matches()) {
      // a .fifo name without FifoQueue=true is a standard queue's name with a period in it
      throw SqsErrorText.QUEUE_NAME_INVALID.error();
    }
  }

  /** SQS reads boolean attribute values in any case ({@code "True"}, {@code "FALSE"}). */
  private static boolean isTrue(@Nullable String value) {
    return "true".equalsIgnoreCase(value);
  }

  /**
   * Applies {@code attributes} to {@code config} of engine queue {@code name}, whose dead-letter
   * target must be in the same region ({@code address}); a {@code Policy} may name {@code keys}
   * ({@link QueuePolicy}). {@code creating} allows {@code FifoQueue}, which only CreateQueue may
   * name.
   */
  static QueueConfig apply(
      QueueEngine engine,
      QueueAddress address,
      String name,
      boolean fifo,
      Map<String, String> attributes,
      QueueConfig config,
      boolean creating,
      KeyRing keys) {
    QueueConfig.Builder b = config.toBuilder();
    Map<String, String> metadata = new HashMap<>(config.metadata());
    for (var e : attributes.entrySet()) {
      String key = e.getKey();
      String value = e.getValue();
      if ((key.equals("DeduplicationScope") || key.equals("FifoThroughputLimit")) && !fifo) {
        throw SqsErrorText.FIFO_ATTRIBUTE_ON_STANDARD.error(key);
      }
      if (FIFO_ONLY.contains(key) && !fifo) {
        // As SQS, even FifoQueue=false: a standard queue knows no FIFO attribute.
        throw SqsErrorText.UNKNOWN_ATTRIBUTE.error(key);
      }
      switch (key) {
        case "VisibilityTimeout" -> b.visibilityTimeout(seconds(key, value, 0, 43_200));
        case "DelaySeconds" -> b.delay(seconds(key, value, 0, 900));
        case "MessageRetentionPeriod" -> b.retention(seconds(key, value, 60, 1_209_600));
        case "MaximumMessageSize" -> b.maxMessageSize(integer(key, value, 1024, 1_048_576));
        case "ReceiveMessageWaitTimeSeconds" -> b.receiveWait(seconds(key, value, 0, 20));
        case "RedrivePolicy" -> redrivePolicy(engine, address, name, b, value);
        case "Policy" ->
            QueuePermissions.set(metadata, value, address.arn(name), address.accountId(), keys);
        case "RedriveAllowPolicy" -> redriveAllowPolicy(metadata, value);
        case "FifoThroughputLimit" -> {
          if (!value.equals("perQueue") && !value.equals("perMessageGroupId")) {
            throw invalidValue(key, "must be perQueue or perMessageGroupId, got '" + value + "'");
          }
          metadata.put(FIFO_THROUGHPUT_LIMIT, value);
        }
        case "KmsMasterKeyId" -> {
          putOrRemove(metadata, KMS_MASTER_KEY_ID, value);
          if (value.isEmpty()) {
            // As SQS: clearing the key drops its period and leaves the queue unencrypted, unless
            // the same request names SqsManagedSseEnabled (which then decides).
            metadata.remove(KMS_DATA_KEY_REUSE_PERIOD);
            if (!attributes.containsKey("SqsManagedSseEnabled")) {
              metadata.put(SQS_MANAGED_SSE, "false");
            }
          } else {
            metadata.put(SQS_MANAGED_SSE, "false"); // SSE-KMS replaces SSE-SQS
          }
        }
        case "KmsDataKeyReusePeriodSeconds" ->
            metadata.put(
                KMS_DATA_KEY_REUSE_PERIOD, Integer.toString(integer(key, value, 60, 86_400)));
        case "SqsManagedSseEnabled" -> {
          boolean sse = bool(key, value);
          if (sse && !attributes.getOrDefault("KmsMasterKeyId", "").isEmpty()) {
            throw SqsErrorText.SSE_BOTH.error();
          }
          if (sse && !attributes.containsKey("KmsMasterKeyId")) {
            // SSE-SQS replaces SSE-KMS
            metadata.remove(KMS_MASTER_KEY_ID);
            metadata.remove(KMS_DATA_KEY_REUSE_PERIOD);
          }
          metadata.put(SQS_MANAGED_SSE, Boolean.toString(sse));
        }
        case Extensions.ORDER -> b.order(Extensions.order(fifo, value));
        case Extensions.INDEXED_ATTRIBUTES -> b.indexedAttributes(Extensions.indexed(value));
        case Extensions.KEY_LIMIT ->
            Extensions.keyLimit(value).ifPresentOrElse(b::keyLimit, b::noKeyLimit);
        case "FifoQueue" -> {
          if (!creating) {
            // only FIFO queues get here (FIFO_ONLY): naming their type again changes nothing
            if (!isTrue(value)) {
              throw SqsErrorText.QUEUE_TYPE_CHANGE.error();
            }
          } else if (!bool(key, value)) {
            // a .fifo name is a FIFO queue's only: FifoQueue=false leaves it a bad standard name
            throw SqsErrorText.QUEUE_NAME_INVALID.error();
          }
        }
        case "ContentBasedDeduplication" -> b.contentBasedDeduplication(bool(key, value));
        case "DeduplicationScope" ->
            b.dedupScope(
                switch (value) {
                  case "queue" -> DedupScope.QUEUE;
                  case "messageGroup" -> DedupScope.GROUP;
                  default ->
                      throw invalidValue(key, "must be queue or messageGroup, got '" + value + "'");
                });
        default -> throw SqsErrorText.UNKNOWN_ATTRIBUTE.error(key);
      }
    }
    if (creating && fifo && !isTrue(attributes.get("FifoQueue"))) {
      throw SqsErrorText.QUEUE_NAME_INVALID.error();
    }
    QueueConfig built = b.metadata(metadata).build();
    if ("perMessageGroupId".equals(metadata.get(FIFO_THROUGHPUT_LIMIT))
        && built.dedupScope() != DedupScope.GROUP) {
      throw invalidValue(
          "FifoThroughputLimit",
          "perMessageGroupId is allowed only when DeduplicationScope is messageGroup");
    }
    return built;
  }

  /**
   * {@code {"redrivePermission": "allowAll" | "denyAll" | "byQueue", "sourceQueueArns": [...]}}:
   * which queues may name this one as their dead-letter queue; {@code sourceQueueArns} (1..10) only
   * with {@code byQueue}. "" removes it.
   */
  private static void redriveAllowPolicy(Map<String, String> metadata, String value) {
    if (value.isEmpty()) {
      metadata.remove(REDRIVE_ALLOW_POLICY);
      return;
    }
    JsonNode policy = json("RedriveAllowPolicy", value);
    String permission = policy.path("redrivePermission").asText("");
    JsonNode arns = policy.get("sourceQueueArns");
    switch (permission) {
      case "allowAll", "denyAll" -> {
        if (arns != null) {
          throw invalidValue(
              "RedriveAllowPolicy",
              "sourceQueueArns is allowed only with redrivePermission byQueue");
        }
      }
      case "byQueue" -> {
        if (arns == null || !arns.isArray() || arns.isEmpty() || arns.size() > 10) {
          throw invalidValue(
              "RedriveAllowPolicy", "byQueue needs sourceQueueArns, a list of 1..10 queue ARNs");
        }
        arns.forEach(a -> QueueAddress.checkArn(a.asText()));
      }
      default ->
          throw invalidValue(
              "RedriveAllowPolicy",
              "redrivePermission must be allowAll, denyAll or byQueue, got '" + permission + "'");
    }
    metadata.put(REDRIVE_ALLOW_POLICY, value);
  }

  private static JsonNode json(String key, String value) {
    try {
      JsonNode node = SqsJson.MAPPER.readTree(value);
      if (node != null && node.isObject()) {
        return node;
      }
    } catch (IOException e) {
      // answered below
    }
    throw invalidValue(key, "must be a JSON object, got '" + value + "'");
  }

  /**
   * Refuses a dead-letter target that does not exist, or whose RedriveAllowPolicy does not let
   * {@code source} in.
   */
  private static void checkAllowed(
      QueueEngine engine, QueueAddress address, String source, String target, String value) {
    String allow;
    try {
      allow = engine.queue(target).config().metadata().get(REDRIVE_ALLOW_POLICY);
    } catch (QueueException e) {
      if (e.code() != ErrorCode.QUEUE_NOT_FOUND) {
        throw e;
      }
      throw noTarget(address.arn(target));
    }
    if (allow == null) {
      return;
    }
    JsonNode policy = json("RedriveAllowPolicy", allow);
    String permission = policy.path("redrivePermission").asText();
    boolean allowed =
        permission.equals("allowAll")
            || (permission.equals("byQueue")
                && java.util.stream.StreamSupport.stream(
                        policy.path("sourceQueueArns").spliterator(), false)
                    .anyMatch(a -> a.asText().equals(address.arn(source))));
    if (!allowed) {
      throw SqsErrorText.REDRIVE_POLICY_INVALID.error(
          value,
          "The RedriveAllowPolicy of "
              + address.arn(target)
              + " does not allow "
              + address.arn(source)
              + " to use it as a dead-letter queue.");
    }
  }

  private static SqsError noTarget(String arn) {
    return SqsError.invalidParameter(
        "Value for parameter RedrivePolicy is invalid. Reason: Dead letter target does not exist: "
            + arn
            + ".");
  }

  private static void redrivePolicy(
      QueueEngine engine, QueueAddress address, String name, QueueConfig.Builder b, String value) {
    if (value.isEmpty()) {
      b.noDeadLetter();
      return;
    }
    JsonNode policy = null;
    try {
      policy = SqsJson.MAPPER.readTree(value);
    } catch (IOException e) {
      // answered below
    }
    if (policy == null || !policy.isObject()) {
      throw SqsErrorText.REDRIVE_POLICY_INVALID.error(
          value, "Redrive policy is not a valid JSON map.");
    }
    JsonNode arn = policy.get("deadLetterTargetArn");
    JsonNode count = policy.get("maxReceiveCount");
    for (String member : List.of("deadLetterTargetArn", "maxReceiveCount")) {
      if (policy.path(member).isMissingNode() || policy.get(member).isNull()) {
        throw SqsErrorText.REDRIVE_POLICY_INVALID.error(
            value, "Redrive policy does not contain mandatory attribute: " + member + ".");
      }
    }
    if (!arn.isTextual()) {
      throw noTarget(arn.toString());
    }
    int max;
    try {
      max = Integer.parseInt(count.asText().trim());
    } catch (NumberFormatException e) {
      max = 0;
    }
    if (max < 1 || max > 1000) {
      throw SqsErrorText.REDRIVE_POLICY_INVALID.error(
          value,
          "Invalid value for maxReceiveCount: "
              + count.asText()
              + ", valid values are from 1 to 1000 both inclusive.");
    }
    // SQS keeps a dead-letter queue in its source's account and region.
    String target = address.fromArn(arn.asText()).orElseThrow(() -> noTarget(arn.asText()));
    if (!target.equals(name)) {
      // A queue naming itself (SQS accepts it; even on CreateQueue, before it exists) keeps the
      // message in place with its receive count reset (docs/sqs.md, "Messages").
      checkAllowed(engine, address, name, target, value);
    }
    b.deadLetter(target, max);
  }

  /**
   * The SQS attributes a queue's configuration decides (not its counts, times or ARN), as
   * GetQueueAttributes reports them: values normalised, absent ones left out.
   */
  private static Map<String, String> configured(
      QueueAddress address, boolean grouped, QueueConfig c) {
    Map<String, String> all = new LinkedHashMap<>();
    all.put("VisibilityTimeout", Long.toString(c.visibilityTimeout().toSeconds()));
    all.put("DelaySeconds", Long.toString(c.delay().toSeconds()));
    all.put("MessageRetentionPeriod", Long.toString(c.retention().toSeconds()));
    all.put("MaximumMessageSize", Integer.toString(c.maxMessageSize()));
    all.put("ReceiveMessageWaitTimeSeconds", Long.toString(c.receiveWait().toSeconds()));
    c.deadLetter()
        .ifPresent(
            d ->
                all.put(
                    "RedrivePolicy",
                    SqsJson.MAPPER
                        .createObjectNode()
                        .put("deadLetterTargetArn", address.arn(d.target()))
                        .put("maxReceiveCount", d.maxReceiveCount())
                        .toString()));
    if (grouped) {
      all.put("FifoQueue", "true");
      all.put("ContentBasedDeduplication", Boolean.toString(c.contentBasedDeduplication()));
      all.put("DeduplicationScope", c.dedupScope() == DedupScope.GROUP ? "messageGroup" : "queue");
      all.put("FifoThroughputLimit", c.metadata().getOrDefault(FIFO_THROUGHPUT_LIMIT, "perQueue"));
    }
    putIfSet(all, "Policy", c.metadata().get(QueuePermissions.POLICY));
    putIfSet(all, "RedriveAllowPolicy", c.metadata().get(REDRIVE_ALLOW_POLICY));
    String kmsKey = c.metadata().get(KMS_MASTER_KEY_ID);
    putIfSet(all, "KmsMasterKeyId", kmsKey);
    putIfSet(
        all,
        "KmsDataKeyReusePeriodSeconds",
        c.metadata()
            .getOrDefault(
                KMS_DATA_KEY_REUSE_PERIOD, kmsKey == null ? null : DEFAULT_KMS_REUSE_PERIOD));
    // SSE-SQS is SQS's default (since 2022) unless a KMS key was set.
    all.put(
        "SqsManagedSseEnabled",
        c.metadata().getOrDefault(SQS_MANAGED_SSE, Boolean.toString(kmsKey == null)));
    return all;
  }

  /** Switchboard's own queue attributes ({@link Extensions}), reported only when named. */
  private static Map<String, String> extensions(QueueConfig c) {
    return Map.of(
        Extensions.ORDER,
        c.order().name(),
        Extensions.INDEXED_ATTRIBUTES,
        String.join(",", new TreeSet<>(c.indexedAttributes())),
        Extensions.KEY_LIMIT,
        c.keyLimit().isPresent() ? Integer.toString(c.keyLimit().getAsInt()) : "");
  }

  /**
   * The first of {@code names} (in their order) whose value differs between two configurations of a
   * queue named {@code name}, compared as GetQueueAttributes would report them; empty if none does.
   * CreateQueue on an existing queue compares only the attributes it names, as SQS does.
   */
  static Optional<String> firstDifferent(
      QueueAddress address,
      boolean grouped,
      QueueConfig existing,
      QueueConfig wanted,
      Iterable<String> names) {
    Map<String, String> have = new HashMap<>(configured(address, grouped, existing));
    have.putAll(extensions(existing));
    Map<String, String> want = new HashMap<>(configured(address, grouped, wanted));
    want.putAll(extensions(wanted));
    for (String n : names) {
      if (!Objects.equals(have.get(n), want.get(n))) {
        return Optional.of(n);
      }
    }
    return Optional.empty();
  }

  /** The attributes named (or all for {@code All}) of a queue. */
  static Map<String, String> read(
      QueueAddress address, QueueInfo info, QueueStats stats, List<String> names) {
    QueueConfig c = info.config();
    Map<String, String> all = configured(address, info.grouped(), c);
    all.put("ApproximateNumberOfMessages", Long.toString(stats.available()));
    all.put("ApproximateNumberOfMessagesNotVisible", Long.toString(stats.inFlight()));
    all.put("ApproximateNumberOfMessagesDelayed", Long.toString(stats.delayed()));
    all.put("CreatedTimestamp", Long.toString(info.createdAt().getEpochSecond()));
    all.put(
        "LastModifiedTimestamp",
        c.metadata().getOrDefault(LAST_MODIFIED, Long.toString(info.createdAt().getEpochSecond())));
    all.put("QueueArn", address.arn(info.name()));
    Map<String, String> out = new LinkedHashMap<>();
    if (names.contains("All")) {
      out.putAll(all);
    }
    // Switchboard's own attributes only when named, so a stock "All" sees what SQS would show.
    all.putAll(extensions(c));
    for (String n : names) {
      if (n.equals("All")) {
        continue;
      }
      if (!SETTABLE.contains(n) && !READ_ONLY.contains(n)) {
        throw SqsErrorText.UNKNOWN_ATTRIBUTE.error(n);
      }
      if (all.containsKey(n)) {
        out.put(n, all.get(n));
      }
    }
    return out;
  }

  private static void putOrRemove(Map<String, String> metadata, String key, String value) {
    if (value.isEmpty()) {
      metadata.remove(key);
    } else {
      metadata.put(key, value);
    }
  }

  private static void putIfSet(Map<String, String> all, String key, @Nullable String value) {
    if (value != null) {
      all.put(key, value);
    }
  }

  private static Duration seconds(String key, String value, int min, int max) {
    return Duration.ofSeconds(integer(key, value, min, max));
  }

  private static int integer(String key, String value, int min, int max) {
    int v;
    try {
      v = Integer.parseInt(value.strip());
    } catch (NumberFormatException e) {
      throw invalidValue(key, "must be an integer " + min + ".." + max + ", got '" + value + "'");
    }
    if (v < min || v > max) {
      throw invalidValue(key, "must be " + min + ".." + max + ", got " + v);
    }
    return v;
  }

  /** A boolean attribute value, in any case, as SQS reads them. */
  private static boolean bool(String key, String value) {
    return switch (value.toLowerCase(java.util.Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw invalidValue(key, "must be true or false, got '" + value + "'");
    };
  }

  private static SqsError invalidValue(String key, String reason) {
    return SqsError.sender(
        "InvalidAttributeValue", "Invalid value for the parameter " + key + ": " + reason + ".");
  }
}
