package io.switchboard.server.sqs;

import io.switchboard.queue.AttributeValue;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * The digests SQS returns with messages, computed exactly as the SDKs verify them (SDK v2's {@code
 * MessageMD5ChecksumInterceptor} fails the call on a mismatch).
 *
 * <p>Attributes are digested sorted by name; each contributes its name and data type, each as a
 * 4-byte big-endian length and the UTF-8 bytes, then a transport byte (1 for String and Number, 2
 * for Binary) and the value, again length-prefixed (UTF-8 text, or the raw binary bytes).
 */
final class MessageMd5 {

  private static final byte STRING = 1;
  private static final byte BINARY = 2;

  private MessageMd5() {}

  static String body(String body) {
    return hex(md5().digest(body.getBytes(StandardCharsets.UTF_8)));
  }

  /** The digest of {@code attributes}; call only when there is at least one. */
  static String attributes(Map<String, AttributeValue> attributes) {
    MessageDigest md = md5();
    for (var e : new TreeMap<>(attributes).entrySet()) {
      AttributeValue v = e.getValue();
      lengthPrefixed(md, utf8(e.getKey()));
      lengthPrefixed(md, utf8(v.dataType()));
      switch (v) {
        case AttributeValue.StringValue s -> text(md, s.value());
        case AttributeValue.NumberValue n -> text(md, n.value());
        case AttributeValue.BinaryValue b -> {
          md.update(BINARY);
          lengthPrefixed(md, b.value());
        }
        case AttributeValue.StringListValue l ->
            throw new IllegalArgumentException("StringList attributes have no SQS digest");
      }
    }
    return hex(md.digest());
  }

  private static void text(MessageDigest md, String value) {
    md.update(STRING);
    lengthPrefixed(md, utf8(value));
  }

  private static void lengthPrefixed(MessageDigest md, byte[] bytes) {
    int n = bytes.length;
    md.update((byte) (n >>> 24));
    md.update((byte) (n >>> 16));
    md.update((byte) (n >>> 8));
    md.update((byte) n);
    md.update(bytes);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * A digest never updated, cloned for each use: {@code MessageDigest.getInstance} looks the
   * algorithm up among the providers and checks its constraints on every call, about a third of
   * what a batch's digests cost (docs/benchmarks.md, "SQS and the shared filters, profiled again").
   * Cloning only reads the prototype, so threads may share it.
   */
  private static final MessageDigest PROTOTYPE = newMd5();

  private static MessageDigest md5() {
    try {
      return (MessageDigest) PROTOTYPE.clone();
    } catch (CloneNotSupportedException e) {
      return newMd5();
    }
  }

  private static MessageDigest newMd5() {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK always has MD5", e);
    }
  }

  private static String hex(byte[] digest) {
    return HexFormat.of().formatHex(digest);
  }
}
