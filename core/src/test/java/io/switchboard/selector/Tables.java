package io.switchboard.selector;

import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Golden tables written as text blocks: one row a line, cells separated by {@code ==>} (selectors
 * contain commas, quotes and pipes, so CSV would need escaping), blank lines and {@code #} comments
 * skipped, cells trimmed.
 */
final class Tables {

  private Tables() {}

  static Stream<Arguments> rows(String table, int columns) {
    return table
        .lines()
        .map(String::strip)
        .filter(line -> !line.isEmpty() && !line.startsWith("#"))
        .map(
            line -> {
              String[] cells = line.split("==>", -1);
              if (cells.length != columns) {
                throw new IllegalArgumentException(
                    "expected "
                        + columns
                        + " cells in table row, found "
                        + cells.length
                        + ": "
                        + line);
              }
              return Arguments.of(
                  (Object[]) Arrays.stream(cells).map(String::strip).toArray(String[]::new));
            });
  }
}
