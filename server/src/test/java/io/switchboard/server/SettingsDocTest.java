package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.switchboard.server.config.Settings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The settings table of {@code docs/server.md} is the one {@link Settings} renders: a setting
 * added, renamed or changed in its declaration fails this test until the docs say the same. Run
 * with {@code -Dswitchboard.updateDocs=true} to rewrite the table.
 */
class SettingsDocTest {

  static final String BEGIN =
      "<!-- settings table: generated from Settings by SettingsDocTest, do not edit by hand -->\n";
  static final String END = "<!-- end of settings table -->";
  private static final Path DOC = Path.of("..", "docs", "server.md");

  @Test
  void docsServerMd_settingsTable_isTheDeclarations() throws Exception {
    String text = Files.readString(DOC, StandardCharsets.UTF_8);
    int begin = text.indexOf(BEGIN);
    int end = text.indexOf(END);
    assertTrue(begin >= 0 && end > begin, DOC + " has no settings table between its markers");
    String table = text.substring(begin + BEGIN.length(), end);
    String expected = Settings.markdownTable();
    if (table.equals(expected)) {
      return;
    }
    if (Boolean.getBoolean("switchboard.updateDocs")) {
      Files.writeString(
          DOC,
          text.substring(0, begin + BEGIN.length()) + expected + text.substring(end),
          StandardCharsets.UTF_8);
      return;
    }
    fail(
        "docs/server.md's settings table differs from the declarations in Settings. Rewrite it"
            + " with ./mvnw -q -B -pl server -am verify -Dtest=SettingsDocTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Djacoco.skip=true"
            + " -Dswitchboard.updateDocs=true, or paste:\n"
            + expected);
  }
}
