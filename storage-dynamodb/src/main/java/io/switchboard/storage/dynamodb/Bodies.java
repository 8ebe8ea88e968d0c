package io.switchboard.storage.dynamodb;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Map;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * How a message's body is stored (docs/design.md, "A message's body, compressed";
 * docs/decisions.md, "DynamoDB bodies stored Deflate-compressed"): DynamoDB bills a write per
 * started 1 KB of the whole item, so a body is stored Deflate-compressed (raw Deflate, {@link
 * java.util.zip}) under {@value #DEFLATED} when that makes it smaller, else as it is under {@value
 * #PLAIN}. The attribute's name is the marker: an item holds one of the two, and an item written
 * before bodies were compressed holds {@value #PLAIN} and reads as it always did.
 */
final class Bodies {

  /** The body as sent. */
  static final String PLAIN = Msg.BODY;

  /** The body, raw Deflate. */
  static final String DEFLATED = "bz";

  /**
   * Bodies shorter than this are stored as they are: their items are far under a write unit, and
   * Deflate's own bytes would take most of what it saves.
   */
  static final int SMALLEST = 128;

  private Bodies() {}

  /** Puts {@code body} into {@code item}: deflated when that is smaller, else as it is. */
  static void put(Map<String, AttributeValue> item, byte[] body) {
    byte[] deflated = body.length < SMALLEST ? null : deflate(body);
    if (deflated != null) {
      item.put(DEFLATED, AttributeValue.fromB(SdkBytes.fromByteArray(deflated)));
    } else {
      item.put(PLAIN, AttributeValue.fromB(SdkBytes.fromByteArray(body)));
    }
  }

  /** The body an item holds, whichever way it is stored. */
  static byte[] of(Map<String, AttributeValue> item) {
    AttributeValue deflated = item.get(DEFLATED);
    if (deflated != null) {
      return inflate(deflated.b().asByteArray(), item);
    }
    return Store.bytes(item, PLAIN);
  }

  /** {@code body} deflated, or null when that is not smaller. */
  static byte @Nullable [] deflate(byte[] body) {
    Deflater d = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
    try {
      d.setInput(body);
      d.finish();
      byte[] out = new byte[body.length - 1];
      int n = 0;
      while (!d.finished() && n < out.length) {
        n += d.deflate(out, n, out.length - n);
      }
      if (!d.finished()) {
        return null; // no smaller
      }
      return Arrays.copyOf(out, n);
    } finally {
      d.end();
    }
  }

  static byte[] inflate(byte[] deflated, Map<String, AttributeValue> item) {
    Inflater i = new Inflater(true);
    try {
      i.setInput(deflated);
      ByteArrayOutputStream out = new ByteArrayOutputStream(deflated.length * 3);
      byte[] buf = new byte[8192];
      while (!i.finished()) {
        int n = i.inflate(buf);
        if (n == 0 && (i.needsInput() || i.needsDictionary())) {
          throw damaged(item, "it ends early");
        }
        out.write(buf, 0, n);
      }
      return out.toByteArray();
    } catch (DataFormatException e) {
      throw damaged(item, String.valueOf(e.getMessage()));
    } finally {
      i.end();
    }
  }

  private static IllegalStateException damaged(Map<String, AttributeValue> item, String why) {
    return new IllegalStateException(
        "a stored message's compressed body does not inflate ("
            + why
            + "; damaged, or not written by Switchboard): "
            + item.get("pk")
            + " "
            + item.get("sk"));
  }
}
