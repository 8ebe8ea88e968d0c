package io.switchboard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** docs/server.md's exit-code table is the one the CLI uses: same codes, same meanings. */
class ExitCodeDocTest {

  private static final Pattern ROW = Pattern.compile("^\\| (\\d+) \\| (.+) \\|$");

  @Test
  void docsTable_listsEveryExitCodeWithItsMeaning() throws IOException {
    Path doc = Path.of("..", "docs", "server.md");
    List<String> lines = Files.readAllLines(doc);
    int header = lines.indexOf("| exit code | meaning |");
    assertTrue(header >= 0, "docs/server.md has the exit-code table");
    Map<Integer, String> documented = new TreeMap<>();
    for (String line : lines.subList(header + 2, lines.size())) {
      Matcher row = ROW.matcher(line);
      if (!row.matches()) {
        break;
      }
      documented.put(Integer.parseInt(row.group(1)), row.group(2));
    }
    Map<Integer, ExitCode> codes =
        Arrays.stream(ExitCode.values())
            .collect(Collectors.toMap(ExitCode::code, c -> c, (a, b) -> a, TreeMap::new));
    assertEquals(codes.keySet(), documented.keySet(), "the table's codes are the CLI's");
    codes.forEach(
        (code, exit) ->
            assertTrue(
                documented.get(code).startsWith(exit.label()),
                "row " + code + " starts with '" + exit.label() + "': " + documented.get(code)));
  }
}
