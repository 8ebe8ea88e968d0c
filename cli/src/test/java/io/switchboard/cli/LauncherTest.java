package io.switchboard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The launcher runs the JVM so that an OutOfMemoryError ends the process (the store recovers
 * everything acknowledged), and honours JAVA_OPTS and SWITCHBOARD_HEAP.
 */
class LauncherTest {

  private static final Path SCRIPT = Path.of("..", "switchboard");

  private static List<String> launcherFlags() throws Exception {
    String script = Files.readString(SCRIPT);
    Matcher m = Pattern.compile("(?m)^jvm_flags=\"([^\"$]*)\"$").matcher(script);
    assertTrue(m.find(), "the launcher sets jvm_flags:\n" + script);
    assertTrue(script.contains("${JAVA_OPTS-}"), "the launcher passes JAVA_OPTS");
    assertTrue(script.contains("-Xmx$SWITCHBOARD_HEAP"), "the launcher honours SWITCHBOARD_HEAP");
    return List.of(m.group(1).split(" "));
  }

  @Test
  void theLauncherEndsTheJvmOnOutOfMemory() throws Exception {
    assertTrue(launcherFlags().contains("-XX:+ExitOnOutOfMemoryError"), launcherFlags().toString());
  }

  /** A child JVM with the launcher's flags and a small heap allocates until it runs out. */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aChildJvmWithTheLauncherFlags_exitsOnOutOfMemory_evenIfTheErrorIsCaught() throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(launcherFlags());
    command.add("-Xmx32m");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(Hog.class.getName());
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(50, TimeUnit.SECONDS), "the child still runs");
    assertNotEquals(0, p.exitValue(), output);
    assertTrue(output.contains("Terminating due to java.lang.OutOfMemoryError"), output);
    assertEquals(-1, output.indexOf("SURVIVED"), output);
  }

  /** The release archive's launcher runs the JVM with the same flags as ./switchboard. */
  @Test
  void theArchiveLauncherHasTheSameFlags() throws Exception {
    String archive = Files.readString(Path.of("..", "dist", "src", "bin", "switchboard"));
    Matcher m = Pattern.compile("(?m)^jvm_flags=\"([^\"$]*)\"$").matcher(archive);
    assertTrue(m.find(), archive);
    assertEquals(launcherFlags(), List.of(m.group(1).split(" ")));
  }

  /**
   * A JVM with the launcher's flags loads RocksDB's JNI library without the "restricted method"
   * warnings Java 22 and newer print otherwise (four at every start).
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aChildJvmWithTheLauncherFlags_loadsRocksDbWithoutNativeAccessWarnings() throws Exception {
    assertTrue(
        launcherFlags().contains("--enable-native-access=ALL-UNNAMED"), launcherFlags().toString());
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(launcherFlags());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(LoadsRocksDb.class.getName());
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(50, TimeUnit.SECONDS), "the child still runs");
    assertEquals(0, p.exitValue(), output);
    assertTrue(output.contains("LOADED"), output);
    assertEquals(-1, output.indexOf("restricted method"), output);
    assertEquals(-1, output.indexOf("WARNING"), output);
  }

  /** Loads RocksDB's native library, as the server does at start. */
  public static final class LoadsRocksDb {
    public static void main(String[] args) throws ReflectiveOperationException {
      // by name: the child runs on the class path, where the test module's reads do not apply
      Class.forName("org.rocksdb.RocksDB").getMethod("loadLibrary").invoke(null);
      System.out.println("LOADED");
    }
  }

  /** Allocates until the heap is full; catches the error, as careless code would. */
  public static final class Hog {
    public static void main(String[] args) {
      List<long[]> hog = new ArrayList<>();
      try {
        while (true) {
          hog.add(new long[1 << 16]);
        }
      } catch (OutOfMemoryError e) {
        hog.clear();
        System.out.println("SURVIVED");
      }
    }
  }
}
