package io.switchboard.bench;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueLimits;
import io.switchboard.server.config.ServerConfig;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The heap the server's default message limits leave free: fills an engine held to the limits a
 * server on this JVM gets by default ({@code max-queued-bytes} = 50 % of the max heap) with
 * messages of one size, in four queues, until it refuses with {@code SERVER_FULL}; then forces full
 * collections and reports the live heap, and what is left of the max heap.
 *
 * <pre>
 * java -Xmx256m -cp bench/target/benchmarks.jar io.switchboard.bench.HeapAtLimit 65536 1024
 * </pre>
 *
 * Arguments: body sizes in bytes, one run each (a fresh engine per size).
 */
public final class HeapAtLimit {

  private HeapAtLimit() {}

  public static void main(String[] args) throws Exception {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long max = Runtime.getRuntime().maxMemory();
    QueueLimits limits = ServerConfig.defaults().queueLimits();
    System.out.printf(
        Locale.ROOT,
        "max heap %.1f MiB, max-queued-bytes %.1f MiB (default)%n",
        mib(max),
        mib(limits.maxQueuedBytes()));
    System.out.println(
        "body_bytes,messages,queued_bytes_mib,live_heap_mib,live_heap_before_mib,free_heap_mib,"
            + "heap_per_message_bytes");
    for (String arg : args) {
      int body = Integer.parseInt(arg);
      long before = usedAfterGc(memory);
      try (QueueEngine engine = QueueEngine.builder().limits(limits).build()) {
        List<String> queues = new ArrayList<>();
        for (int q = 0; q < 4; q++) {
          queues.add("q" + q);
          engine.createQueue("q" + q, QueueConfig.defaults());
        }
        String text = "x".repeat(body);
        long sent = 0;
        while (true) {
          try {
            engine.send(queues.get((int) (sent % 4)), NewMessage.of(text));
            sent++;
          } catch (QueueException e) {
            if (e.code() != ErrorCode.SERVER_FULL) {
              throw e;
            }
            break;
          }
        }
        long used = usedAfterGc(memory);
        System.out.printf(
            Locale.ROOT,
            "%d,%d,%.1f,%.1f,%.1f,%.1f,%.0f%n",
            body,
            sent,
            mib(engine.queuedBytes()),
            mib(used),
            mib(before),
            mib(max - used),
            (used - before) / (double) sent);
      }
    }
  }

  private static long usedAfterGc(MemoryMXBean memory) throws InterruptedException {
    long last = -1;
    for (int i = 0; i < 10; i++) {
      System.gc();
      Thread.sleep(50);
      long used = memory.getHeapMemoryUsage().getUsed();
      if (last >= 0 && Math.abs(used - last) < 64 * 1024) {
        return used;
      }
      last = used;
    }
    return last;
  }

  private static double mib(long bytes) {
    return bytes / 1048576.0;
  }
}
