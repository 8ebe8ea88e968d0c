package io.switchboard.storage.rocksdb;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** Small file-system helpers shared by the stores and the store commands. */
final class StoreFiles {

  private StoreFiles() {}

  /**
   * Creates {@code dir} (and missing parents) if it does not exist; the directory itself gets mode
   * 0700 where the file system has POSIX permissions (elsewhere the default). An existing directory
   * is left as it is.
   *
   * @throws IllegalStateException when it cannot be created
   */
  static void createPrivateDirectory(Path dir, String what) {
    try {
      if (Files.isDirectory(dir)) {
        return;
      }
      Path parent = dir.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      try {
        Files.createDirectory(
            dir,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (UnsupportedOperationException e) {
        Files.createDirectory(dir); // not a POSIX file system
      } catch (FileAlreadyExistsException e) {
        if (!Files.isDirectory(dir)) {
          throw e;
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot create " + what + " " + dir + ": " + e, e);
    }
  }
}
