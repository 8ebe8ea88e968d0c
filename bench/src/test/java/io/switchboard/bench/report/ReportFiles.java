package io.switchboard.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;

/** Checks what an entry point left behind: the CSV with its run information, and the PNG. */
public final class ReportFiles {

  private ReportFiles() {}

  /**
   * Asserts {@code dir/<entry>.csv} starts with the run information, has {@code header} as its
   * column line and {@code rows} data lines, and {@code dir/<entry>.png} is a drawn image.
   *
   * @return the data lines
   */
  public static List<String> check(Path dir, String entry, String header, int rows)
      throws IOException {
    Path csv = dir.resolve(entry + ".csv");
    assertTrue(Files.isRegularFile(csv), "no " + csv);
    List<String> lines = Files.readAllLines(csv);
    List<String> info = lines.stream().filter(l -> l.startsWith("# ")).toList();
    for (String key : List.of("jdk", "cpus", "commit", "date", "command")) {
      assertTrue(
          info.stream()
              .anyMatch(l -> l.startsWith("# " + key + ": ") && l.length() > key.length() + 4),
          "CSV records " + key + ": " + info);
    }
    List<String> table = lines.stream().filter(l -> !l.startsWith("# ")).toList();
    assertEquals(header, table.get(0));
    assertEquals(rows, table.size() - 1, String.join("\n", table));
    int columns = header.split(",", -1).length;
    for (String line : table.subList(1, table.size())) {
      assertEquals(columns, cells(line).length, line);
    }
    Path png = dir.resolve(entry + ".png");
    assertTrue(Files.isRegularFile(png), "no " + png);
    BufferedImage image = ImageIO.read(png.toFile());
    assertTrue(image != null && image.getWidth() >= 400 && image.getHeight() >= 200, "image");
    assertTrue(distinctColours(image) > 3, "the chart has content, not a blank page");
    return table.subList(1, table.size());
  }

  /** The cells of a CSV data line (RFC 4180 quoting kept, trailing empty cells included). */
  public static String[] cells(String line) {
    return line.split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", -1);
  }

  /**
   * Asserts {@code column} of a data line of {@code dir/<entry>.csv} holds a number above {@code
   * min}, or is empty and the CSV says that column was not measured on this machine (a {@code #
   * note: not measured: <column>: <why>} line): a benchmark reports what the machine cannot give
   * (process CPU time, load average) as not measured instead of failing.
   */
  public static void measuredAbove(
      Path dir, String entry, String header, String line, String column, double min)
      throws IOException {
    int i = java.util.Arrays.asList(header.split(",", -1)).indexOf(column);
    assertTrue(i >= 0, "no column " + column + " in " + header);
    String cell = cells(line)[i];
    if (cell.isEmpty()) {
      List<String> notes =
          Files.readAllLines(dir.resolve(entry + ".csv")).stream()
              .filter(l -> l.startsWith("# note: not measured: " + column + ": "))
              .toList();
      assertTrue(!notes.isEmpty(), column + " is empty but not noted as not measured: " + line);
    } else {
      assertTrue(Double.parseDouble(cell) > min, column + " above " + min + ": " + line);
    }
  }

  private static int distinctColours(BufferedImage image) {
    java.util.Set<Integer> seen = new java.util.HashSet<>();
    for (int y = 0; y < image.getHeight(); y += 7) {
      for (int x = 0; x < image.getWidth(); x += 7) {
        seen.add(image.getRGB(x, y));
        if (seen.size() > 16) {
          return seen.size();
        }
      }
    }
    return seen.size();
  }
}
