package io.switchboard.queue.spi;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.atomic.AtomicReference;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * One queue's key for {@link Receipt} handles: HMAC-SHA256 keyed with a key derived from the
 * server's receipt key ({@link ReceiptKeys}) and the queue's identity (its name and the random seed
 * it got when it was created). A handle issued by one queue therefore fails the check on any other,
 * including a later queue of the same name.
 *
 * <p>Every receive computes one MAC, so the HMAC (RFC 2104) is computed here with two SHA-256
 * digests kept for reuse, fed the key's {@code ipad} and {@code opad} blocks each time: four
 * compressions (the JDK's SHA-256 runs on the CPU's SHA instructions where it has them) and no
 * garbage but the tag. Cloning digest states saved after the pad blocks would cost two compressions
 * but allocate about a kilobyte per MAC (each clone copies the state and buffer and allocates its
 * message schedule), which cost more (issue 19, docs/benchmarks.md). The digests are not
 * thread-safe, so a MAC takes them from a one-place pool and puts them back; a MAC that finds the
 * pool empty (another thread is computing one) makes its own.
 */
public final class ReceiptKey {

  private static final String ALGORITHM = "HmacSHA256";
  private static final int BLOCK = 64;
  private static final int MAC_BYTES = 32;
  private static final byte[] LABEL = "switchboard receipt v1".getBytes(StandardCharsets.US_ASCII);

  private final byte[] ipad = new byte[BLOCK];
  private final byte[] opad = new byte[BLOCK];
  private final AtomicReference<@Nullable Hmac> spare = new AtomicReference<>();

  private ReceiptKey(byte[] key) {
    for (int i = 0; i < BLOCK; i++) {
      byte k = i < key.length ? key[i] : 0;
      ipad[i] = (byte) (k ^ 0x36);
      opad[i] = (byte) (k ^ 0x5c);
    }
    spare.set(new Hmac());
  }

  /** The key of queue {@code queue} created with {@code seed}, under {@code serverKey}. */
  static ReceiptKey derive(byte[] serverKey, String queue, long seed) {
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
      return new ReceiptKey(mac.doFinal()); // 32 bytes: shorter than a block, used as is
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  /** HMAC-SHA256 of {@code len} bytes of {@code data} from {@code off} (32 bytes). */
  byte[] mac(byte[] data, int off, int len) {
    Hmac h = spare.getAndSet(null);
    if (h == null) {
      h = new Hmac(); // another thread holds the kept one
    }
    byte[] out = h.mac(data, off, len);
    spare.set(h);
    return out;
  }

  /** Two SHA-256 digests and the inner hash's buffer; one thread at a time. */
  private final class Hmac {
    private final MessageDigest inner = sha256();
    private final MessageDigest outer = sha256();
    private final byte[] innerHash = new byte[MAC_BYTES];

    byte[] mac(byte[] data, int off, int len) {
      try {
        inner.update(ipad);
        inner.update(data, off, len);
        inner.digest(innerHash, 0, MAC_BYTES);
        outer.update(opad);
        outer.update(innerHash);
        byte[] out = new byte[MAC_BYTES];
        outer.digest(out, 0, MAC_BYTES);
        return out;
      } catch (DigestException e) {
        throw new IllegalStateException("a SHA-256 digest is 32 bytes", e);
      }
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
