package io.switchboard.bench;

import io.switchboard.queue.spi.Receipt;
import io.switchboard.queue.spi.ReceiptKey;
import io.switchboard.queue.spi.ReceiptKeys;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.concurrent.TimeUnit;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The MAC of one receipt handle (12 bytes: serial and lease epoch), computed the ways the
 * performance round compared them, in nanoseconds per MAC (run with {@code -prof gc} for the
 * bytes). On a machine shared with other work, {@link EngineCpuPerMessage} measures the same
 * variants in CPU time. Every variant but {@code aesBlockNotDesign} is HMAC-SHA256 (RFC 2104) with
 * the same 32-byte key, so they give the same tag; {@code aesBlockNotDesign} is one AES-128
 * encryption of the payload padded to a block (a PRF on a fixed-length input, so a MAC), recorded
 * for comparison only: DESIGN.md names HMAC-SHA256.
 *
 * <ul>
 *   <li>{@code cloneMidstates}: what {@link ReceiptKey} does (kept after that round): the inner and
 *       outer SHA-256 states after the key's pad blocks, cloned per MAC (two compressions, two
 *       clones);
 *   <li>{@code jcaMacReused}: one {@link Mac} per thread, {@code doFinal} into a kept array (four
 *       compressions: the JDK hashes the pad blocks again after every MAC);
 *   <li>{@code digestsReused}: two {@link MessageDigest}s per thread fed the pad block, then the
 *       data, per MAC (the same four compressions without {@link Mac}'s layers);
 *   <li>{@code issue}: a whole handle as an engine issues it ({@link Receipt#issue}: MAC and
 *       base64).
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ReceiptMacBenchmark {

  private static final int BLOCK = 64;

  /** Per-thread state: the key, the data, and each variant's kept objects. */
  @State(Scope.Thread)
  public static class Keys {
    final byte[] key = new byte[32];
    final byte[] data = new byte[12];
    final byte[] out = new byte[32];
    final byte[] block = new byte[16];
    long serial = 1;

    MessageDigest innerState;
    MessageDigest outerState;
    Mac mac;
    MessageDigest inner;
    MessageDigest outer;
    byte[] ipad;
    byte[] opad;
    Cipher aes;
    ReceiptKey receiptKey;

    @Setup(Level.Trial)
    public void setUp() throws GeneralSecurityException {
      for (int i = 0; i < key.length; i++) {
        key[i] = (byte) (i * 7 + 1);
      }
      ipad = new byte[BLOCK];
      opad = new byte[BLOCK];
      for (int i = 0; i < BLOCK; i++) {
        byte k = i < key.length ? key[i] : 0;
        ipad[i] = (byte) (k ^ 0x36);
        opad[i] = (byte) (k ^ 0x5c);
      }
      innerState = MessageDigest.getInstance("SHA-256");
      innerState.update(ipad);
      outerState = MessageDigest.getInstance("SHA-256");
      outerState.update(opad);
      mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      inner = MessageDigest.getInstance("SHA-256");
      outer = MessageDigest.getInstance("SHA-256");
      aes = Cipher.getInstance("AES/ECB/NoPadding");
      aes.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, 0, 16, "AES"));
      receiptKey = ReceiptKeys.of(key).derive("bench", 42);
    }

    /** A fresh payload per MAC, as a receive makes (a new serial each time). */
    byte[] next() {
      long s = ++serial;
      for (int i = 7; i >= 0; i--) {
        data[i] = (byte) s;
        s >>>= 8;
      }
      return data;
    }
  }

  @Benchmark
  public byte[] cloneMidstates(Keys k) throws CloneNotSupportedException {
    MessageDigest in = (MessageDigest) k.innerState.clone();
    in.update(k.next());
    MessageDigest out = (MessageDigest) k.outerState.clone();
    out.update(in.digest());
    return out.digest();
  }

  @Benchmark
  public byte[] jcaMacReused(Keys k) throws GeneralSecurityException {
    k.mac.update(k.next());
    k.mac.doFinal(k.out, 0);
    return k.out;
  }

  @Benchmark
  public byte[] digestsReused(Keys k) throws GeneralSecurityException {
    k.inner.update(k.ipad);
    k.inner.update(k.next());
    k.inner.digest(k.out, 0, 32);
    k.outer.update(k.opad);
    k.outer.update(k.out);
    k.outer.digest(k.out, 0, 32);
    return k.out;
  }

  @Benchmark
  public byte[] aesBlockNotDesign(Keys k) throws GeneralSecurityException {
    System.arraycopy(k.next(), 0, k.block, 0, 12);
    k.aes.doFinal(k.block, 0, 16, k.out, 0);
    return k.out;
  }

  @Benchmark
  public Receipt.Issued issue(Keys k) {
    return new Receipt(++k.serial, 1).issue(k.receiptKey);
  }
}
