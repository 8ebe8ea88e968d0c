package io.switchboard.bench.report;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the machine can tell a benchmark about itself: CPU time of processes and the load average.
 * Every reading is empty when the machine cannot give it (no {@code /proc}, a process tree that is
 * not what it is on a plain Linux host, a restricted container, another OS), and the entry points
 * then report the figure as not measured ({@link Report#notMeasured}) rather than failing or
 * printing a made-up number. Entry points take a {@code Machine} so a test can run them with {@link
 * #UNMEASURABLE} and check the "cannot measure" path on any machine.
 */
public interface Machine {

  /** CPU time (user + system) process {@code pid} has used so far, in nanoseconds. */
  OptionalLong cpuNanos(long pid);

  /**
   * CPU time used so far by the parent of process {@code pid} and by everything it started, the
   * children that have exited included (a server and its worker processes, e.g. PostgreSQL's
   * postmaster, found from one of its backends), in nanoseconds.
   */
  OptionalLong parentTreeCpuNanos(long pid);

  /** The 1-, 5- and 15-minute load averages, e.g. {@code "3.12 2.80 1.95"}. */
  Optional<String> loadAverages();

  /** CPU time this JVM has used so far, in nanoseconds. */
  default OptionalLong ownCpuNanos() {
    return cpuNanos(ProcessHandle.current().pid());
  }

  /** The machine this JVM runs on: {@code /proc} on Linux, the JDK's MX beans elsewhere. */
  Machine LOCAL = new Local();

  /** A machine that can measure nothing: for tests of the "not measured" path. */
  Machine UNMEASURABLE =
      new Machine() {
        @Override
        public OptionalLong cpuNanos(long pid) {
          return OptionalLong.empty();
        }

        @Override
        public OptionalLong parentTreeCpuNanos(long pid) {
          return OptionalLong.empty();
        }

        @Override
        public Optional<String> loadAverages() {
          return Optional.empty();
        }

        @Override
        public String toString() {
          return "a machine that cannot measure CPU time or load";
        }
      };

  /** The {@link #LOCAL} machine. */
  final class Local implements Machine {

    private Local() {}

    @Override
    public OptionalLong cpuNanos(long pid) {
      if (pid == ProcessHandle.current().pid()
          && ManagementFactory.getOperatingSystemMXBean()
              instanceof com.sun.management.OperatingSystemMXBean os) {
        long t = os.getProcessCpuTime();
        if (t >= 0) {
          return OptionalLong.of(t);
        }
      }
      return ProcessHandle.of(pid)
          .flatMap(p -> p.info().totalCpuDuration())
          .map(d -> OptionalLong.of(d.toNanos()))
          .orElse(OptionalLong.empty());
    }

    @Override
    public OptionalLong parentTreeCpuNanos(long pid) {
      try {
        ProcessHandle parent = ProcessHandle.of(pid).flatMap(ProcessHandle::parent).orElse(null);
        if (parent == null || parent.pid() <= 1) {
          return OptionalLong.empty(); // no parent visible, or only init: not a server's tree
        }
        long[] own = cpuTicks(parent.pid());
        long ticks = own[0] + own[1] + own[2] + own[3];
        for (ProcessHandle child : parent.children().toList()) {
          try {
            long[] t = cpuTicks(child.pid());
            ticks += t[0] + t[1];
          } catch (IOException | RuntimeException gone) {
            // exited meanwhile: counted in the parent's cutime/cstime
          }
        }
        return OptionalLong.of(ticks * 1_000_000_000L / 100); // USER_HZ is 100 on Linux
      } catch (IOException | RuntimeException e) {
        return OptionalLong.empty();
      }
    }

    /** utime, stime, cutime, cstime of a process, in clock ticks (fields 14–17 of its stat). */
    private static long[] cpuTicks(long pid) throws IOException {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      // the command name may hold spaces: fields are counted from the ')' that ends it (field 3 on)
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return new long[] {
        Long.parseLong(f[11]), Long.parseLong(f[12]), Long.parseLong(f[13]), Long.parseLong(f[14])
      };
    }

    @Override
    public Optional<String> loadAverages() {
      try {
        String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
        if (f.length >= 3) {
          return Optional.of(f[0] + " " + f[1] + " " + f[2]);
        }
      } catch (IOException | RuntimeException e) {
        // not Linux, or /proc hidden: the MX bean below
      }
      double one = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      return one < 0 ? Optional.empty() : Optional.of(String.format(Locale.ROOT, "%.2f", one));
    }

    @Override
    public String toString() {
      return "this machine";
    }
  }

  /** {@code end - start} in nanoseconds, if both were measured. */
  static OptionalLong between(OptionalLong start, OptionalLong end) {
    return start.isPresent() && end.isPresent()
        ? OptionalLong.of(end.getAsLong() - start.getAsLong())
        : OptionalLong.empty();
  }
}
