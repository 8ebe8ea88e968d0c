package io.switchboard.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TempDirsTest {

  @TempDir Path root;

  @Test
  void newDirectory_isEmptyAndNewEachTime() throws IOException {
    Path a = TempDirs.newDirectory(root, "store");
    Path b = TempDirs.newDirectory(root, "store");
    assertTrue(Files.isDirectory(a) && Files.isDirectory(b) && !a.equals(b));
    assertEquals(root, a.getParent());
    assertTrue(a.getFileName().toString().startsWith("store"));
    try (Stream<Path> files = Files.list(a)) {
      assertEquals(0, files.count());
    }
  }
}
