package io.switchboard.bench.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What a figure was measured on and how: JDK, CPU count and model, commit, date, load averages (at
 * the start, and with {@link #ended()} at the end) and the command line. Recorded beside every
 * report so a figure never travels without them.
 *
 * @param values ordered key → value pairs, as written into the CSV header and printed
 */
public record RunInfo(Map<String, String> values) {

  /** Captures the current JVM and machine; {@code command} is how the entry point was started. */
  public static RunInfo capture(String command) {
    return capture(command, Machine.LOCAL);
  }

  /**
   * The same, the load average read from {@code machine} ({@link Report#NOT_MEASURED} if it cannot
   * give one).
   */
  public static RunInfo capture(String command, Machine machine) {
    Map<String, String> v = new LinkedHashMap<>();
    v.put(
        "jdk",
        System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
    v.put("cpus", Integer.toString(Runtime.getRuntime().availableProcessors()));
    v.put("cpu", cpuModel());
    v.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    v.put("commit", commit());
    v.put("date", ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
    v.put("load_average", loadAverages(machine));
    v.put("command", command);
    return new RunInfo(Collections.unmodifiableMap(v));
  }

  /**
   * The same, plus {@code load_average_end}: the load averages now, at the end of the run. The
   * machine these figures come from is shared, so a figure is read with the load at both ends of
   * its run ({@code load_average} is the one at {@link #capture}).
   */
  public RunInfo ended() {
    return ended(Machine.LOCAL);
  }

  /** The same, the load average read from {@code machine}. */
  public RunInfo ended(Machine machine) {
    Map<String, String> v = new LinkedHashMap<>(values);
    v.put("load_average_end", loadAverages(machine));
    return new RunInfo(Collections.unmodifiableMap(v));
  }

  /**
   * The machine's 1-, 5- and 15-minute load averages, e.g. {@code "3.12 2.80 1.95"} (see {@link
   * Machine#loadAverages}), or {@link Report#NOT_MEASURED} if it cannot give them.
   */
  public static String loadAverages(Machine machine) {
    return machine.loadAverages().orElse(Report.NOT_MEASURED);
  }

  /**
   * The command line of this JVM: {@code java <JVM flags> <main class or jar> <arguments>}, from
   * the runtime MX bean and {@code sun.java.command}; {@code args} stand in if the latter is
   * missing.
   */
  public static String commandLine(Class<?> main, String[] args) {
    StringBuilder b = new StringBuilder("java");
    for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      b.append(' ').append(flag);
    }
    String command = System.getProperty("sun.java.command");
    if (command != null && command.startsWith(main.getName())) {
      b.append(" -cp ").append(classPathShort()).append(' ').append(command);
    } else {
      b.append(" -cp ").append(classPathShort()).append(' ').append(main.getName());
      for (String a : args) {
        b.append(' ').append(a);
      }
    }
    return b.toString();
  }

  private static String classPathShort() {
    String cp = System.getProperty("java.class.path", "");
    return cp.endsWith("benchmarks.jar") ? "bench/target/benchmarks.jar" : "<classpath>";
  }

  /** The CPU model from {@code /proc/cpuinfo}, or "unknown". */
  public static String cpuModel() {
    try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
      return lines
          .filter(l -> l.startsWith("model name"))
          .map(l -> l.substring(l.indexOf(':') + 1).trim())
          .findFirst()
          .orElse("unknown");
    } catch (IOException | UncheckedIOException e) {
      return "unknown";
    }
  }

  /** {@code git rev-parse --short HEAD} in the working directory, or "unknown". */
  public static String commit() {
    try {
      Process p =
          new ProcessBuilder("git", "rev-parse", "--short", "HEAD")
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return "unknown";
      }
      return p.exitValue() == 0 && !out.isEmpty() ? out : "unknown";
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  /** One line per value, e.g. {@code jdk: OpenJDK 64-Bit Server VM 25.0.3+9-LTS}. */
  public String describe(String prefix) {
    StringBuilder b = new StringBuilder();
    values.forEach((k, v) -> b.append(prefix).append(k).append(": ").append(v).append('\n'));
    return b.toString();
  }
}
