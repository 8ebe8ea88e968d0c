package io.switchboard.queue;

import java.nio.ByteBuffer;
import java.util.Base64;

/**
 * Receipt handles: 20 bytes, base64url, carrying the message serial, its lease epoch at the time of
 * the receive, and a 64-bit keyed check over both so that a handle cannot be guessed or carried to
 * another queue. The lease epoch is what makes a handle stale: a later receive of the same message
 * raises it, and so does its return from a dead-letter queue (which resets the receive count, so
 * the receive count alone would repeat old handles).
 */
final class Receipts {

  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder DECODER = Base64.getUrlDecoder();
  private static final int BYTES = 20;
  private static final int ENCODED_LENGTH = 27;

  /** A decoded handle. */
  record Handle(long serial, int leaseEpoch) {}

  private Receipts() {}

  static String encode(long key, long serial, int leaseEpoch) {
    ByteBuffer b = ByteBuffer.allocate(BYTES);
    b.putLong(serial).putInt(leaseEpoch).putLong(check(key, serial, leaseEpoch));
    return ENCODER.encodeToString(b.array());
  }

  static Handle decode(long key, String receipt, String queue) {
    if (receipt == null || receipt.length() != ENCODED_LENGTH) {
      throw invalid(receipt, queue);
    }
    byte[] raw;
    try {
      raw = DECODER.decode(receipt);
    } catch (IllegalArgumentException e) {
      throw invalid(receipt, queue);
    }
    ByteBuffer b = ByteBuffer.wrap(raw);
    long serial = b.getLong();
    int count = b.getInt();
    if (b.getLong() != check(key, serial, count) || serial == 0) {
      throw invalid(receipt, queue);
    }
    return new Handle(serial, count);
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
