package io.switchboard.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release archive works without a build tool: unpacked into an empty directory, {@code
 * bin/switchboard server} serves and a client command talks to it, on any Java 21+ found through
 * JAVA_HOME or PATH (docs/deploy.md, "Run the archive").
 */
class ArchiveIT {

  @TempDir static Path dir;
  static Unpacked unpacked;

  @BeforeAll
  static void unpack() throws Exception {
    unpacked = Unpacked.tarGz(dir);
  }

  @Test
  void theArchiveHoldsTheLauncherTheJarsTheDocsAndTheLicenses() throws Exception {
    Path home = unpacked.home;
    assertTrue(Files.isExecutable(home.resolve("bin/switchboard")), "bin/switchboard executable");
    assertTrue(Files.isRegularFile(home.resolve("README.md")));
    assertTrue(Files.isRegularFile(home.resolve("docs/deploy.md")));
    assertTrue(Files.isRegularFile(home.resolve("docs/ops/grafana-dashboard.json")));
    assertTrue(Files.isRegularFile(home.resolve("docs/ops/alerts.yml")));
    List<String> jars;
    try (Stream<Path> lib = Files.list(home.resolve("lib"))) {
      jars = lib.map(p -> p.getFileName().toString()).sorted().toList();
    }
    assertTrue(jars.contains("switchboard-cli-" + Unpacked.VERSION + ".jar"), jars.toString());
    assertTrue(jars.stream().anyMatch(j -> j.startsWith("rocksdbjni-")), jars.toString());
    // Every third-party jar is listed with its license.
    String thirdParty = Files.readString(home.resolve("licenses/THIRD-PARTY.txt"));
    for (String jar : jars) {
      if (jar.startsWith("switchboard-")) {
        continue;
      }
      // the version, with its qualifier if it has one (-SNAPSHOT, -alpha, guava's -android)
      String artifact = jar.replaceFirst("-[0-9][^-]*(-[A-Za-z][A-Za-z0-9.-]*)?\\.jar$", "");
      assertTrue(
          Pattern.compile(":" + Pattern.quote(artifact) + ":").matcher(thirdParty).find(),
          "licenses/THIRD-PARTY.txt lists " + artifact + " (" + jar + ")");
    }
    assertTrue(!thirdParty.contains("Unknown license"), thirdParty);
  }

  @Test
  void theZipHoldsWhatTheTarHolds() throws Exception {
    Unpacked.Result listing =
        Unpacked.exec(dir, Map.of(), List.of("tar", "-tzf", Unpacked.ARCHIVE.toString()));
    assertEquals(0, listing.code(), listing.output());
    Set<String> tar = new TreeSet<>();
    for (String line : listing.output().split("\n")) {
      if (!line.isBlank() && !line.endsWith("/")) {
        tar.add(line);
      }
    }
    Set<String> zip = new TreeSet<>();
    try (ZipFile z = new ZipFile(System.getProperty("switchboard.zip"))) {
      z.stream().filter(e -> !e.isDirectory()).forEach(e -> zip.add(e.getName()));
    }
    assertEquals(tar, zip);
  }

  @Test
  void versionPrintsTheProjectVersionAndTheCommit() throws Exception {
    Unpacked.Result version = unpacked.run(Unpacked.javaHome(), "--version");
    assertEquals(0, version.code(), version.output());
    assertTrue(
        version
            .output()
            .strip()
            .matches(
                "switchboard "
                    + Pattern.quote(Unpacked.VERSION)
                    + " \\(commit ([0-9a-f]{7,40}|unknown)\\)"),
        version.output());
  }

  @Test
  void withoutJavaHome_theJavaOnPathRuns() throws Exception {
    Path javaBin = Path.of(System.getProperty("java.home"), "bin");
    Unpacked.Result version = unpacked.run(Map.of("PATH", javaBin + ":/usr/bin:/bin"), "--version");
    assertEquals(0, version.code(), version.output());
    assertTrue(version.output().startsWith("switchboard " + Unpacked.VERSION), version.output());
  }

  /** A fake Java 17: refused with a message naming the version and what to do, exit code 2. */
  @Test
  void aJavaOlderThan21_isRefusedWithAClearMessage() throws Exception {
    Path old = dir.resolve("jdk-17");
    Files.createDirectories(old.resolve("bin"));
    Files.writeString(old.resolve("release"), "JAVA_VERSION=\"17.0.15\"\n");
    Path java = old.resolve("bin/java");
    Files.writeString(java, "#!/bin/sh\necho 'the launcher ran an old java' >&2\nexit 1\n");
    java.toFile().setExecutable(true);
    Unpacked.Result run = unpacked.run(Map.of("JAVA_HOME", old.toString()), "--version");
    assertEquals(2, run.code(), run.output());
    assertTrue(run.output().contains("needs Java 21 or newer"), run.output());
    assertTrue(run.output().contains("is Java 17"), run.output());
    assertTrue(!run.output().contains("the launcher ran an old java"), run.output());
  }

  @Test
  void noJavaAtAll_isRefusedWithAClearMessage() throws Exception {
    Unpacked.Result run =
        unpacked.run(Map.of("PATH", dir.resolve("nothing-here").toString()), "help");
    assertEquals(2, run.code(), run.output());
    assertTrue(run.output().contains("no Java found"), run.output());
  }

  /**
   * {@code bin/switchboard server} serves on a free port with the launcher's JVM flags, and the
   * client commands of the same archive talk to it.
   */
  @Test
  void theServerServesAndTheClientTalksToIt() throws Exception {
    Map<String, String> env = new HashMap<>(Unpacked.javaHome());
    env.put("SWITCHBOARD_HEAP", "256m");
    env.put("JAVA_OPTS", "-Dswitchboard.archive.test=yes -Xss1m");
    List<String> command = new ArrayList<>();
    command.add(unpacked.home.resolve("bin/switchboard").toString());
    command.addAll(List.of("server", "--port", "0", "--data-dir", dir.resolve("data").toString()));
    try (Unpacked.Server server = Unpacked.Server.start(unpacked.home, env, command)) {
      List<String> jvm = server.process.info().arguments().map(List::of).orElse(List.of());
      if (!jvm.isEmpty()) { // where the OS tells a process's arguments
        assertTrue(jvm.contains("-XX:+ExitOnOutOfMemoryError"), jvm.toString());
        assertTrue(jvm.contains("--enable-native-access=ALL-UNNAMED"), jvm.toString());
        assertTrue(jvm.contains("-Xmx256m"), jvm.toString());
        assertTrue(jvm.contains("-Dswitchboard.archive.test=yes"), jvm.toString());
        assertTrue(jvm.contains("-Xss1m"), jvm.toString());
      }
      assertTrue(server.get("/health").contains("\"ready\""));

      Map<String, String> client = new HashMap<>(Unpacked.javaHome());
      client.put("SWITCHBOARD_SERVER", server.url.toString());
      Unpacked.Result created = unpacked.run(client, "queues", "create", "archive-jobs");
      assertEquals(0, created.code(), created.output());
      Unpacked.Result sent = unpacked.run(client, "send", "archive-jobs", "from the archive");
      assertEquals(0, sent.code(), sent.output());
      Unpacked.Result received = unpacked.run(client, "receive", "archive-jobs", "--ack", "--json");
      assertEquals(0, received.code(), received.output());
      assertTrue(received.output().contains("from the archive"), received.output());
      assertTrue(Files.isDirectory(dir.resolve("data")), "the store is in --data-dir");
    }
  }
}
