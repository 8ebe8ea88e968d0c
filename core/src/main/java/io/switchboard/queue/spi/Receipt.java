package io.switchboard.queue.spi;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * A lease as a receipt handle names it: the message serial and its lease epoch at the time of the
 * receive. The handle is 27 bytes in {@value #LENGTH} base64url characters: the serial (8 bytes),
 * the epoch (4) and the first 120 bits of an HMAC-SHA256 over both under the queue's {@link
 * ReceiptKey}, so a handle can be neither forged nor carried to another queue. The lease epoch is
 * what makes a handle stale: a later receive of the same message raises it, and so does its return
 * from a dead-letter queue (which resets the receive count, so the receive count alone would repeat
 * old handles).
 *
 * @param serial the message's serial
 * @param leaseEpoch the message's lease epoch when it was received
 */
public record Receipt(long serial, int leaseEpoch) {

  private static final int PAYLOAD = 12;
  private static final int TAG = 15;
  private static final int BYTES = PAYLOAD + TAG;

  /** A handle's length in characters. */
  public static final int LENGTH = BYTES / 3 * 4;

  /** base64url (RFC 4648 §5); a handle is whole 3-byte groups, so it has no padding. */
  private static final byte[] ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
          .getBytes(StandardCharsets.US_ASCII);

  /** A character's 6 bits, or -1 for a character not in {@link #ALPHABET}. */
  private static final byte[] SIXBITS = new byte[128];

  static {
    Arrays.fill(SIXBITS, (byte) -1);
    for (int i = 0; i < ALPHABET.length; i++) {
      SIXBITS[ALPHABET[i]] = (byte) i;
    }
  }

  /** The handle of this lease under a queue's {@code key}. */
  public String encode(ReceiptKey key) {
    return issue(key).handle();
  }

  /**
   * The handle of this lease under a queue's {@code key}, with the tag it carries: an engine that
   * keeps the tag with the lease recognises the handle when it comes back ({@link
   * Presented#carries}) without computing the MAC again.
   */
  public Issued issue(ReceiptKey key) {
    byte[] out = new byte[BYTES];
    putLong(out, 0, serial);
    putInt(out, 8, leaseEpoch);
    byte[] tag = tag(key, out);
    System.arraycopy(tag, 0, out, PAYLOAD, TAG);
    return new Issued(base64(out), tag);
  }

  /**
   * A handle just issued and its tag (the MAC, of which the handle carries the first {@value #TAG}
   * bytes).
   *
   * @param handle the receipt handle
   * @param tag the MAC; not to be changed
   */
  @SuppressWarnings("ArrayRecordComponent") // kept and compared, never exposed beyond the engine
  public record Issued(String handle, byte[] tag) {}

  /**
   * The lease a handle names; refuses (RECEIPT_INVALID) one that was not issued under {@code key},
   * naming {@code queue} in the message.
   */
  public static Receipt decode(ReceiptKey key, String receipt, String queue) {
    Presented p = parse(receipt, queue);
    p.verify(key, receipt, queue);
    return new Receipt(p.serial(), p.leaseEpoch());
  }

  /**
   * A handle read but its MAC <em>not</em> checked yet: an engine looks the lease up by {@link
   * Presented#serial}, and either finds there the tag it issued for that lease and epoch ({@link
   * Presented#carries}) or calls {@link Presented#verify}. Refuses (RECEIPT_INVALID) what is not a
   * handle at all (wrong length, not base64url, serial 0).
   */
  public static Presented parse(@Nullable String receipt, String queue) {
    if (receipt == null || receipt.length() != LENGTH) {
      throw invalid(receipt, queue);
    }
    byte[] in = unbase64(receipt);
    if (in == null || getLong(in, 0) == 0) {
      throw invalid(receipt, queue);
    }
    return new Presented(in);
  }

  /** A handle's bytes as presented: the serial, the lease epoch and the tag, unchecked. */
  public static final class Presented {

    private final byte[] bytes;

    private Presented(byte[] bytes) {
      this.bytes = bytes;
    }

    /** The serial the handle names. */
    public long serial() {
      return getLong(bytes, 0);
    }

    /** The lease epoch the handle names. */
    public int leaseEpoch() {
      return getInt(bytes, 8);
    }

    /**
     * Whether this handle carries {@code issued}'s tag ({@link Issued#tag}), compared in time that
     * does not depend on where they differ. Only meaningful when the serial and epoch are those the
     * tag was issued for.
     */
    public boolean carries(byte[] issued) {
      return sameTag(issued, bytes);
    }

    /** Refuses (RECEIPT_INVALID) the handle unless its tag is {@code key}'s MAC of its payload. */
    public void verify(ReceiptKey key, String receipt, String queue) {
      if (!sameTag(tag(key, bytes), bytes)) {
        throw invalid(receipt, queue);
      }
    }
  }

  /**
   * The {@value #LENGTH} characters of a handle's {@value #BYTES} bytes. Written out rather than
   * {@link java.util.Base64}: that encoder's array, and its decoder's copy of the text, were a
   * visible share of a receive and an ack (docs/bench-history/engine.md).
   */
  private static String base64(byte[] in) {
    byte[] out = new byte[LENGTH];
    for (int i = 0, o = 0; i < BYTES; i += 3, o += 4) {
      int bits = (in[i] & 0xFF) << 16 | (in[i + 1] & 0xFF) << 8 | (in[i + 2] & 0xFF);
      out[o] = ALPHABET[bits >>> 18];
      out[o + 1] = ALPHABET[(bits >>> 12) & 63];
      out[o + 2] = ALPHABET[(bits >>> 6) & 63];
      out[o + 3] = ALPHABET[bits & 63];
    }
    return new String(out, StandardCharsets.ISO_8859_1);
  }

  /** The bytes of a {@value #LENGTH}-character handle, or null if a character is not base64url. */
  private static byte @Nullable [] unbase64(String text) {
    byte[] out = new byte[BYTES];
    for (int i = 0, o = 0; i < LENGTH; i += 4, o += 3) {
      int bits = 0;
      for (int k = 0; k < 4; k++) {
        char c = text.charAt(i + k);
        int v = c < SIXBITS.length ? SIXBITS[c] : -1;
        if (v < 0) {
          return null;
        }
        bits = bits << 6 | v;
      }
      out[o] = (byte) (bits >>> 16);
      out[o + 1] = (byte) (bits >>> 8);
      out[o + 2] = (byte) bits;
    }
    return out;
  }

  private static boolean sameTag(byte[] mac, byte[] handle) {
    int diff = 0;
    for (int i = 0; i < TAG; i++) {
      diff |= mac[i] ^ handle[PAYLOAD + i];
    }
    return diff == 0;
  }

  /** The MAC of the first {@link #PAYLOAD} bytes of {@code buf}. */
  private static byte[] tag(ReceiptKey key, byte[] buf) {
    return key.mac(buf, 0, PAYLOAD);
  }

  private static QueueException invalid(@Nullable String receipt, String queue) {
    String shown = receipt == null ? "null" : "'" + abbreviate(receipt) + "'";
    return new QueueException(
        ErrorCode.RECEIPT_INVALID, "receipt " + shown + " was not issued by queue '" + queue + "'");
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "...";
  }

  private static void putLong(byte[] b, int at, long v) {
    for (int i = 7; i >= 0; i--) {
      b[at + i] = (byte) v;
      v >>>= 8;
    }
  }

  private static void putInt(byte[] b, int at, int v) {
    for (int i = 3; i >= 0; i--) {
      b[at + i] = (byte) v;
      v >>>= 8;
    }
  }

  private static long getLong(byte[] b, int at) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (b[at + i] & 0xFF);
    }
    return v;
  }

  private static int getInt(byte[] b, int at) {
    int v = 0;
    for (int i = 0; i < 4; i++) {
      v = (v << 8) | (b[at + i] & 0xFF);
    }
    return v;
  }
}
