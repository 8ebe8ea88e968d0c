package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.switchboard.server.auth.Principal;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import io.switchboard.server.config.StartupException;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a server's keys come from ({@code access-keys}, its alias {@code sqs-access-keys}, {@code
 * access-keys-file}), {@code metrics-public}, and SigV4 from an AWS signer on the native API.
 */
class KeysConfigTest {

  @TempDir Path dir;

  private static String basic(String id, String secret) {
    return "Basic "
        + Base64.getEncoder().encodeToString((id + ":" + secret).getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void accessKeys_andTheOldSqsName_bothGiveAdminKeys_secretsNeverShown() {
    ServerConfig c =
        ServerConfig.resolve(
            Map.of("access-keys", "AK1:one-secret"),
            Map.of("SWITCHBOARD_SQS_ACCESS_KEYS", "AK2:two-secret"));
    assertEquals(java.util.Set.of("AK1", "AK2"), c.accessKeys().ids());
    assertFalse(c.toString().contains("one-secret") || c.toString().contains("two-secret"));
    var ring = SwitchboardServer.keyRing(c);
    assertEquals(2, ring.list().size());
    assertTrue(ring.find("AK2").orElseThrow().grants().toString().contains("admin on *"));

    StartupException clash =
        assertThrows(
            StartupException.class,
            () ->
                ServerConfig.resolve(
                        Map.of("access-keys", "AK1:a-secret", "sqs-access-keys", "AK1:b-secret"),
                        Map.of())
                    .accessKeys());
    assertTrue(clash.getMessage().contains("AK1"), clash.getMessage());
    assertFalse(clash.getMessage().contains("a-secret"), clash.getMessage());
  }

  /**
   * Regression (docs/security.md): with {@code --sqs-access-keys} set, unsigned SQS calls were
   * refused but {@code POST /v1/queues} on the same port still created a queue (201).
   */
  @Test
  void sqsAccessKeysSet_nativeCreateQueueWithoutCredentials_isRefused() {
    ServerConfig config =
        ServerConfig.resolve(
            Map.of("port", "0", "in-memory", "true", "sqs-access-keys", "AKOLD:old-secret"),
            Map.of());
    try (SwitchboardServer server = SwitchboardServer.start(config);
        Http http = new Http(server.uri())) {
      Http.Answer refused = http.post("/v1/queues", "{\"name\":\"sneaky\"}");
      assertEquals(401, refused.status(), refused.toString());
      assertEquals(
          401,
          http.send(
                  "POST",
                  "/v1/routing/contacts/c1/complete",
                  "{}",
                  Map.of("Content-Type", "application/json"))
              .status());
      Http.Answer allowed =
          http.send(
              "POST",
              "/v1/queues",
              "{\"name\":\"fine\"}",
              Map.of(
                  "Content-Type",
                  "application/json",
                  "Authorization",
                  basic("AKOLD", "old-secret")));
      assertEquals(201, allowed.status(), allowed.toString());
      assertEquals(
          404,
          http.send(
                  "GET",
                  "/v1/queues/sneaky",
                  null,
                  Map.of("Authorization", basic("AKOLD", "old-secret")))
              .status(),
          "the refused create changed nothing");
    }
  }

  @Test
  void aKeyFileOthersMayRead_stopsTheStart() throws IOException {
    assumeTrue(FileSystems.getDefault().supportedFileAttributeViews().contains("posix"));
    Path file = dir.resolve("keys.yaml");
    Files.writeString(file, "keys:\n  - id: AK1\n    secret: s\n    grants: ['admin on *']\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
    ServerConfig config = ServerConfig.forTests().with(Settings.ACCESS_KEYS_FILE, file);
    StartupException e =
        assertThrows(StartupException.class, () -> SwitchboardServer.start(config));
    assertTrue(e.getMessage().contains("chmod 600"), e.getMessage());
  }

  @Test
  void aKeyFile_isServed_andMetricsNeedMetricsRead_unlessPublic() throws IOException {
    Path file = dir.resolve("keys.properties");
    Files.writeString(
        file,
        "OPS.secret=ops-secret\nOPS.grants=metrics:read on *\n"
            + "APP.secret=app-secret\nAPP.grants=queue:send on *\n");
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }
    ServerConfig config = ServerConfig.forTests().with(Settings.ACCESS_KEYS_FILE, file);
    try (SwitchboardServer server = SwitchboardServer.start(config);
        Http http = new Http(server.uri())) {
      assertEquals(401, http.get("/metrics").status());
      assertEquals(
          403,
          http.send("GET", "/metrics", null, Map.of("Authorization", basic("APP", "app-secret")))
              .status());
      assertEquals(
          200,
          http.send("GET", "/metrics", null, Map.of("Authorization", basic("OPS", "ops-secret")))
              .status());
    }
    try (SwitchboardServer server =
            SwitchboardServer.start(config.with(Settings.METRICS_PUBLIC, true));
        Http http = new Http(server.uri())) {
      assertEquals(200, http.get("/metrics").status());
      assertEquals(401, http.get("/v1/queues").status());
    }
  }

  @Test
  void anAwsSigner_worksAgainstTheNativeApi() {
    ServerConfig config =
        ServerConfig.forTests()
            .withAccessKeys(io.switchboard.server.auth.AccessKeys.parse("AKSIGN:sign-secret"));
    try (SwitchboardServer server = SwitchboardServer.start(config);
        Http http = new Http(server.uri())) {
      URI uri = server.uri().resolve("/v1/queues");
      byte[] body = "{\"name\":\"signed\"}".getBytes(StandardCharsets.UTF_8);
      Map<String, String> json = Map.of("Content-Type", "application/json");
      for (String service : new String[] {"switchboard", "sqs"}) {
        Map<String, String> signed =
            AwsSigning.sign("POST", uri, body, json, "AKSIGN", "sign-secret", service);
        Http.Answer a =
            http.send("POST", "/v1/queues", new String(body, StandardCharsets.UTF_8), signed);
        assertTrue(a.status() == 200 || a.status() == 201, service + " -> " + a);
      }
      Map<String, String> wrong =
          AwsSigning.sign("POST", uri, body, json, "AKSIGN", "not-it", "switchboard");
      Http.Answer refused =
          http.send("POST", "/v1/queues", new String(body, StandardCharsets.UTF_8), wrong);
      assertEquals(401, refused.status(), refused.toString());
      assertTrue(refused.text().contains("SignatureDoesNotMatch"), refused.toString());
      // the body is covered: the same signature over another body is refused
      Map<String, String> good =
          AwsSigning.sign("POST", uri, body, json, "AKSIGN", "sign-secret", "switchboard");
      assertEquals(401, http.send("POST", "/v1/queues", "{\"name\":\"other\"}", good).status());
      Principal p = server.keys().find("AKSIGN").orElseThrow();
      assertFalse(p.toString().contains("sign-secret"));
    }
  }
}
