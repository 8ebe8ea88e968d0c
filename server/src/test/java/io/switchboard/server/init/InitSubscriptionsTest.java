package io.switchboard.server.init;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.switchboard.client.PushWire;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.StartupException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Push subscriptions in the init file (docs/deploy.md, "Declare your setup"): created once, changed
 * where the file changes, checked before anything of the file is applied, secrets and header values
 * by reference and never shown, and written by the export with their header values as references.
 */
class InitSubscriptionsTest {

  @TempDir Path dir;

  private static final String SECRET = "a-literal-secret-0123456789";

  private static String file(String rate, String url) {
    return """
        queues:
          tasks: {order: lifo}
        subscriptions:
          tasks:
            legacy:
              url: "%s"
              maxConcurrent: 1
              maxPerSecond: %s
              secret: %s
        """
        .formatted(url, rate, SECRET);
  }

  private SwitchboardServer start(Path data, String yaml) throws Exception {
    Path f = dir.resolve("init-" + System.nanoTime() + ".yaml");
    Files.writeString(f, yaml);
    return SwitchboardServer.start(
        ServerConfig.resolve(
            Map.of("port", "0", "data-dir", data.toString(), "init", f.toString()), Map.of()));
  }

  @Test
  void aDeclaredSubscription_isCreatedOnce_changedWithTheFile_andKeepsAPauseMadeOverTheApi()
      throws Exception {
    Path data = dir.resolve("data");
    String createdAt;
    try (SwitchboardServer server = start(data, file("50", "http://127.0.0.1:9/hook"));
        SwitchboardClient c = SwitchboardClient.create(server.uri())) {
      List<PushWire.Subscription> subs = c.listSubscriptions("tasks");
      assertEquals(1, subs.size());
      PushWire.Subscription s = subs.get(0);
      assertEquals("legacy", s.name());
      assertEquals("http://127.0.0.1:9/hook", s.url());
      assertEquals(50.0, s.maxPerSecond());
      assertEquals(1, s.maxConcurrent());
      assertEquals(null, s.secret(), "an answer never shows the secret");
      createdAt = s.createdAt();
      c.pauseSubscription("tasks", "legacy", true);
    }
    try (SwitchboardServer server = start(data, file("50", "http://127.0.0.1:9/hook"));
        SwitchboardClient c = SwitchboardClient.create(server.uri())) {
      PushWire.Subscription s = c.subscription("tasks", "legacy");
      assertEquals(createdAt, s.createdAt(), "the same file changes nothing");
      assertEquals(Boolean.TRUE, s.paused(), "a file without 'paused' keeps the API's pause");
    }
    try (SwitchboardServer server = start(data, file("20", "http://127.0.0.1:9/hook"));
        SwitchboardClient c = SwitchboardClient.create(server.uri())) {
      PushWire.Subscription s = c.subscription("tasks", "legacy");
      assertEquals(20.0, s.maxPerSecond(), "the file's change is applied");
      assertEquals(createdAt, s.createdAt());
    }
  }

  @Test
  void aSubscriptionTheApiWouldRefuse_stopsTheStart_andNothingOfTheFileIsApplied()
      throws Exception {
    Path data = dir.resolve("data");
    StartupException linkLocal =
        assertThrows(
            StartupException.class,
            () -> start(data, file("50", "http://169.254.169.254/latest/")).stop());
    assertTrue(
        linkLocal.getMessage().contains("subscription 'legacy' of queue 'tasks'")
            && linkLocal.getMessage().contains("link-local"),
        linkLocal.getMessage());
    StartupException rate =
        assertThrows(
            StartupException.class, () -> start(data, file("0", "http://127.0.0.1:9/h")).stop());
    assertTrue(rate.getMessage().contains("maxPerSecond"), rate.getMessage());
    String undeclared =
        """
        subscriptions:
          nowhere:
            legacy: {url: "http://127.0.0.1:9/hook"}
        """;
    StartupException missing =
        assertThrows(StartupException.class, () -> start(data, undeclared).stop());
    assertTrue(
        missing.getMessage().contains("neither declared in the file nor on the server"),
        missing.getMessage());
    assertFalse(linkLocal.getMessage().contains(SECRET));
    try (SwitchboardServer server =
            SwitchboardServer.start(
                ServerConfig.resolve(Map.of("port", "0", "data-dir", data.toString()), Map.of()));
        SwitchboardClient c = SwitchboardClient.create(server.uri())) {
      assertEquals(List.of(), c.listQueues(""), "the refused files created nothing");
    }
  }

  @Test
  void secretAndHeaderValues_byReference_areResolved_neverShown_andExportedAsReferences()
      throws Exception {
    var root =
        new YAMLMapper()
            .readTree(
                """
                subscriptions:
                  tasks:
                    legacy:
                      url: "https://hooks.example.com/in"
                      headers: {Authorization: "${ENV:HOOK_TOKEN}", X-Team: blue}
                      secret: "${ENV:HOOK_SECRET}"
                """);
    Map<String, String> env =
        Map.of("HOOK_TOKEN", "Bearer t0ken-value", "HOOK_SECRET", "from-the-env-0123456789");
    InitFile.Setup s = InitFile.parse(root, env::get);
    InitFile.DeclaredSubscription d = s.subscriptions().get(0);
    assertEquals("tasks", d.queue());
    assertEquals(Optional.of("from-the-env-0123456789"), d.secret());
    assertEquals(
        Map.of("Authorization", "Bearer t0ken-value", "X-Team", "blue"),
        d.subscription().headers());
    assertFalse(s.subscriptions().toString().contains("from-the-env"));
    IllegalArgumentException unset =
        assertThrows(
            IllegalArgumentException.class,
            () -> InitFile.parse(root, Map.of("HOOK_SECRET", "from-the-env-0123456789")::get));
    assertTrue(unset.getMessage().contains("HOOK_TOKEN, which is not set"), unset.getMessage());

    String exported =
        InitFile.export(
            List.of(),
            List.of(),
            Map.of(),
            List.of(),
            Map.of("tasks", List.of(d.subscription().withSecret("from-the-env-0123456789"))));
    assertFalse(exported.contains("from-the-env"), exported);
    assertFalse(exported.contains("t0ken"), exported);
    String variable = InitFile.headerVariable("tasks", "legacy", "Authorization");
    assertEquals("SWITCHBOARD_HEADER_TASKS_LEGACY_AUTHORIZATION", variable);
    assertTrue(exported.contains("${ENV:" + variable + "}"), exported);
    InitFile.Setup again =
        InitFile.parse(
            new YAMLMapper().readTree(exported),
            Map.of(
                    variable,
                    "Bearer t0ken-value",
                    InitFile.headerVariable("tasks", "legacy", "X-Team"),
                    "blue")
                ::get);
    PushWire.Subscription back = again.subscriptions().get(0).subscription();
    assertEquals("https://hooks.example.com/in", back.url());
    assertEquals(d.subscription().headers(), back.headers());
    assertEquals(Optional.empty(), again.subscriptions().get(0).secret());
  }
}
