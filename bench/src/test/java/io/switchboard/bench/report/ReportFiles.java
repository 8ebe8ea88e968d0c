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
      assertEquals(columns, line.split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", -1).length, line);
    }
    Path png = dir.resolve(entry + ".png");
    assertTrue(Files.isRegularFile(png), "no " + png);
    BufferedImage image = ImageIO.read(png.toFile());
    assertTrue(image != null && image.getWidth() >= 400 && image.getHeight() >= 200, "image");
    assertTrue(distinctColours(image) > 3, "the chart has content, not a blank page");
    return table.subList(1, table.size());
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
