package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A real small file system for one test: a tmpfs of a given size that the test mounts itself (needs
 * root or CAP_SYS_ADMIN, as in CI) and unmounts when closed. Where the mount is refused the test is
 * skipped, loudly: a message on stderr and the assumption's reason in the report.
 */
final class SmallDisk implements AutoCloseable {

  private final Path mount;

  private SmallDisk(Path mount) {
    this.mount = mount;
  }

  /** Mounts a tmpfs of {@code mib} MiB at {@code mount} (created), or skips the calling test. */
  static SmallDisk mount(Path mount, int mib) throws IOException, InterruptedException {
    Files.createDirectories(mount);
    String why;
    try {
      int code = run("mount", "-t", "tmpfs", "-o", "size=" + mib + "m", "tmpfs", mount.toString());
      why = code == 0 ? null : "mount -t tmpfs exited with " + code;
    } catch (IOException e) {
      why = "cannot run mount: " + e.getMessage();
    }
    if (why != null) {
      System.err.println(
          "!!!!! SKIPPED: this test fills a real "
              + mib
              + " MiB disk and needs to mount a tmpfs (root or CAP_SYS_ADMIN): "
              + why
              + " !!!!!");
    }
    assumeTrue(
        why == null,
        "SKIPPED: mounting a "
            + mib
            + " MiB tmpfs was refused (needs root or CAP_SYS_ADMIN): "
            + why);
    return new SmallDisk(mount);
  }

  Path path() {
    return mount;
  }

  long free() throws IOException {
    return Files.getFileStore(mount).getUsableSpace();
  }

  /**
   * Writes {@code filler} until the disk is full (what another process on the disk may do). Static:
   * a child JVM fills the disk too, before each of its writes, since the store's own background
   * work (a flush deleting a log) may free a little room meanwhile.
   */
  static void fill(Path filler) throws IOException {
    byte[] chunk = new byte[4096];
    try (FileOutputStream out = new FileOutputStream(filler.toFile(), true)) {
      while (true) {
        try {
          out.write(chunk);
        } catch (IOException full) {
          return; // No space left on device
        }
      }
    }
  }

  /** Writes a file of {@code bytes} bytes. */
  void write(Path file, long bytes) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      byte[] chunk = new byte[64 * 1024];
      for (long written = 0; written < bytes; written += chunk.length) {
        f.write(chunk);
      }
    }
  }

  /** Frees {@code bytes} by cutting them off the end of {@code filler}. */
  void free(Path filler, long bytes) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(filler.toFile(), "rw")) {
      f.setLength(Math.max(0, f.length() - bytes));
    }
  }

  /**
   * Unmounts. Fails if this JVM still holds a file open there (a store left open). The kernel may
   * call the mount busy for a moment after a killed child's or a closed store's teardown with no
   * file held by anyone: then it tries again for up to 10 s, and at last detaches it lazily ({@code
   * umount -l}), so no mount outlives the test.
   */
  @Override
  public void close() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    while (run("umount", mount.toString()) != 0) {
      String held = heldOpen();
      if (!held.isEmpty()) {
        run("umount", "-l", mount.toString());
        throw new AssertionError("files this JVM holds open on " + mount + ":" + held);
      }
      if (System.nanoTime() > deadline) {
        assertEquals(0, run("umount", "-l", mount.toString()), "umount -l " + mount);
        return;
      }
      Thread.sleep(200);
    }
  }

  /** The files under the mount this JVM has open, as " path path..."; empty if none. */
  private String heldOpen() throws IOException {
    StringBuilder held = new StringBuilder();
    try (var fds = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : (Iterable<Path>) fds::iterator) {
        try {
          Path target = Files.readSymbolicLink(fd);
          if (target.startsWith(mount)) {
            held.append(' ').append(target);
          }
        } catch (IOException gone) {
          // closed meanwhile
        }
      }
    }
    return held.toString();
  }

  private static int run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    p.getInputStream().transferTo(System.out);
    return p.waitFor();
  }
}
