package io.switchboard.bench.dynamodb;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One queue design on DynamoDB, driven through the same pattern: the store's engine, or one of the
 * seeds' designs as the bench implements it. Each sends, receives and acknowledges through a
 * metered client, on tables of its own.
 */
interface Design extends AutoCloseable {

  /** A message of the run; its body is {@link #body} of it. */
  record Message(String id, int priority, String gender, List<String> languages) {

    /** The body: the id, a colon, and filler to {@code bytes} bytes in all (ASCII). */
    String body(int bytes) {
      StringBuilder sb = new StringBuilder(bytes).append(id).append(':');
      while (sb.length() < bytes) {
        sb.append('x');
      }
      return sb.toString();
    }

    /** The message id a body carries. */
    static String idOf(String body) {
      return body.substring(0, body.indexOf(':'));
    }
  }

  /**
   * A filtered receive's wish: a message whose languages hold {@code language}, of {@code gender}.
   */
  record Want(String language, String gender) {}

  /** A message taken by a receive, with what its acknowledgement needs. */
  record Taken(String id, Object handle) {}

  /** Sends one message, or (more than one) a batch. */
  void send(List<Message> batch);

  /** Takes up to {@code max} messages the pattern gives next, matching {@code want} if given. */
  List<Taken> receive(@Nullable Want want, int max);

  /** Acknowledges what a receive took (done with it: not delivered again). */
  void ack(List<Taken> taken);

  /** The bytes the design's tables still hold (items and DynamoDB's 100 bytes each), by a scan. */
  long bytesKept();

  @Override
  void close();
}
