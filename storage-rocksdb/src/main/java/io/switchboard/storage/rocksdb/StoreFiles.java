package io.switchboard.storage.rocksdb;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.Set;

/** Small file-system helpers shared by the stores and the store commands. */
final class StoreFiles {

  private static final System.Logger LOG = System.getLogger(StoreFiles.class.getName());

  private StoreFiles() {}

  /**
   * Creates {@code dir} if it does not exist, and every missing directory above it, each with mode
   * 0700 where the file system has POSIX permissions (elsewhere the default): no directory the
   * store creates is ever readable by other users, not even for an instant, whichever store of the
   * data directory (queues, {@code routing}, a workspace) is opened first. An existing directory is
   * left as it is; if other users may read or enter it, a warning saying so (and how to fix it) is
   * logged and returned.
   *
   * @return the warning about an existing directory's permissions, if any
   * @throws IllegalStateException when it cannot be created
   */
  static Optional<String> createPrivateDirectory(Path dir, String what) {
    try {
      if (Files.isDirectory(dir)) {
        Optional<String> warning = looserThanPrivate(dir, what);
        warning.ifPresent(w -> LOG.log(System.Logger.Level.WARNING, w));
        return warning;
      }
      Deque<Path> missing = new ArrayDeque<>();
      for (Path p = dir.toAbsolutePath(); p != null && !Files.exists(p); p = p.getParent()) {
        missing.push(p);
      }
      for (Path p : missing) {
        createPrivate(p);
      }
      return Optional.empty();
    } catch (IOException e) {
      throw new IllegalStateException("cannot create " + what + " " + dir + ": " + e, e);
    }
  }

  private static void createPrivate(Path dir) throws IOException {
    try {
      Files.createDirectory(
          dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    } catch (UnsupportedOperationException e) {
      Files.createDirectory(dir); // not a POSIX file system
    } catch (FileAlreadyExistsException e) {
      if (!Files.isDirectory(dir)) {
        throw e;
      }
    }
  }

  /**
   * A warning when the group or other users have any permission on the existing {@code dir}
   * (nothing on a file system without POSIX permissions).
   */
  static Optional<String> looserThanPrivate(Path dir, String what) throws IOException {
    Set<PosixFilePermission> permissions;
    try {
      permissions = Files.getPosixFilePermissions(dir);
    } catch (UnsupportedOperationException e) {
      return Optional.empty();
    }
    for (PosixFilePermission p : permissions) {
      if (p != PosixFilePermission.OWNER_READ
          && p != PosixFilePermission.OWNER_WRITE
          && p != PosixFilePermission.OWNER_EXECUTE) {
        return Optional.of(
            what
                + " "
                + dir
                + " has mode "
                + PosixFilePermissions.toString(permissions)
                + ": other users may read what is stored in it. Switchboard leaves an existing"
                + " directory as it is; make it private with: chmod 700 "
                + dir);
      }
    }
    return Optional.empty();
  }
}
