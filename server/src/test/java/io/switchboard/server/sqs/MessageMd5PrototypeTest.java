package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.queue.AttributeValue;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Regression (the performance round, docs/benchmarks.md): each digest was a {@code
 * MessageDigest.getInstance} (a provider look-up per message); it is now a clone of one shared
 * prototype. The digests stay those SDKs verify, from many threads at once.
 */
class MessageMd5PrototypeTest {

  private static final Map<String, AttributeValue> ATTRIBUTES =
      Map.of(
          "b", AttributeValue.binary(new byte[] {0, 1, 2, (byte) 255}),
          "a", AttributeValue.string("héllo"),
          "n", AttributeValue.number("42.5"));

  /** The attributes' digest as the SDKs compute it, spelled out with a fresh digest. */
  private static String expectedAttributes() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (String name : List.of("a", "b", "n")) {
      AttributeValue v = ATTRIBUTES.get(name);
      prefixed(out, name.getBytes(StandardCharsets.UTF_8));
      prefixed(out, v.dataType().getBytes(StandardCharsets.UTF_8));
      if (v instanceof AttributeValue.BinaryValue b) {
        out.write(2);
        prefixed(out, b.value());
      } else {
        out.write(1);
        String text =
            v instanceof AttributeValue.StringValue s
                ? s.value()
                : ((AttributeValue.NumberValue) v).value();
        prefixed(out, text.getBytes(StandardCharsets.UTF_8));
      }
    }
    return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(out.toByteArray()));
  }

  private static void prefixed(ByteArrayOutputStream out, byte[] bytes) {
    out.writeBytes(ByteBuffer.allocate(4).putInt(bytes.length).array());
    out.writeBytes(bytes);
  }

  @Test
  void digestsFromOnePrototype_sameAsAFreshDigest_acrossThreads() throws Exception {
    String attributes = expectedAttributes();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Callable<Void>> tasks = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        tasks.add(
            () -> {
              for (int i = 0; i < 2_000; i++) {
                assertEquals("5d41402abc4b2a76b9719d911017c592", MessageMd5.body("hello"));
                assertEquals(attributes, MessageMd5.attributes(ATTRIBUTES));
              }
              return null;
            });
      }
      for (Future<Void> f : pool.invokeAll(tasks)) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
