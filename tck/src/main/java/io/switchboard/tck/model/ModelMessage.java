package io.switchboard.tck.model;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.MessageState;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One message of the {@link ReferenceQueueModel}: plain mutable fields, no indexes. Times are epoch
 * milliseconds; {@code firstReceivedAt} is 0 until the first receive.
 */
public final class ModelMessage {

  /** Creation order across the model; breaks ties the way an engine's serial number does. */
  final long created;

  final String body;
  final @Nullable String groupId;
  final @Nullable String dedupId;
  final long sentAt;

  /**
   * The engine's id, bound by the driver once the engine has answered the send (before anything
   * looks the message up or views it).
   */
  @SuppressWarnings("NullAway.Init") // bound after construction, by the driver
  String id;

  /** The engine's sequence number of the send, for duplicate answers. */
  long engineSequence;

  Map<String, AttributeValue> attributes;
  int priority;

  /** Order key among equal priorities: ascending for FIFO, descending for LIFO. */
  long seq;

  /** When it entered its current queue (breaks ties between expiries of the same millisecond). */
  long arrival;

  /** DELAYED, AVAILABLE or IN_FLIGHT while in a queue. */
  @SuppressWarnings("NullAway.Init") // set by the model right after construction (create)
  MessageState state;

  long visibleAt;
  long expiresAt;
  long firstReceivedAt;
  int receiveCount;
  long leasedAt;

  /**
   * Counts leases and arrivals in a queue; a receipt is current only while this is unchanged since
   * its receive. Independent of {@link #receiveCount}, which a redrive resets.
   */
  int epoch;

  @Nullable String deadLetterSource;

  ModelMessage(
      long created,
      String body,
      Map<String, AttributeValue> attributes,
      int priority,
      @Nullable String groupId,
      @Nullable String dedupId,
      long sentAt) {
    this.created = created;
    this.body = body;
    this.attributes = Map.copyOf(attributes);
    this.priority = priority;
    this.groupId = groupId;
    this.dedupId = dedupId;
    this.sentAt = sentAt;
  }

  /** The group of a message of a grouped queue, which always has one. */
  String group() {
    return Objects.requireNonNull(groupId, "a grouped queue's message has a group");
  }

  public String id() {
    return id;
  }

  /** The message as {@code get} would show it now, or with {@code override} as its state. */
  ModelView view(@Nullable MessageState override) {
    boolean timed = override == null && state != MessageState.AVAILABLE;
    return new ModelView(
        id,
        body,
        attributes,
        priority,
        Optional.ofNullable(groupId),
        Optional.ofNullable(dedupId),
        override != null ? override : state,
        sentAt,
        firstReceivedAt == 0 ? Optional.empty() : Optional.of(firstReceivedAt),
        receiveCount,
        timed ? Optional.of(visibleAt) : Optional.empty(),
        expiresAt,
        Optional.ofNullable(deadLetterSource));
  }

  @Override
  public String toString() {
    return "ModelMessage[" + id + " '" + body + "' " + state + " p" + priority + "]";
  }
}
