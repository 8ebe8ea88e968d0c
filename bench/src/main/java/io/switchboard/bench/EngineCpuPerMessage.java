package io.switchboard.bench;

import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.spi.Receipt;
import io.switchboard.queue.spi.ReceiptKey;
import io.switchboard.queue.spi.ReceiptKeys;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * CPU time of the benchmark thread (not wall-clock time) per operation, for a machine shared with
 * other work, where {@link EngineThroughputBenchmark}'s scores follow the load: a thread that is
 * not running is not charged. {@code 1e9 / ns} is then what one core would do alone.
 *
 * <pre>
 * java -Xms1g -Xmx1g -cp bench/target/benchmarks.jar io.switchboard.bench.EngineCpuPerMessage \
 *     engine|issue|mac-clone|mac-jca|mac-digests|mac-aes-not-design [windows]
 * </pre>
 *
 * {@code engine} is {@link EngineThroughputBenchmark#cycle} (send a batch of 10, receive, ack each)
 * per message; {@code issue} one receipt handle ({@link Receipt#issue}); the {@code mac-*} variants
 * HMAC-SHA256 of a handle's 12 bytes from cloned saved states, a reused {@link Mac}, and two reused
 * digests fed the pad blocks again; {@code mac-aes-not-design} one AES-128 block, for comparison
 * only (DESIGN.md names HMAC-SHA256). Warm-up 4 s, then windows of 1 s of CPU time; prints the
 * median, mean and range.
 */
public final class EngineCpuPerMessage {

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final byte[] DATA = new byte[12];
  private static long sink;
  private static long serial;

  private EngineCpuPerMessage() {}

  public static void main(String[] args) throws Exception {
    String what = args.length > 0 ? args[0] : "engine";
    int windows = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    LongSupplier op =
        switch (what) {
          case "engine" -> engine();
          case "issue" -> issue();
          case "mac-clone" -> macClone();
          case "mac-jca" -> macJca();
          case "mac-digests" -> macDigests();
          case "mac-aes-not-design" -> macAes();
          default -> throw new IllegalArgumentException("unknown case '" + what + "'");
        };
    long warmEnd = System.nanoTime() + 4_000_000_000L;
    while (System.nanoTime() < warmEnd) {
      for (int i = 0; i < 1000; i++) {
        op.getAsLong();
      }
    }
    double[] ns = new double[windows];
    for (int w = 0; w < windows; w++) {
      long ops = 0;
      long start = THREADS.getCurrentThreadCpuTime();
      while (THREADS.getCurrentThreadCpuTime() - start < 1_000_000_000L) {
        for (int i = 0; i < 1000; i++) {
          ops += op.getAsLong();
        }
      }
      ns[w] = (double) (THREADS.getCurrentThreadCpuTime() - start) / ops;
    }
    Arrays.sort(ns);
    System.out.printf(
        Locale.ROOT,
        "%s: CPU ns/op median %.1f, mean %.1f, range %.1f - %.1f (%d windows of 1 s CPU);"
            + " %.0f op/s per CPU-second (median)%n",
        what,
        ns[windows / 2],
        Arrays.stream(ns).average().orElse(0),
        ns[0],
        ns[windows - 1],
        windows,
        1e9 / ns[windows / 2]);
    if (sink == 42) {
      System.out.println(); // keeps the results alive
    }
  }

  private static LongSupplier engine() {
    QueueEngine engine = QueueEngine.inMemory();
    engine.createQueue(EngineThroughputBenchmark.QUEUE, QueueConfig.defaults());
    List<NewMessage> batch = new ArrayList<>();
    for (int i = 0; i < EngineThroughputBenchmark.BATCH; i++) {
      batch.add(NewMessage.of(EngineThroughputBenchmark.body((char) ('a' + i))));
    }
    List<NewMessage> fixed = List.copyOf(batch);
    ReceiveRequest receive =
        ReceiveRequest.builder()
            .maxMessages(EngineThroughputBenchmark.BATCH)
            .waitTime(Duration.ZERO)
            .build();
    return () -> EngineThroughputBenchmark.cycle(engine, fixed, receive);
  }

  private static byte[] key() {
    byte[] k = new byte[32];
    for (int i = 0; i < k.length; i++) {
      k[i] = (byte) (i * 7 + 1);
    }
    return k;
  }

  private static byte[] pad(int x) {
    byte[] k = key();
    byte[] p = new byte[64];
    for (int i = 0; i < p.length; i++) {
      p[i] = (byte) ((i < k.length ? k[i] : 0) ^ x);
    }
    return p;
  }

  /** A handle's payload with a new serial each time. */
  private static byte[] next() {
    long s = ++serial;
    for (int i = 7; i >= 0; i--) {
      DATA[i] = (byte) s;
      s >>>= 8;
    }
    return DATA;
  }

  /** Keeps a result alive; one operation done. */
  private static long done(byte result) {
    sink ^= result;
    return 1;
  }

  private static LongSupplier issue() {
    ReceiptKey key = ReceiptKeys.of(key()).derive("bench", 42);
    return () -> done(new Receipt(++serial, 1).issue(key).tag()[0]);
  }

  private static LongSupplier macClone() throws GeneralSecurityException {
    MessageDigest inner = MessageDigest.getInstance("SHA-256");
    inner.update(pad(0x36));
    MessageDigest outer = MessageDigest.getInstance("SHA-256");
    outer.update(pad(0x5c));
    return () -> {
      try {
        MessageDigest in = (MessageDigest) inner.clone();
        in.update(next());
        MessageDigest out = (MessageDigest) outer.clone();
        out.update(in.digest());
        return done(out.digest()[0]);
      } catch (CloneNotSupportedException e) {
        throw new IllegalStateException(e);
      }
    };
  }

  private static LongSupplier macJca() throws GeneralSecurityException {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key(), "HmacSHA256"));
    byte[] out = new byte[32];
    return () -> {
      try {
        mac.update(next());
        mac.doFinal(out, 0);
        return done(out[0]);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    };
  }

  private static LongSupplier macDigests() throws GeneralSecurityException {
    MessageDigest inner = MessageDigest.getInstance("SHA-256");
    MessageDigest outer = MessageDigest.getInstance("SHA-256");
    byte[] ipad = pad(0x36);
    byte[] opad = pad(0x5c);
    byte[] out = new byte[32];
    return () -> {
      try {
        inner.update(ipad);
        inner.update(next());
        inner.digest(out, 0, 32);
        outer.update(opad);
        outer.update(out);
        outer.digest(out, 0, 32);
        return done(out[0]);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    };
  }

  private static LongSupplier macAes() throws GeneralSecurityException {
    Cipher aes = Cipher.getInstance("AES/ECB/NoPadding");
    aes.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key(), 0, 16, "AES"));
    byte[] block = new byte[16];
    byte[] out = new byte[16];
    return () -> {
      try {
        System.arraycopy(next(), 0, block, 0, 12);
        aes.doFinal(block, 0, 16, out, 0);
        return done(out[0]);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    };
  }
}
