package io.switchboard.bench.dynamodb;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One queue design on DynamoDB, driven through the same pattern: the store's engine, or one of the
 * seeds' designs as the bench implements it. Each sends, receives and acknowledges through a
 * metered client, on tables of its own.
 */
interface Design extends AutoCloseable {

  /** The kinds of body a run can send ({@code --body-kind}), each {@code bytes} bytes of ASCII. */
  List<String> BODY_KINDS = List.of("filler", "letters", "base64", "ascii");

  /**
   * A message of the run; its body is {@link #body} of it.
   *
   * @param bodyKind one of {@link #BODY_KINDS}
   */
  record Message(String id, int priority, String gender, List<String> languages, String bodyKind) {

    /**
     * The body: the id, a colon, and to {@code bytes} bytes in all (ASCII) as {@link #bodyKind}
     * says: {@code filler} the letter x repeated (Deflate makes it a few bytes), {@code letters}
     * random letters a–z, {@code base64} base64 of random bytes, {@code ascii} random 7-bit
     * characters 1–127 (the text Deflate shrinks least: every byte value UTF-8 text can use at one
     * byte a character). Random from the id, so the same for every target.
     */
    String body(int bytes) {
      StringBuilder sb = new StringBuilder(bytes).append(id).append(':');
      java.util.Random random = new java.util.Random(id.hashCode());
      if (bodyKind.equals("base64")) {
        byte[] raw = new byte[bytes];
        random.nextBytes(raw);
        sb.append(java.util.Base64.getEncoder().encodeToString(raw));
        sb.setLength(bytes);
        return sb.toString();
      }
      while (sb.length() < bytes) {
        sb.append(
            switch (bodyKind) {
              case "letters" -> (char) ('a' + random.nextInt(26));
              case "ascii" -> (char) (1 + random.nextInt(127));
              default -> 'x';
            });
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
