package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.switchboard.server.config.Setting;
import io.switchboard.server.config.Settings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The settings table of {@code docs/server.md} is the one {@link Settings} renders: a setting
 * added, renamed or changed in its declaration fails this test until the docs say the same. Run
 * with {@code -Dswitchboard.updateDocs=true} to rewrite the table. Elsewhere in {@code docs/}, a
 * setting's default is quoted only as declared: in a table with a {@code default} column (the
 * limits and caps of {@code docs/operations.md}, say) and after the setting's name on one line
 * ({@code `metrics-top-queues` ... (default 100)}).
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

  /** A setting's name in backticks, as a flag or a key, maybe with its argument's name. */
  private static final Pattern NAME = Pattern.compile("`(?:--)?([a-z0-9][a-z0-9-]*)(?: [A-Z_]+)?`");

  /**
   * A default quoted in prose: {@code default `10s`}, {@code default 100}, {@code default none}.
   */
  private static final Pattern PROSE_DEFAULT =
      Pattern.compile("\\bdefault (`[^`]+`|none\\b|\\d[\\w.%]*)");

  /**
   * A setting's default as the docs write it: its first backticked word as the settings table
   * renders it ({@code `10s`}, {@code `http://<bind>:<port>`}), or {@code none}.
   */
  private static String quoted(Setting<?> s) {
    String def = s.defaultText();
    if (def.startsWith("none")) {
      return "none";
    }
    if (def.startsWith("`")) {
      return def.substring(0, def.indexOf('`', 1) + 1);
    }
    return "`" + def + "`";
  }

  @Test
  void docs_quoteEachSettingsDefault_asDeclared() throws Exception {
    Map<String, Setting<?>> settings = new HashMap<>();
    Settings.ALL.forEach(s -> settings.put(s.key(), s));
    List<String> wrong = new ArrayList<>();
    int checked = 0;
    List<Path> docs;
    try (Stream<Path> files = Files.list(Path.of("..", "docs"))) {
      docs = files.filter(f -> f.toString().endsWith(".md")).sorted().toList();
    }
    for (Path doc : docs) {
      List<String> lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
      List<String> header = null;
      boolean generated = false;
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        String where = doc.getFileName() + ":" + (i + 1) + " ";
        if (line.equals(BEGIN.strip())) {
          generated = true; // SettingsDocTest's own table, checked above
        } else if (line.equals(END)) {
          generated = false;
        }
        if (generated) {
          continue;
        }
        if (!line.startsWith("|")) {
          header = null;
        } else if (i + 1 < lines.size() && lines.get(i + 1).startsWith("|---")) {
          header = cells(line).stream().map(c -> c.toLowerCase(Locale.ROOT)).toList();
          continue;
        } else if (header != null && header.contains("default") && !line.startsWith("|---")) {
          List<String> cells = cells(line);
          Matcher name = NAME.matcher(cells.get(0));
          int column = header.indexOf("default");
          if (name.matches() && settings.containsKey(name.group(1)) && column < cells.size()) {
            String expected = quoted(settings.get(name.group(1)));
            checked++;
            if (!cells.get(column).startsWith(expected)) {
              wrong.add(
                  where + name.group(1) + ": " + cells.get(column) + ", declared " + expected);
            }
          }
        }
        List<Quoted> names = new ArrayList<>();
        Matcher m = NAME.matcher(line);
        while (m.find()) {
          if (settings.containsKey(m.group(1))) {
            names.add(new Quoted(m.group(1), m.start(), m.end()));
          }
        }
        for (int n = 0; n < names.size(); n++) {
          Quoted at = names.get(n);
          int end = n + 1 < names.size() ? names.get(n + 1).start() : line.length();
          Matcher d = PROSE_DEFAULT.matcher(line).region(at.end(), end);
          if (d.find()) {
            String said =
                d.group(1).startsWith("`") || d.group(1).equals("none")
                    ? d.group(1)
                    : "`" + d.group(1) + "`";
            String expected = quoted(settings.get(at.key()));
            checked++;
            if (!said.equals(expected)) {
              wrong.add(where + at.key() + ": default " + d.group(1) + ", declared " + expected);
            }
          }
        }
      }
    }
    assertEquals(List.of(), wrong, "docs quote a default other than the declared one");
    assertTrue(checked > 30, "defaults quoted in docs/ and checked: " + checked);
  }

  /** A setting's name where a line quotes it. */
  private record Quoted(String key, int start, int end) {}

  /** A markdown table row's cells, trimmed, without the outer pipes. */
  private static List<String> cells(String row) {
    String inner = row.strip();
    inner = inner.substring(1, inner.endsWith("|") ? inner.length() - 1 : inner.length());
    return Arrays.stream(inner.split("(?<!\\\\)\\|", -1)).map(String::strip).toList();
  }
}
