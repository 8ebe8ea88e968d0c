package io.switchboard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * {@code switchboard --version} names the build's version and commit
 * (docs/decisions.md#2026-11-25-the-version-is-the-maven-project).
 */
class VersionTest {

  @Test
  void versionPrintsTheProjectVersionAndTheCommitWrittenAtBuildTime() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"--version"},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    assertEquals(Main.OK, code);
    Properties built = Version.read();
    String version = built.getProperty("version");
    assertTrue(version != null && !version.startsWith("${"), "version.properties is filtered");
    assertTrue(
        out.toString(StandardCharsets.UTF_8)
            .strip()
            .matches(
                "switchboard "
                    + java.util.regex.Pattern.quote(version)
                    + " \\(commit ([0-9a-f]{7,40}|unknown)\\)"),
        out.toString(StandardCharsets.UTF_8));
  }

  @Test
  void aBuildThatKnowsNoCommit_saysUnknown() {
    Properties p = new Properties();
    p.setProperty("version", "1.2.3");
    p.setProperty("commit", "${git.commit.id.abbrev}");
    assertEquals("switchboard 1.2.3 (commit unknown)", Version.line(p));
    p.setProperty("commit", "");
    assertEquals("switchboard 1.2.3 (commit unknown)", Version.line(p));
    assertEquals("switchboard unknown (commit unknown)", Version.line(new Properties()));
  }
}
