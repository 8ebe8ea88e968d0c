package io.switchboard.queue;

/**
 * The limits an engine holds every queue to, so that no client can grow the server until it falls
 * over (DESIGN.md, "Overload and damage"). Each is checked where it is cheap: the server total by
 * one atomic counter, the rest under the queue's lock. {@link #NONE} limits nothing (the engine's
 * default); the server sets its own defaults from the heap ({@code docs/operations.md}, "Limits").
 *
 * <p>Queued bytes of a message are its body plus its attributes (as {@code maxMessageSize} counts
 * them) plus {@link #MESSAGE_OVERHEAD} for the engine's bookkeeping, so that a flood of tiny
 * messages is limited too. Every message in a queue counts, whatever its state, and so do sends
 * waiting for their journal write.
 *
 * @param maxQueuedBytes queued bytes of all queues together; over it a send is refused with {@link
 *     ErrorCode#SERVER_FULL}
 * @param maxQueueBytes queued bytes of one queue; over it a send is refused with {@link
 *     ErrorCode#QUEUE_FULL}
 * @param defaultMaxDepth the {@code maxDepth} of a queue whose configuration sets none
 * @param maxInFlight messages in flight in one standard queue; at it a receive is refused with
 *     {@link ErrorCode#OVER_LIMIT}
 * @param maxInFlightGrouped the same for a grouped (FIFO) queue
 * @param maxAnswerBytes bytes of message bodies and attributes in one answer: a receive takes fewer
 *     messages and a browse page ends early (with a cursor) rather than pass it; each takes at
 *     least one message
 */
public record QueueLimits(
    long maxQueuedBytes,
    long maxQueueBytes,
    long defaultMaxDepth,
    int maxInFlight,
    int maxInFlightGrouped,
    long maxAnswerBytes) {

  /** Bytes charged per queued message on top of its body and attributes. */
  public static final int MESSAGE_OVERHEAD = 256;

  /** Amazon SQS's limit of messages in flight in a standard queue. */
  public static final int SQS_IN_FLIGHT = 120_000;

  /** Amazon SQS's limit of messages in flight in a FIFO queue. */
  public static final int SQS_IN_FLIGHT_FIFO = 20_000;

  /** No limit at all: what an engine built without limits holds its queues to. */
  public static final QueueLimits NONE =
      new QueueLimits(
          Long.MAX_VALUE,
          Long.MAX_VALUE,
          QueueConfig.MAX_DEPTH_LIMIT,
          Integer.MAX_VALUE,
          Integer.MAX_VALUE,
          Long.MAX_VALUE);

  public QueueLimits {
    positive("maxQueuedBytes", maxQueuedBytes);
    positive("maxQueueBytes", maxQueueBytes);
    if (defaultMaxDepth < 1 || defaultMaxDepth > QueueConfig.MAX_DEPTH_LIMIT) {
      throw QueueException.invalid(
          "defaultMaxDepth must be 1..1000000000 messages, got " + defaultMaxDepth);
    }
    positive("maxInFlight", maxInFlight);
    positive("maxInFlightGrouped", maxInFlightGrouped);
    positive("maxAnswerBytes", maxAnswerBytes);
  }

  private static void positive(String field, long value) {
    if (value < 1) {
      throw QueueException.invalid(field + " must be at least 1, got " + value);
    }
  }

  /** The in-flight limit of a queue of that kind. */
  public int maxInFlight(boolean grouped) {
    return grouped ? maxInFlightGrouped : maxInFlight;
  }

  /** The depth a queue with {@code config} may reach. */
  public long maxDepth(QueueConfig config) {
    return config.maxDepth().orElse(defaultMaxDepth);
  }

  /**
   * How many messages a receive asking for {@code requested} may take so that its answer stays
   * within {@link #maxAnswerBytes} whatever their size: at most {@code maxAnswerBytes /
   * maxMessageSize}, and always at least one. For an engine that cannot weigh messages before it
   * takes them (PostgreSQL); the in-memory engine stops at the exact size instead.
   */
  public int receiveMax(int requested, QueueConfig config) {
    long fit = Math.max(1, maxAnswerBytes / config.maxMessageSize());
    return (int) Math.min(requested, fit);
  }

  /** What one queued message is charged: its body and attributes plus {@link #MESSAGE_OVERHEAD}. */
  public static long charge(int bodyAndAttributeBytes) {
    return (long) bodyAndAttributeBytes + MESSAGE_OVERHEAD;
  }

  /** Refusal of a send that would take the server over {@link #maxQueuedBytes}. */
  public QueueException serverFull(long queued, long adding) {
    return new QueueException(
        ErrorCode.SERVER_FULL,
        "the server is full: it holds "
            + queued
            + " bytes of queued messages, the send adds "
            + adding
            + ", and the limit (max-queued-bytes) is "
            + maxQueuedBytes
            + "; retry once consumers have taken messages out");
  }

  /** Refusal of a send that would take a queue over {@link #maxQueueBytes}. */
  public QueueException queueBytesFull(String queue, long queued, long adding) {
    return new QueueException(
        ErrorCode.QUEUE_FULL,
        "queue '"
            + queue
            + "' is full: it holds "
            + queued
            + " bytes of messages, the send adds "
            + adding
            + ", and the limit per queue (max-queue-bytes) is "
            + maxQueueBytes);
  }

  /** Refusal of a receive on a queue at its in-flight limit. */
  public QueueException overLimit(String queue, boolean grouped, long inFlight) {
    return new QueueException(
        ErrorCode.OVER_LIMIT,
        "queue '"
            + queue
            + "' has "
            + inFlight
            + " messages in flight, its limit (max-in-flight"
            + (grouped ? "-fifo" : "")
            + ") is "
            + maxInFlight(grouped)
            + "; ack, release or let some expire, then receive again");
  }
}
