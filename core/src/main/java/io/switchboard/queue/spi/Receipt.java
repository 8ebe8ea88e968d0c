package io.switchboard.queue.spi;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
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

  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

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
    return new Issued(new String(ENCODER.encode(out), StandardCharsets.ISO_8859_1), tag);
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
    byte[] in;
    try {
      in = DECODER.decode(receipt.getBytes(StandardCharsets.ISO_8859_1));
    } catch (IllegalArgumentException e) {
      throw invalid(receipt, queue);
    }
    if (in.length != BYTES || getLong(in, 0) == 0) {
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
