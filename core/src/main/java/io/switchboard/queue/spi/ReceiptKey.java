package io.switchboard.queue.spi;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * One queue's key for {@link Receipt} handles: HMAC-SHA256 keyed with a key derived from the
 * server's receipt key ({@link ReceiptKeys}) and the queue's identity (its name and the random seed
 * it got when it was created). A handle issued by one queue therefore fails the check on any other,
 * including a later queue of the same name.
 *
 * <p>Derivation is done once per queue; a MAC is then a clone of an initialized prototype (no key
 * schedule per call), so every receive and ack pays for two SHA-256 compressions only.
 */
public final class ReceiptKey {

  private static final String ALGORITHM = "HmacSHA256";
  private static final byte[] LABEL = "switchboard receipt v1".getBytes(StandardCharsets.US_ASCII);

  private final Mac prototype;
  private final SecretKeySpec key;
  private final boolean cloneable;

  private ReceiptKey(byte[] derived) {
    this.key = new SecretKeySpec(derived, ALGORITHM);
    this.prototype = newMac(key);
    boolean ok;
    try {
      prototype.clone();
      ok = true;
    } catch (CloneNotSupportedException e) {
      ok = false;
    }
    this.cloneable = ok;
  }

  /** The key of queue {@code queue} created with {@code seed}, under {@code serverKey}. */
  static ReceiptKey derive(byte[] serverKey, String queue, long seed) {
    byte[] name = queue.getBytes(StandardCharsets.UTF_8);
    Mac mac = newMac(new SecretKeySpec(serverKey, ALGORITHM));
    mac.update(LABEL);
    mac.update(
        ByteBuffer.allocate(4 + name.length + 8)
            .putInt(name.length)
            .put(name)
            .putLong(seed)
            .array());
    return new ReceiptKey(mac.doFinal());
  }

  /** A MAC ready for input: a clone of the prototype, never shared between threads. */
  Mac mac() {
    if (cloneable) {
      try {
        return (Mac) prototype.clone();
      } catch (CloneNotSupportedException e) {
        // checked in the constructor; fall through
      }
    }
    return newMac(key);
  }

  private static Mac newMac(SecretKeySpec key) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      return mac;
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM: " + e, e);
    }
  }

  @Override
  public String toString() {
    return "ReceiptKey[hidden]";
  }
}
