package io.switchboard.queue.spi;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
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
 * <p>Every receive computes one MAC, so the HMAC (RFC 2104) is computed by {@link ShortHmac} from
 * the SHA-256 states after the key's {@code ipad} and {@code opad} blocks: two compressions and no
 * garbage but the tag. Cloning a {@code java.security.MessageDigest} holding those states (as
 * before issue 19) allocated about 500 bytes per MAC; a reused digest or {@link Mac} hashes the pad
 * blocks again, four compressions (docs/benchmarks.md, "In-process engine toward 1 M/s"). A {@link
 * ShortHmac} is not thread-safe, so a MAC takes the key's from a one-place pool and puts it back; a
 * MAC that finds the pool empty (another thread is computing one) uses a copy of its own.
 */
public final class ReceiptKey {

  private static final String ALGORITHM = "HmacSHA256";
  private static final byte[] LABEL = "switchboard receipt v1".getBytes(StandardCharsets.US_ASCII);

  private final ShortHmac prototype;
  private final AtomicReference<@Nullable ShortHmac> spare = new AtomicReference<>();

  private ReceiptKey(byte[] key) {
    prototype = new ShortHmac(key);
    spare.set(prototype.copy());
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
    ShortHmac h = spare.getAndSet(null);
    if (h == null) {
      h = prototype.copy(); // another thread holds the kept one
    }
    byte[] out = h.mac(data, off, len);
    spare.set(h);
    return out;
  }

  @Override
  public String toString() {
    return "ReceiptKey[hidden]";
  }
}
