package io.switchboard.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * {@code switchboard --version}: the Maven project version and the git commit it was built from,
 * both written into {@code version.properties} at build time (the project version is the one place
 * the version is set). A build outside a git checkout (a source archive) says {@code commit
 * unknown}.
 */
final class Version implements IVersionProvider {

  /** The version and commit, e.g. {@code ["switchboard 0.1.0 (commit 1a2b3c4d5e6f)"]}. */
  @Override
  public String[] getVersion() {
    return new String[] {line(read())};
  }

  static Properties read() {
    Properties p = new Properties();
    try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return p;
  }

  static String line(Properties p) {
    String version = known(p.getProperty("version"));
    String commit = known(p.getProperty("commit"));
    return "switchboard " + version + " (commit " + commit + ")";
  }

  /** A value, or {@code unknown} when the build left it unset or unfiltered. */
  private static String known(String value) {
    return value == null || value.isBlank() || value.startsWith("${") ? "unknown" : value;
  }
}
