package io.switchboard.bench;

import io.switchboard.bench.report.ChartSpec;
import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.time.ManualClock;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;

/**
 * Heap retained per queued message: queues {@code count} messages (100-byte body) into one
 * in-memory queue, forces full collections, and divides the growth of used heap by the count. Run
 * with three attributes (language: 10 values, gender: 3, tier: 5 as a number) and without, each for
 * two arrival patterns ({@link Arrival}).
 *
 * <pre>
 * bench/run.sh heap [count] [--breakdown] [--out DIR]
 * # = java -XX:+UseParallelGC -Xms4g -Xmx4g -cp bench/target/benchmarks.jar \
 * #       io.switchboard.bench.HeapPerMessage [count] [--breakdown] [--out DIR]
 * </pre>
 *
 * Prints a table and writes {@code heap.csv} and {@code heap.png} ({@code bench/results/heap}
 * unless {@code --out DIR}).
 *
 * <p>Parallel GC is recommended: its {@code System.gc()} is a full compacting collection, so used
 * heap afterwards is exactly the live data. {@code --breakdown} also prints, per class, how many
 * instances and bytes per message the queue added (a class-histogram diff taken through the
 * DiagnosticCommand MBean, the same data as {@code jcmd <pid> GC.class_histogram}).
 */
public final class HeapPerMessage {

  static final String ENTRY = "heap";

  /** The budget: bytes per queued message, body included. */
  public static final long BUDGET = 400;

  private static final String[] LANGUAGES = {
    "en", "de", "fr", "es", "it", "nl", "pt", "pl", "sv", "ja"
  };
  private static final String[] GENDERS = {"female", "male", "other"};
  private static final int SEND_BATCH = 1000;

  private HeapPerMessage() {}

  /**
   * How messages arrive. {@code BURST}: batches of 1000 on the system clock, so many messages share
   * each millisecond. {@code ONE_PER_MS}: one send per millisecond of a manual clock, so every
   * message has its own send time and expiry time (any queue fed at up to 1000 messages/s).
   */
  public enum Arrival {
    BURST,
    ONE_PER_MS
  }

  /** One measurement. */
  public record Result(
      boolean attributes,
      Arrival arrival,
      int count,
      long usedBefore,
      long usedAfter,
      List<String> breakdown) {
    public double bytesPerMessage() {
      return (double) (usedAfter - usedBefore) / count;
    }
  }

  public static void main(String[] args) throws Exception {
    ReportArgs ra = ReportArgs.parse(ENTRY, args);
    RunInfo info = RunInfo.capture(RunInfo.commandLine(HeapPerMessage.class, args));
    int count = 1_000_000;
    boolean breakdown = false;
    for (String a : ra.rest()) {
      if (a.equals("--breakdown")) {
        breakdown = true;
      } else if (a.matches("[0-9_]+")) {
        count = Integer.parseInt(a.replace("_", ""));
      } else {
        throw new IllegalArgumentException(
            "usage: HeapPerMessage [count] [--breakdown] [--out DIR], got " + a);
      }
    }
    System.out.println(jvm());
    List<Result> results = new ArrayList<>();
    for (Arrival arrival : Arrival.values()) {
      for (boolean attributes : new boolean[] {true, false}) {
        Result r = measure(count, attributes, arrival, breakdown);
        print(r);
        results.add(r);
      }
    }
    report(results).write(ra.out(), info.ended(), System.out);
  }

  /** The JVM, its collectors and its maximum heap: what the figures depend on. */
  static String jvm() {
    return String.format(
        Locale.ROOT,
        "JVM %s %s, GC %s, max heap %d MiB",
        System.getProperty("java.vm.name"),
        System.getProperty("java.runtime.version"),
        gcNames(),
        Runtime.getRuntime().maxMemory() >> 20);
  }

  /** One row per case, against the budget; a breakdown, if measured, as notes. */
  public static Report report(List<Result> results) {
    Report report =
        Report.create(
                ENTRY,
                "Heap retained per queued message (100-byte body), in-memory engine",
                "arrival",
                "attributes",
                "messages",
                "used before",
                "used after",
                "bytes/message",
                "budget",
                "within budget")
            .note(jvm())
            .note(
                "used heap from MemoryMXBean after repeated System.gc() (Parallel GC recommended:"
                    + " its System.gc() is a full compacting collection)")
            .chart(
                ChartSpec.bars(
                    "heap per queued message", "bytes", "arrival", "attributes", "bytes/message"));
    for (Result r : results) {
      report.row(
          r.arrival().name().toLowerCase(Locale.ROOT),
          r.attributes() ? "3" : "none",
          r.count(),
          r.usedBefore(),
          r.usedAfter(),
          r.bytesPerMessage(),
          BUDGET,
          r.bytesPerMessage() <= BUDGET ? "yes" : "no");
      for (String line : r.breakdown()) {
        report.note(
            r.arrival().name().toLowerCase(Locale.ROOT)
                + ", "
                + (r.attributes() ? "3 attributes" : "no attributes")
                + ": "
                + line.strip());
      }
    }
    return report;
  }

  private static void print(Result r) {
    System.out.printf(
        Locale.ROOT,
        "%-14s %-11s %,d messages: used heap %,d -> %,d bytes = %.1f bytes/message (budget %d)%n",
        r.attributes() ? "3 attributes," : "no attributes,",
        r.arrival().name().toLowerCase(Locale.ROOT) + ":",
        r.count(),
        r.usedBefore(),
        r.usedAfter(),
        r.bytesPerMessage(),
        BUDGET);
    for (String line : r.breakdown()) {
      System.out.println("    " + line);
    }
  }

  /** Queues {@code count} messages into a fresh engine and measures the heap they retain. */
  public static Result measure(int count, boolean attributes, Arrival arrival, boolean breakdown)
      throws Exception {
    ManualClock manual = arrival == Arrival.ONE_PER_MS ? ManualClock.create() : null;
    QueueEngine engine =
        manual == null ? QueueEngine.inMemory() : QueueEngine.builder().clock(manual).build();
    engine.createQueue("heap", QueueConfig.defaults());
    String body = "x".repeat(EngineThroughputBenchmark.BODY_BYTES);
    // Warm the send path once so that class loading and lazy JDK state are not counted.
    engine.send("heap", message(body, 0, attributes));
    engine.purge("heap");

    Map<String, long[]> histogramBefore = breakdown ? histogram() : Map.of();
    long before = usedHeapAfterGc();
    List<NewMessage> batch = new ArrayList<>(SEND_BATCH);
    for (int i = 0; i < count; i++) {
      // Fresh strings and attribute values per message, as a server decoding requests would make.
      NewMessage m = message(new String(body.toCharArray()), i, attributes);
      if (manual != null) {
        engine.send("heap", m);
        manual.advanceMillis(1);
        continue;
      }
      batch.add(m);
      if (batch.size() == SEND_BATCH || i == count - 1) {
        engine.sendBatch("heap", batch);
        batch.clear();
      }
    }
    batch = null;
    long after = usedHeapAfterGc();
    List<String> lines = breakdown ? diff(histogramBefore, histogram(), count) : List.of();
    long depth = engine.stats("heap").available();
    if (depth != count) {
      throw new IllegalStateException("expected " + count + " queued messages, found " + depth);
    }
    engine.close();
    return new Result(attributes, arrival, count, before, after, lines);
  }

  static NewMessage message(String body, int i, boolean attributes) {
    NewMessage.Builder b = NewMessage.builder(body);
    if (attributes) {
      b.attribute("language", AttributeValue.string(new String(LANGUAGES[i % 10].toCharArray())));
      b.attribute("gender", AttributeValue.string(new String(GENDERS[i % 3].toCharArray())));
      b.attribute("tier", AttributeValue.number(i % 5 + 1));
    }
    return b.build();
  }

  /** Used heap after full collections, once two in a row agree to within 64 KiB (at most 10). */
  public static long usedHeapAfterGc() throws InterruptedException {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long previous = Long.MAX_VALUE;
    for (int i = 0; i < 10; i++) {
      System.gc();
      Thread.sleep(50);
      long used = memory.getHeapMemoryUsage().getUsed();
      if (i >= 2 && Math.abs(previous - used) < 64 * 1024) {
        return used;
      }
      previous = used;
    }
    return previous;
  }

  private static String gcNames() {
    List<String> names = new ArrayList<>();
    ManagementFactory.getGarbageCollectorMXBeans().forEach(b -> names.add(b.getName()));
    return String.join(" + ", names);
  }

  private static final Pattern HISTO_LINE =
      Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+).*$");

  /** Class histogram of live objects (triggers a full GC): class → {instances, bytes}. */
  static Map<String, long[]> histogram() throws Exception {
    String text =
        (String)
            ManagementFactory.getPlatformMBeanServer()
                .invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"),
                    "gcClassHistogram",
                    new Object[] {new String[0]},
                    new String[] {String[].class.getName()});
    Map<String, long[]> out = new HashMap<>();
    for (String line : text.split("\n")) {
      Matcher m = HISTO_LINE.matcher(line);
      if (m.matches()) {
        out.merge(
            m.group(3),
            new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))},
            (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]});
      }
    }
    return out;
  }

  /** Classes whose footprint grew by at least 0.5 bytes per message, largest first. */
  static List<String> diff(Map<String, long[]> before, Map<String, long[]> after, int count) {
    record Row(String type, long instances, long bytes) {}
    List<Row> rows = new ArrayList<>();
    long total = 0;
    for (Map.Entry<String, long[]> e : after.entrySet()) {
      long[] b = before.getOrDefault(e.getKey(), new long[2]);
      long instances = e.getValue()[0] - b[0];
      long bytes = e.getValue()[1] - b[1];
      total += bytes;
      rows.add(new Row(e.getKey(), instances, bytes));
    }
    rows.sort((x, y) -> Long.compare(y.bytes(), x.bytes()));
    List<String> out = new ArrayList<>();
    out.add(
        String.format(
            Locale.ROOT,
            "class histogram diff, per message: %.1f bytes in all classes",
            (double) total / count));
    for (Row r : rows) {
      if (r.bytes() * 2 < count) {
        break;
      }
      out.add(
          String.format(
              Locale.ROOT,
              "%8.3f instances %8.1f bytes  %s",
              (double) r.instances() / count,
              (double) r.bytes() / count,
              r.type()));
    }
    return out;
  }
}
