package io.switchboard.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The settings declared in {@link Settings}: names, defaults, checks, and secrets kept secret. */
class SettingsTest {

  @TempDir Path dir;

  @Test
  void keys_variablesAndFlags_areTheOnesUsersAlreadySet_eachOnce() {
    List<String> keys = Settings.keys();
    assertEquals(keys.size(), new java.util.HashSet<>(keys).size(), "a key declared twice");
    List<String> before =
        List.of(
            "port",
            "bind",
            "data-dir",
            "durability",
            "in-memory",
            "max-body-bytes",
            "max-batch",
            "max-selector-length",
            "max-queues",
            "shutdown-grace-seconds",
            "sqs-access-keys",
            "sqs-account-id",
            "sqs-default-region",
            "routing-strategy",
            "routing-offer-timeout",
            "routing-miss-limit",
            "routing-auto-accept",
            "routing-wrap-up",
            "routing-service-level",
            "routing-stats-window",
            "routing-event-history",
            "routing-contact-history",
            "postgres-url",
            "postgres-user",
            "postgres-password",
            "advertise-url",
            "routing-lease");
    // new settings may follow; none of these may go or be renamed
    assertTrue(keys.containsAll(before), keys.toString());
    assertEquals("SWITCHBOARD_MAX_BODY_BYTES", Settings.MAX_BODY_BYTES.variable());
    assertEquals("--max-body-bytes", Settings.MAX_BODY_BYTES.flag());
    assertFalse(Settings.POSTGRES_PASSWORD.hasFlag(), "a password flag would show in ps");
  }

  @Test
  void everyDefault_readBackFromItsOwnText_isTheDefault() {
    for (Setting<?> s : Settings.ALL) {
      assertDefaultRoundTrips(s);
    }
  }

  private static <T> void assertDefaultRoundTrips(Setting<T> s) {
    s.defaultValue()
        .filter(d -> !s.defaultText().equals("none"))
        .ifPresent(d -> assertEquals(d, s.parse(s.show(d), "test"), s.key()));
  }

  @Test
  void everySetting_fromItsVariable_orItsConfigFileKey_orItsFlag() throws Exception {
    // max-batch stands for every key: the same loop reads each source for each setting
    for (Setting<?> s : List.of(Settings.MAX_BATCH, Settings.ROUTING_LEASE, Settings.BIND)) {
      String text = s == Settings.MAX_BATCH ? "7" : s == Settings.ROUTING_LEASE ? "2s" : "::1";
      Path file = dir.resolve(s.key() + ".properties");
      Files.writeString(file, s.key() + "=" + text + "\n");
      ServerConfig fromEnv = ServerConfig.resolve(pg(), Map.of(s.variable(), text));
      ServerConfig fromFile = ServerConfig.resolve(with(pg(), "config", file.toString()), Map.of());
      ServerConfig fromFlag = ServerConfig.resolve(with(pg(), s.key(), text), Map.of());
      assertEquals(fromEnv, fromFile, s.key());
      assertEquals(fromEnv, fromFlag, s.key());
      assertEquals(s.parse(text, "test"), fromFlag.get(s), s.key());
    }
  }

  private static Map<String, String> pg() {
    return Map.of("postgres-url", "jdbc:postgresql://db/x");
  }

  private static Map<String, String> with(Map<String, String> map, String key, String value) {
    Map<String, String> out = new java.util.HashMap<>(map);
    out.put(key, value);
    return out;
  }

  @Test
  void outOfRange_namesRangeValueAndSource() {
    StartupException e =
        assertThrows(
            StartupException.class,
            () -> ServerConfig.resolve(Map.of(), Map.of("SWITCHBOARD_MAX_BATCH", "5000")));
    assertEquals(
        "max-batch must be 1..1000, got 5000 (from SWITCHBOARD_MAX_BATCH)", e.getMessage());
    StartupException port =
        assertThrows(StartupException.class, () -> ServerConfig.forTests().withPort(70000));
    assertEquals("port must be 0..65535, got 70000", port.getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"soon", "0s", "2h"})
  void routingDurations_outsideTheRouterRange_areRefusedNamingTheRange(String value) {
    StartupException e =
        assertThrows(
            StartupException.class,
            () -> ServerConfig.resolve(Map.of("routing-offer-timeout", value), Map.of()));
    assertEquals(
        "routing-offer-timeout must be a duration of 1s..1h (such as 500ms, 30s, 5m or 1h), got '"
            + value
            + "' (from --routing-offer-timeout)",
        e.getMessage());
  }

  @Test
  void badRoutingStrategyAttribute_namesTheSettingAndSource() {
    StartupException e =
        assertThrows(
            StartupException.class,
            () ->
                ServerConfig.resolve(
                    Map.of(), Map.of("SWITCHBOARD_ROUTING_STRATEGY", "highest:no spaces")));
    assertTrue(
        e.getMessage().startsWith("routing-strategy attribute must match")
            && e.getMessage().endsWith("(from SWITCHBOARD_ROUTING_STRATEGY)"),
        e.getMessage());
  }

  @Test
  void wrongSchemePostgresUrl_doesNotEchoItsPassword() {
    StartupException query =
        assertThrows(
            StartupException.class,
            () ->
                ServerConfig.resolve(
                    Map.of(),
                    Map.of(
                        "SWITCHBOARD_POSTGRES_URL",
                        "postgresql://db:5432/sb?user=sb&password=hunter2&ssl=true")));
    assertEquals(
        "postgres-url must be a JDBC URL starting with jdbc:postgresql:, got"
            + " 'postgresql://db:5432/sb?user=sb&password=***&ssl=true' (from"
            + " SWITCHBOARD_POSTGRES_URL)",
        query.getMessage());
    StartupException userInfo =
        assertThrows(
            StartupException.class,
            () ->
                ServerConfig.resolve(
                    Map.of("postgres-url", "postgres://sb:hunter2@db:5432/sb"), Map.of()));
    assertFalse(userInfo.getMessage().contains("hunter2"), userInfo.getMessage());
    assertTrue(
        userInfo.getMessage().contains("'postgres://sb:***@db:5432/sb'"), userInfo.getMessage());
    StartupException inCode =
        assertThrows(
            StartupException.class,
            () -> new ServerConfig.Postgres("mysql://u:hunter2@db/x?password=hunter2", "u", "p"));
    assertFalse(inCode.getMessage().contains("hunter2"), inCode.getMessage());
  }

  @Test
  void malformedAdvertiseUrl_withUserInfo_doesNotEchoItsPassword() {
    StartupException e =
        assertThrows(
            StartupException.class,
            () ->
                ServerConfig.resolve(
                    with(pg(), "advertise-url", "http://admin:hunter2@sb-1:8080"), Map.of()));
    assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
    assertTrue(e.getMessage().contains("(from --advertise-url)"), e.getMessage());
  }

  @Test
  void secrets_neverInToString() {
    ServerConfig c =
        ServerConfig.resolve(
            Map.of("postgres-url", "jdbc:postgresql://sb:url-secret@db/x?password=param-secret"),
            Map.of(
                "SWITCHBOARD_POSTGRES_PASSWORD", "pw-secret",
                "SWITCHBOARD_SQS_ACCESS_KEYS", "AKID1:key-secret"));
    String text = c.toString() + c.postgres().orElseThrow();
    for (String secret : List.of("url-secret", "param-secret", "pw-secret", "key-secret")) {
      assertFalse(text.contains(secret), text);
    }
    assertTrue(text.contains("postgres-password=***") && text.contains("AKID1"), text);
    assertEquals("pw-secret", c.postgres().orElseThrow().password());
  }

  @Test
  void get_ofASettingWithoutValue_isRefused_findIsEmpty() {
    ServerConfig c = ServerConfig.defaults();
    assertTrue(c.find(Settings.POSTGRES_URL).isEmpty());
    assertThrows(java.util.NoSuchElementException.class, () -> c.get(Settings.POSTGRES_URL));
    assertEquals(Duration.ofSeconds(5), c.get(Settings.ROUTING_LEASE));
  }

  @Test
  void redact_hidesUrlPasswordsOnly() {
    assertEquals("jdbc:postgresql://db/x?user=a", Redact.url("jdbc:postgresql://db/x?user=a"));
    assertEquals(
        "jdbc:postgresql://db/x?PASSWORD=***&user=a",
        Redact.url("jdbc:postgresql://db/x?PASSWORD=s3&user=a"));
    assertEquals("http://u:***@h:1/p", Redact.url("http://u:p:w@h:1/p"));
    assertEquals("http://u@h/p", Redact.url("http://u@h/p"));
  }
}
