package io.switchboard.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Temporary directories for stores: a new empty one under a test's root (a JUnit {@code @TempDir},
 * removed with it after the tests), so that one test class can open many stores.
 */
public final class TempDirs {

  private TempDirs() {}

  /** A new, empty directory under {@code root}, its name starting with {@code prefix}. */
  public static Path newDirectory(Path root, String prefix) {
    try {
      return Files.createTempDirectory(root, prefix);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot make a directory under " + root, e);
    }
  }
}
