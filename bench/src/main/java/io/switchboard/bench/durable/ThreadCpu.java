package io.switchboard.bench.durable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The CPU time a process's threads have used so far, by kind of thread, from {@code
 * /proc/<pid>/task/<tid>/stat} (Linux): what a server spent its cores on between two readings,
 * RocksDB's own flush and compaction threads included (a Java profiler does not see them).
 */
final class ThreadCpu {

  /** The kinds, in report order. */
  static final java.util.List<String> KINDS =
      java.util.List.of(
          "requests", "journal writer", "RocksDB flush+compaction", "GC", "JIT", "other");

  private ThreadCpu() {}

  /** Milliseconds of CPU by kind; empty where {@code /proc} cannot be read. */
  static Map<String, Long> read(long pid) {
    Map<String, Long> out = new LinkedHashMap<>();
    Path tasks = Path.of("/proc", Long.toString(pid), "task");
    try (Stream<Path> threads = Files.list(tasks)) {
      for (Path t : (Iterable<Path>) threads::iterator) {
        try {
          String stat = Files.readString(t.resolve("stat"));
          // pid (comm) state ... utime stime: fields 14 and 15, counted after the ')'
          int close = stat.lastIndexOf(')');
          String comm = stat.substring(stat.indexOf('(') + 1, close);
          String[] f = stat.substring(close + 2).split(" ");
          long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
          out.merge(kind(comm), ticks * 10, Long::sum); // USER_HZ is 100 on Linux
        } catch (IOException | RuntimeException gone) {
          // a thread that ended between the listing and the read
        }
      }
    } catch (IOException e) {
      return Map.of();
    }
    return out;
  }

  /** The kind of a thread from its name (at most 15 characters in /proc). */
  static String kind(String comm) {
    if (comm.startsWith("rocksdb:")) {
      return "RocksDB flush+compaction";
    }
    if (comm.startsWith("switchboard-jou")) {
      return "journal writer";
    }
    if (comm.startsWith("ForkJoinPool")
        || comm.startsWith("WebServer")
        || comm.startsWith("helidon")) {
      return "requests"; // the carriers of the server's virtual threads
    }
    if (comm.startsWith("GC ") || comm.startsWith("G1 ")) {
      return "GC";
    }
    if (comm.startsWith("C1 ") || comm.startsWith("C2 ")) {
      return "JIT";
    }
    return "other";
  }

  /** Adds {@code after - before} by kind into {@code into}. */
  static void addDelta(Map<String, Long> before, Map<String, Long> after, Map<String, Long> into) {
    for (Map.Entry<String, Long> e : after.entrySet()) {
      into.merge(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L), Long::sum);
    }
  }
}
