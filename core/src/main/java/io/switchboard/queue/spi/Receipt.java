package io.switchboard.queue.spi;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import java.nio.charset.StandardCharsets;

/**
 * A lease as a receipt handle names it: the message serial and its lease epoch at the time of the
 * receive. The handle is 160 bits in 27 base64url characters, carrying both and a 64-bit keyed
 * check over them, so that a handle cannot be guessed or carried to another queue. The lease epoch
 * is what makes a handle stale: a later receive of the same message raises it, and so does its
 * return from a dead-letter queue (which resets the receive count, so the receive count alone would
 * repeat old handles). Encoded and decoded by hand, straight between longs and characters, because
 * every receive and every ack pays for it.
 *
 * @param serial the message's serial
 * @param leaseEpoch the message's lease epoch when it was received
 */
public record Receipt(long serial, int leaseEpoch) {

  private static final byte[] ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
          .getBytes(StandardCharsets.US_ASCII);
  private static final byte[] VALUES = new byte[128];

  /** A handle's length in characters. */
  public static final int LENGTH = 27;

  static {
    java.util.Arrays.fill(VALUES, (byte) -1);
    for (int i = 0; i < ALPHABET.length; i++) {
      VALUES[ALPHABET[i]] = (byte) i;
    }
  }

  /** The handle of this lease under a queue's {@code key}. */
  public String encode(long key) {
    long check = check(key, serial, leaseEpoch);
    long w0 = serial;
    long w1 = ((long) leaseEpoch << 32) | (check >>> 32);
    long w2 = check << 32;
    byte[] out = new byte[LENGTH];
    for (int i = 0; i < LENGTH; i++) {
      out[i] = ALPHABET[sixBits(w0, w1, w2, i * 6)];
    }
    return new String(out, StandardCharsets.ISO_8859_1);
  }

  private static int sixBits(long w0, long w1, long w2, int offset) {
    int word = offset >>> 6;
    int bit = offset & 63;
    long here = word == 0 ? w0 : word == 1 ? w1 : w2;
    long v = here << bit;
    if (bit > 58 && word < 2) {
      v |= (word == 0 ? w1 : w2) >>> (64 - bit);
    }
    return (int) (v >>> 58);
  }

  /**
   * The lease a handle names; refuses (RECEIPT_INVALID) one that was not issued under {@code key},
   * naming {@code queue} in the message.
   */
  public static Receipt decode(long key, String receipt, String queue) {
    if (receipt == null || receipt.length() != LENGTH) {
      throw invalid(receipt, queue);
    }
    long w0 = 0;
    long w1 = 0;
    long w2 = 0;
    for (int i = 0; i < LENGTH; i++) {
      char c = receipt.charAt(i);
      int v = c < 128 ? VALUES[c] : -1;
      if (v < 0) {
        throw invalid(receipt, queue);
      }
      int offset = i * 6;
      int word = offset >>> 6;
      int bit = offset & 63;
      long top = (long) v << 58;
      long here = top >>> bit;
      long spill = bit > 58 ? top << (64 - bit) : 0;
      switch (word) {
        case 0 -> {
          w0 |= here;
          w1 |= spill;
        }
        case 1 -> {
          w1 |= here;
          w2 |= spill;
        }
        default -> w2 |= here;
      }
    }
    long serial = w0;
    int count = (int) (w1 >>> 32);
    long check = (w1 << 32) | (w2 >>> 32);
    if ((w2 & 0xFFFFFFFFL) != 0 || serial == 0 || check != check(key, serial, count)) {
      throw invalid(receipt, queue);
    }
    return new Receipt(serial, count);
  }

  private static QueueException invalid(String receipt, String queue) {
    String shown = receipt == null ? "null" : "'" + abbreviate(receipt) + "'";
    return new QueueException(
        ErrorCode.RECEIPT_INVALID, "receipt " + shown + " was not issued by queue '" + queue + "'");
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "...";
  }

  /** SplitMix64-style mixing under a per-queue secret; opaque, not a cryptographic MAC. */
  private static long check(long key, long serial, int count) {
    long h = key ^ (serial * 0x9E3779B97F4A7C15L) ^ ((long) count << 32 | (count & 0xFFFFFFFFL));
    h = (h ^ (h >>> 30)) * 0xBF58476D1CE4E5B9L;
    h = (h ^ (h >>> 27)) * 0x94D049BB133111EBL;
    h ^= h >>> 31;
    h = (h + key) * 0x9E3779B97F4A7C15L;
    return h ^ (h >>> 29);
  }
}
