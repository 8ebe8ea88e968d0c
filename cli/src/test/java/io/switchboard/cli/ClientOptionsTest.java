package io.switchboard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.client.AuthScheme;
import io.switchboard.client.Credentials;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Where the CLI takes its credentials from, in order, with the environment given. */
class ClientOptionsTest {

  @TempDir Path dir;

  private static ClientOptions parse(String... args) {
    ClientOptions o = new ClientOptions();
    new CommandLine(o).parseArgs(args);
    return o;
  }

  private Path profiles(String perms) throws IOException {
    Path f = dir.resolve("credentials");
    Files.writeString(
        f, "[ops]\naccess_key_id = AKIDPROFILE\nsecret_access_key = profile-secret\n");
    try {
      Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(perms));
    } catch (UnsupportedOperationException e) {
      Assumptions.abort("no POSIX permissions on this file system");
    }
    return f;
  }

  @Test
  void flags_winOverEnvironment() {
    Credentials c =
        parse("--access-key", "AKIDFLAG", "--secret-key", "flag-secret")
            .credentials(
                Map.of("SWITCHBOARD_ACCESS_KEY", "AKIDENV", "SWITCHBOARD_SECRET_KEY", "env"))
            .orElseThrow();
    assertEquals("AKIDFLAG", c.accessKeyId());
  }

  @Test
  void environment_usedWithoutFlags() {
    Credentials c =
        parse()
            .credentials(
                Map.of("SWITCHBOARD_ACCESS_KEY", "AKIDENV", "SWITCHBOARD_SECRET_KEY", "env-secret"))
            .orElseThrow();
    assertEquals("AKIDENV", c.accessKeyId());
    assertEquals("env-secret", c.secretKey());
  }

  @Test
  void profile_fromTheCredentialsFile() throws IOException {
    Path f = profiles("rw-------");
    Map<String, String> env = Map.of("SWITCHBOARD_CREDENTIALS_FILE", f.toString());
    assertEquals(
        "AKIDPROFILE", parse("--profile", "ops").credentials(env).orElseThrow().accessKeyId());
    Map<String, String> byEnv =
        Map.of("SWITCHBOARD_CREDENTIALS_FILE", f.toString(), "SWITCHBOARD_PROFILE", "ops");
    assertEquals("AKIDPROFILE", parse().credentials(byEnv).orElseThrow().accessKeyId());
  }

  @Test
  void profile_worldReadableFile_refused() throws IOException {
    Path f = profiles("rw-r--r--");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                parse("--profile", "ops")
                    .credentials(Map.of("SWITCHBOARD_CREDENTIALS_FILE", f.toString())));
    assertFalse(e.getMessage().contains("profile-secret"));
  }

  @Test
  void halfAPair_refusedNamingWhatIsMissing() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> parse("--secret-key", "lonely-secret").credentials(Map.of()));
    assertTrue(e.getMessage().contains("--access-key"), e.getMessage());
    assertFalse(e.getMessage().contains("lonely-secret"));
    assertThrows(
        IllegalArgumentException.class,
        () -> parse().credentials(Map.of("SWITCHBOARD_ACCESS_KEY", "AKID")));
  }

  @Test
  void nothingGiven_noCredentials() {
    assertTrue(parse().credentials(Map.of()).isEmpty());
  }

  @Test
  void authScheme_parsed() {
    assertEquals(AuthScheme.SIGV4, ClientOptions.scheme(null));
    assertEquals(AuthScheme.BASIC, ClientOptions.scheme("Basic"));
    assertThrows(IllegalArgumentException.class, () -> ClientOptions.scheme("digest"));
  }
}
