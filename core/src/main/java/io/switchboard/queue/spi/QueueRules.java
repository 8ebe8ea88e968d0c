package io.switchboard.queue.spi;

import io.switchboard.queue.DedupScope;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.ExpiryAction;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.ReceiveRequest;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The rules every engine applies to queues: names, configurations, batch sizes and the limits of an
 * engine's builder, each with the one error code and text all engines answer with.
 */
public final class QueueRules {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,80}");
  private static final String GROUPED_SUFFIX = ".fifo";

  /** The most queues an engine may be built to hold. */
  public static final int MAX_QUEUES = 1_000_000;

  private QueueRules() {}

  /** Looks up a queue by name while a configuration is checked; empty when there is none. */
  @FunctionalInterface
  public interface QueueLookup<X extends Exception> {
    Optional<QueueInfo> find(String name) throws X;
  }

  /**
   * Checks a queue name: 1..80 of {@code [A-Za-z0-9_-]}, optionally followed by {@code .fifo}
   * (total at most 80 characters) for a grouped queue.
   */
  public static void checkName(String name, String field) {
    if (name == null) {
      throw QueueException.invalid(field + " is required");
    }
    String base =
        isGrouped(name) ? name.substring(0, name.length() - GROUPED_SUFFIX.length()) : name;
    if (name.length() > 80 || !NAME.matcher(base).matches()) {
      throw QueueException.invalid(
          field
              + " must be 1..80 characters of [A-Za-z0-9_-], with an optional '.fifo' suffix, got '"
              + name
              + "'");
    }
  }

  /** Whether a queue of that name is grouped (SQS FIFO): its name ends in {@code .fifo}. */
  public static boolean isGrouped(String name) {
    return name.endsWith(GROUPED_SUFFIX);
  }

  /**
   * Checks a configuration against the queue's name and, for a dead-letter target, against the
   * target as {@code queues} finds it: it must exist and be of the same kind. The queue itself may
   * be its own target (as in SQS), unless expired messages are dead-lettered.
   */
  public static <X extends Exception> void checkConfig(
      String name, QueueConfig config, QueueLookup<X> queues) throws X {
    boolean grouped = isGrouped(name);
    if (grouped && config.order() != Order.FIFO) {
      throw QueueException.invalid(
          "order must be fifo on grouped queue '"
              + name
              + "' (order within a group is fixed), got lifo");
    }
    if (!grouped && config.dedupScope() == DedupScope.GROUP) {
      throw QueueException.invalid(
          "dedupScope=group needs a grouped queue (name ending .fifo), got '" + name + "'");
    }
    if (config.deadLetter().isPresent()) {
      String target = config.deadLetter().get().target();
      if (target.equals(name)) {
        // Dead-lettering to itself leaves the message in place with its receive count reset
        // (DeadLetterRules.deadLettersToItself): an expired message would expire again forever.
        if (config.onExpire() == ExpiryAction.DEAD_LETTER) {
          throw QueueException.invalid(
              "onExpire=deadLetter needs a deadLetter.target other than the queue itself, got '"
                  + name
                  + "'");
        }
        return;
      }
      Optional<QueueInfo> t = queues.find(target);
      if (t.isEmpty()) {
        throw new QueueException(
            ErrorCode.QUEUE_NOT_FOUND,
            "deadLetter.target '" + target + "' does not exist; create it first");
      }
      if (t.get().grouped() != grouped) {
        throw QueueException.invalid(
            "deadLetter.target of a "
                + (grouped ? "grouped" : "standard")
                + " queue must be "
                + (grouped ? "grouped (.fifo)" : "standard")
                + ", got '"
                + target
                + "'");
      }
    }
  }

  /** A queue of that name exists with another configuration. */
  public static QueueException alreadyExists(String name) {
    return new QueueException(
        ErrorCode.QUEUE_ALREADY_EXISTS,
        "queue '" + name + "' exists with a different configuration");
  }

  /** The engine holds as many queues as it may. */
  public static QueueException tooManyQueues(int maxQueues) {
    return new QueueException(
        ErrorCode.TOO_MANY_QUEUES,
        "the engine holds its maximum of " + maxQueues + " queues; delete one first");
  }

  /** The engine was closed. */
  public static QueueException closed() {
    return new QueueException(ErrorCode.UNAVAILABLE, "the queue engine is closed");
  }

  /** Checks a duration against {@code min..max}. */
  public static void checkRange(String field, Duration value, Duration min, Duration max) {
    Objects.requireNonNull(value, field);
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw QueueException.invalid(
          field + " must be " + describe(min) + ".." + describe(max) + ", got " + describe(value));
    }
  }

  /** Renders a duration in the unit a person reads, e.g. {@code 50000 seconds}. */
  public static String describe(Duration d) {
    if (d.toMillisPart() != 0 || d.toNanosPart() % 1_000_000 != 0) {
      return d.toMillis() + " ms";
    }
    return d.toSeconds() + " seconds";
  }

  /** A send batch holds 1..1000 messages. */
  public static void checkBatchSize(List<NewMessage> messages) {
    if (messages.isEmpty() || messages.size() > ReceiveRequest.MAX_MESSAGES) {
      throw new QueueException(
          messages.isEmpty() ? ErrorCode.INVALID_ARGUMENT : ErrorCode.BATCH_TOO_LARGE,
          "a send batch must hold 1..1000 messages, got " + messages.size());
    }
  }

  /** The {@code i}th message of a batch; refuses a null one. */
  public static NewMessage batchMessage(List<NewMessage> messages, int i) {
    NewMessage m = messages.get(i);
    if (m == null) {
      throw QueueException.invalid("messages[" + i + "] is null");
    }
    return m;
  }

  // ---- engine builders ------------------------------------------------------------------

  /** An engine's {@code maxQueues}: 1..1000000. */
  public static int checkMaxQueues(int maxQueues) {
    if (maxQueues < 1 || maxQueues > MAX_QUEUES) {
      throw QueueException.invalid("maxQueues must be 1..1000000, got " + maxQueues);
    }
    return maxQueues;
  }

  /** An engine's {@code hotWindow}: 0..1000000 messages per queue (0: the heap holds all). */
  public static int checkHotWindow(int messages) {
    if (messages < 0 || messages > 1_000_000) {
      throw QueueException.invalid(
          "hotWindow must be 0..1000000 messages (0: every message in the heap), got " + messages);
    }
    return messages;
  }

  /** An engine's {@code housekeepingInterval}: 1 ms..1 minute. */
  public static Duration checkHousekeepingInterval(Duration interval) {
    checkRange("housekeepingInterval", interval, Duration.ofMillis(1), Duration.ofMinutes(1));
    return interval;
  }
}
