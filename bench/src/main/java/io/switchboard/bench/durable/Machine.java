package io.switchboard.bench.durable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/** The machine and build a figure was measured on, for the record. */
final class Machine {

  private Machine() {}

  static String describe() {
    return String.format(
        "JDK %s (%s); %d CPUs, %s; commit %s; %s",
        Runtime.version(),
        System.getProperty("java.vm.name"),
        Runtime.getRuntime().availableProcessors(),
        cpuModel(),
        commit(),
        ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
  }

  private static String cpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(l -> l.startsWith("model name"))
          .map(l -> l.substring(l.indexOf(':') + 1).trim())
          .findFirst()
          .orElse("unknown CPU");
    } catch (IOException e) {
      return "unknown CPU";
    }
  }

  private static String commit() {
    try {
      Process p = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      return p.waitFor() == 0 && !out.isEmpty() ? out : "unknown";
    } catch (IOException | InterruptedException e) {
      return "unknown";
    }
  }
}
