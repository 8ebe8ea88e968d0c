package io.switchboard.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerConfigTest {

  @TempDir Path dir;

  @Test
  void defaults_areDocumented() {
    ServerConfig c = ServerConfig.defaults();
    assertEquals(8080, c.port());
    assertEquals("127.0.0.1", c.bind());
    assertEquals(Path.of("data"), c.dataDir());
    assertEquals(Durability.SYNC, c.durability());
    assertFalse(c.inMemory());
    assertEquals(4 * 1024 * 1024, c.maxBodyBytes());
    assertEquals(100, c.maxBatch());
    assertEquals(4096, c.maxSelectorLength());
    assertEquals(Settings.defaultMaxQueues(Runtime.getRuntime().maxMemory()), c.maxQueues());
    assertEquals("longest-idle", c.routing().strategy());
    assertEquals(java.time.Duration.ofSeconds(30), c.routing().offerTimeout());
    assertEquals(3, c.routing().missLimit());
    assertEquals(java.time.Duration.ofSeconds(20), c.routing().serviceLevel());
    assertEquals(java.time.Duration.ofMinutes(15), c.routing().statsWindow());
  }

  @Test
  void resolve_flagsBeatEnvironmentBeatFile() throws Exception {
    Path file = dir.resolve("switchboard.properties");
    Files.writeString(file, "port=1111\nbind=0.0.0.0\nmax-batch=7\ndurability=none\n");
    ServerConfig c =
        ServerConfig.resolve(
            Map.of("config", file.toString(), "port", "3333"),
            Map.of("SWITCHBOARD_PORT", "2222", "SWITCHBOARD_MAX_BATCH", "9"));
    assertEquals(3333, c.port());
    assertEquals(9, c.maxBatch());
    assertEquals("0.0.0.0", c.bind());
    assertEquals(Durability.NONE, c.durability());
  }

  @Test
  void resolve_configFileFromEnvironment() throws Exception {
    Path file = dir.resolve("c.properties");
    Files.writeString(file, "in-memory=true\n");
    assertTrue(
        ServerConfig.resolve(Map.of(), Map.of("SWITCHBOARD_CONFIG", file.toString())).inMemory());
  }

  @Test
  void resolve_badValues_nameTheSource() {
    StartupException e =
        assertThrows(
            StartupException.class,
            () -> ServerConfig.resolve(Map.of(), Map.of("SWITCHBOARD_PORT", "eighty")));
    assertTrue(e.getMessage().contains("SWITCHBOARD_PORT"), e.getMessage());
    assertThrows(
        StartupException.class, () -> ServerConfig.resolve(Map.of("durability", "fast"), Map.of()));
    assertThrows(
        StartupException.class, () -> ServerConfig.resolve(Map.of("max-batch", "5000"), Map.of()));
    assertThrows(
        StartupException.class, () -> ServerConfig.resolve(Map.of("colour", "1"), Map.of()));
  }

  @Test
  void resolve_unknownKeyInFile_isRefused() throws Exception {
    Path file = dir.resolve("typo.properties");
    Files.writeString(file, "prot=1\n");
    StartupException e =
        assertThrows(
            StartupException.class,
            () -> ServerConfig.resolve(Map.of("config", file.toString()), Map.of()));
    assertTrue(e.getMessage().contains("'prot'"), e.getMessage());
  }

  @Test
  void sqsAccessKeys_offByDefault_fromEnvironmentOrFlag_neverPrinted() {
    assertFalse(ServerConfig.defaults().accessKeys().enabled());
    ServerConfig fromEnv =
        ServerConfig.resolve(
            Map.of(), Map.of("SWITCHBOARD_SQS_ACCESS_KEYS", "AKID1:top-secret,AKID2:other"));
    assertEquals(java.util.Set.of("AKID1", "AKID2"), fromEnv.accessKeys().ids());
    assertFalse(fromEnv.toString().contains("top-secret"), fromEnv.toString());
    assertTrue(fromEnv.toString().contains("AKID1"), fromEnv.toString());
    ServerConfig fromFlag =
        ServerConfig.resolve(
            Map.of("sqs-access-keys", "AKID3:s"),
            Map.of("SWITCHBOARD_SQS_ACCESS_KEYS", "AKID1:top-secret"));
    assertEquals(java.util.Set.of("AKID3"), fromFlag.accessKeys().ids());

    StartupException bad =
        assertThrows(
            StartupException.class,
            () ->
                ServerConfig.resolve(
                    Map.of(), Map.of("SWITCHBOARD_SQS_ACCESS_KEYS", "AKID1:top-secret,AKID2")));
    assertTrue(
        bad.getMessage().contains("SWITCHBOARD_SQS_ACCESS_KEYS")
            && bad.getMessage().contains("entry 2")
            && !bad.getMessage().contains("top-secret"),
        bad.getMessage());
  }

  @Test
  void sqsAccount_defaultsToZerosInUsEast1_setFromEnvironmentOrFlag_validated() {
    assertEquals(
        new io.switchboard.server.config.SqsAccount("000000000000", "us-east-1"),
        ServerConfig.defaults().sqsAccount());
    ServerConfig set =
        ServerConfig.resolve(
            Map.of("sqs-default-region", "eu-central-1"),
            Map.of("SWITCHBOARD_SQS_ACCOUNT_ID", "123456789012"));
    assertEquals("123456789012", set.sqsAccount().id());
    assertEquals("eu-central-1", set.sqsAccount().defaultRegion());

    StartupException shortId =
        assertThrows(
            StartupException.class,
            () -> ServerConfig.resolve(Map.of("sqs-account-id", "12345"), Map.of()));
    assertTrue(
        shortId.getMessage().contains("sqs-account-id must be 12 digits")
            && shortId.getMessage().contains("'12345'")
            && shortId.getMessage().contains("--sqs-account-id"),
        shortId.getMessage());
    StartupException region =
        assertThrows(
            StartupException.class,
            () ->
                ServerConfig.resolve(
                    Map.of(), Map.of("SWITCHBOARD_SQS_DEFAULT_REGION", "EU_WEST_1")));
    assertTrue(
        region.getMessage().contains("sqs-default-region")
            && region.getMessage().contains("'EU_WEST_1'")
            && region.getMessage().contains("SWITCHBOARD_SQS_DEFAULT_REGION"),
        region.getMessage());
  }
}
