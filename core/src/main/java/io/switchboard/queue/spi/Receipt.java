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
    byte[] out = new byte[BYTES];
    putLong(out, 0, serial);
    putInt(out, 8, leaseEpoch);
    byte[] tag = tag(key, out);
    System.arraycopy(tag, 0, out, PAYLOAD, TAG);
    return new String(ENCODER.encode(out), StandardCharsets.ISO_8859_1);
  }

  /**
   * The lease a handle names; refuses (RECEIPT_INVALID) one that was not issued under {@code key},
   * naming {@code queue} in the message.
   */
  public static Receipt decode(ReceiptKey key, String receipt, String queue) {
    byte[] in = bytes(receipt, queue);
    byte[] tag = tag(key, in);
    int diff = 0;
    for (int i = 0; i < TAG; i++) {
      diff |= tag[i] ^ in[PAYLOAD + i];
    }
    if (diff != 0) {
      throw invalid(receipt, queue);
    }
    return new Receipt(getLong(in, 0), getInt(in, 8));
  }

  /**
   * The lease a handle names, its MAC <em>not</em> checked: for an engine that first looks the
   * lease up and compares the handle with the one it issued for it ({@link #sameHandle}), and calls
   * {@link #decode} only when they differ. Refuses (RECEIPT_INVALID) what is not a handle at all
   * (wrong length, not base64url, serial 0).
   */
  public static Receipt parse(String receipt, String queue) {
    byte[] in = bytes(receipt, queue);
    return new Receipt(getLong(in, 0), getInt(in, 8));
  }

  /**
   * Whether {@code presented} is exactly {@code issued}, compared in time that does not depend on
   * where they differ (a handle's tag must not be learnt a character at a time).
   */
  public static boolean sameHandle(String issued, String presented) {
    if (issued.length() != presented.length()) {
      return false;
    }
    int diff = 0;
    for (int i = 0; i < issued.length(); i++) {
      diff |= issued.charAt(i) ^ presented.charAt(i);
    }
    return diff == 0;
  }

  private static byte[] bytes(@Nullable String receipt, String queue) {
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
    return in;
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
