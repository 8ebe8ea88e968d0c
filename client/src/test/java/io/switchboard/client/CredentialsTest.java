package io.switchboard.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CredentialsTest {

  private static final String SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";

  @TempDir Path dir;

  private Path file(String text, String perms) throws IOException {
    Path f = dir.resolve("credentials");
    Files.writeString(f, text);
    try {
      Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(perms));
    } catch (UnsupportedOperationException e) {
      Assumptions.abort("no POSIX permissions on this file system");
    }
    return f;
  }

  @Test
  void toString_showsTheIdNeverTheSecret() {
    Credentials c = Credentials.of("AKID", SECRET);
    assertTrue(c.toString().contains("AKID"));
    assertFalse(c.toString().contains(SECRET));
    assertFalse(new SigV4Signer(c, "us-east-1").toString().contains(SECRET));
  }

  @Test
  void of_badIdOrSecret_refusedWithoutShowingTheSecret() {
    assertThrows(IllegalArgumentException.class, () -> Credentials.of("", SECRET));
    assertThrows(IllegalArgumentException.class, () -> Credentials.of("a:b", SECRET));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Credentials.of("AKID", "bad\nsecret"));
    assertFalse(e.getMessage().contains("bad"));
  }

  @Test
  void fromProfile_readsTheNamedProfile() throws IOException {
    Path f =
        file(
            """
            # comment
            [default]
            access_key_id = AKIDDEFAULT
            secret_access_key = s1

            ; another comment
            [ops]
            aws_access_key_id=AKIDOPS
            aws_secret_access_key = %s
            """
                .formatted(SECRET),
            "rw-------");
    Credentials ops = Credentials.fromProfile(f, "ops");
    assertEquals("AKIDOPS", ops.accessKeyId());
    assertEquals(SECRET, ops.secretKey());
    assertEquals("AKIDDEFAULT", Credentials.fromProfile(f, "default").accessKeyId());
  }

  @Test
  void fromProfile_groupOrWorldReadable_refused() throws IOException {
    for (String perms : new String[] {"rw-r-----", "rw----r--", "rw-rw-rw-"}) {
      Path f = file("[default]\naccess_key_id = A\nsecret_access_key = " + SECRET + "\n", perms);
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> Credentials.fromProfile(f, "default"));
      assertTrue(e.getMessage().contains("chmod 600"), e.getMessage());
      assertFalse(e.getMessage().contains(SECRET));
    }
  }

  @Test
  void fromProfile_unknownProfile_namesTheOnesThere() throws IOException {
    Path f =
        file("[default]\naccess_key_id = A\nsecret_access_key = " + SECRET + "\n", "rw-------");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Credentials.fromProfile(f, "nope"));
    assertTrue(e.getMessage().contains("[nope]") && e.getMessage().contains("[default]"));
    assertFalse(e.getMessage().contains(SECRET));
  }

  @Test
  void fromProfile_missingSecretOrBadLine_refused() throws IOException {
    Path noSecret = file("[p]\naccess_key_id = A\n", "rw-------");
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> Credentials.fromProfile(noSecret, "p"))
            .getMessage()
            .contains("secret_access_key"));
    Path orphan = file("access_key_id = A\n", "rw-------");
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> Credentials.fromProfile(orphan, "p"))
            .getMessage()
            .contains("line 1"));
    assertThrows(
        IllegalArgumentException.class, () -> Credentials.fromProfile(dir.resolve("missing"), "p"));
  }

  @Test
  void basicAuthorization_isIdColonSecretInBase64() {
    assertEquals("Basic QUtJRDpzM2NyZXQ=", Credentials.of("AKID", "s3cret").basicAuthorization());
  }

  @Test
  void tlsTrust_pemCa_buildsAContext_andJunkIsRefused() throws Exception {
    Path pem = Path.of(getClass().getResource("/test-ca.pem").toURI());
    assertNotNull(TlsTrust.trusting(pem));
    Path junk = dir.resolve("junk.pem");
    Files.writeString(junk, "not a certificate");
    assertThrows(IllegalArgumentException.class, () -> TlsTrust.trusting(junk));
    assertThrows(IllegalArgumentException.class, () -> TlsTrust.trusting(dir.resolve("none")));
  }
}
