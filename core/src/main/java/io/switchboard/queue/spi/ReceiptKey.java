package io.switchboard.queue.spi;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * One queue's key for {@link Receipt} handles: HMAC-SHA256 keyed with a key derived from the
 * server's receipt key ({@link ReceiptKeys}) and the queue's identity (its name and the random seed
 * it got when it was created). A handle issued by one queue therefore fails the check on any other,
 * including a later queue of the same name.
 *
 * <p>Every receive and ack computes one MAC, so the HMAC (RFC 2104) is computed here from two
 * SHA-256 states kept per queue: the inner hash after the key's {@code ipad} block and the outer
 * hash after its {@code opad} block. A MAC then clones both and costs two SHA-256 compressions, not
 * the four of {@link Mac} (which hashes the pad blocks again on every use). Cloning keeps the
 * states shared between threads unchanged. Measured in the performance round (CPU time per MAC,
 * docs/benchmarks.md): the clones (about 520 bytes of garbage) cost less than hashing the pad
 * blocks again with reused digests or a reused {@link Mac}, and far less than two compressions
 * written in Java from the saved states (which cannot use the CPU's SHA instructions).
 *
 * <p>The key and the two states (about 500 bytes) are made on the first MAC, not when the queue is
 * made or restored: a server may hold a million queues that never see a receive, and keeps for each
 * of them only a reference to the server's key and to the queue's name and its seed (a restart
 * computes no HMAC per queue).
 */
public final class ReceiptKey {

  private static final String ALGORITHM = "HmacSHA256";
  private static final int BLOCK = 64;
  private static final byte[] LABEL = "switchboard receipt v1".getBytes(StandardCharsets.US_ASCII);

  private final byte[] serverKey;
  private final String queue;
  private final long seed;

  /**
   * The SHA-256 states after the pad blocks, made on first use from the derived key; two threads
   * may both make them (the same states), and either's is kept.
   */
  private volatile @Nullable States states;

  private record States(MessageDigest inner, MessageDigest outer) {}

  private ReceiptKey(byte[] serverKey, String queue, long seed) {
    this.serverKey = serverKey;
    this.queue = queue;
    this.seed = seed;
  }

  private States states() {
    States s = states;
    if (s == null) {
      byte[] key = key(serverKey, queue, seed);
      byte[] ipad = new byte[BLOCK];
      byte[] opad = new byte[BLOCK];
      for (int i = 0; i < BLOCK; i++) {
        byte k = i < key.length ? key[i] : 0;
        ipad[i] = (byte) (k ^ 0x36);
        opad[i] = (byte) (k ^ 0x5c);
      }
      MessageDigest inner = sha256();
      inner.update(ipad);
      MessageDigest outer = sha256();
      outer.update(opad);
      s = new States(inner, outer);
      states = s;
    }
    return s;
  }

  /**
   * The key of queue {@code queue} created with {@code seed}, under {@code serverKey} (which the
   * caller does not change afterwards), derived on its first MAC.
   */
  static ReceiptKey derive(byte[] serverKey, String queue, long seed) {
    return new ReceiptKey(serverKey, queue, seed);
  }

  /** HMAC-SHA256 of the label, the queue's name and its seed under {@code serverKey}. */
  private static byte[] key(byte[] serverKey, String queue, long seed) {
    byte[] name = queue.getBytes(StandardCharsets.UTF_8);
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(new SecretKeySpec(serverKey, ALGORITHM));
      mac.update(LABEL);
      mac.update(
          ByteBuffer.allocate(4 + name.length + 8)
              .putInt(name.length)
              .put(name)
              .putLong(seed)
              .array());
      return mac.doFinal(); // 32 bytes: shorter than a block, used as is
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  /** HMAC-SHA256 of {@code len} bytes of {@code data} from {@code off} (32 bytes). */
  byte[] mac(byte[] data, int off, int len) {
    States s = states();
    MessageDigest in = copy(s.inner());
    in.update(data, off, len);
    MessageDigest out = copy(s.outer());
    out.update(in.digest());
    return out.digest();
  }

  private static MessageDigest copy(MessageDigest d) {
    try {
      return (MessageDigest) d.clone();
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("the JDK's SHA-256 is cloneable", e);
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  @Override
  public String toString() {
    return "ReceiptKey[hidden]";
  }
}
