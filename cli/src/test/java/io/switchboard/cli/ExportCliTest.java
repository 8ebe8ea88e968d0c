package io.switchboard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.cli.CliServer.Run;
import io.switchboard.client.Credentials;
import io.switchboard.client.KeyWire;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.queue.QueueConfig;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.TaskQueue;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.auth.AccessKeys;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code switchboard export} over the API, and {@code server --init} reading what it wrote. */
class ExportCliTest {

  @TempDir Path dir;

  /** Runs the command line against {@code server} as the admin key with {@code secret}. */
  private static Run run(SwitchboardServer server, String secret, String... args) {
    String[] all = Arrays.copyOf(args, args.length + 4);
    all[args.length] = "--access-key";
    all[args.length + 1] = "AKADMIN";
    all[args.length + 2] = "--secret-key";
    all[args.length + 3] = secret;
    return CliServer.run(server, all);
  }

  private static ServerConfig config() {
    return ServerConfig.forTests()
        .with(Settings.ACCESS_KEYS, AccessKeys.parse("AKADMIN:admin-secret"));
  }

  @Test
  void export_writesTheSetupWithoutSecrets_andInitOnAnotherServerRecreatesIt() throws Exception {
    Path file = dir.resolve("setup.yaml");
    String printed;
    String keyId;
    try (SwitchboardServer source = SwitchboardServer.start(config());
        SwitchboardClient c =
            SwitchboardClient.builder()
                .baseUri(source.uri())
                .credentials(Credentials.of("AKADMIN", "admin-secret"))
                .build()) {
      c.createQueue("orders-dlq", QueueConfig.defaults());
      c.createQueue(
          "orders",
          QueueConfig.builder()
              .visibilityTimeout(Duration.ofSeconds(45))
              .deadLetter("orders-dlq", 3)
              .build());
      c.workspaces().create("centre", io.switchboard.routing.WorkspaceSettings.DEFAULTS, List.of());
      c.workspaces().putQueue("centre", TaskQueue.named("billing"));
      c.workspace("centre")
          .createAgent(NewAgent.builder("ann").capacity("voice", 1).build(), "available");
      KeyWire.AccessKey key =
          c.createKey("ci", List.of(new KeyWire.Grant(List.of("queue:send"), "orders*")));
      keyId = key.accessKeyId();

      Run r = run(source, "admin-secret", "export");
      assertEquals(0, r.code(), r.err());
      printed = r.out();
      assertTrue(printed.contains("visibilityTimeoutSeconds: 45"), printed);
      assertTrue(printed.contains("target: orders-dlq"), printed);
      assertTrue(printed.contains("billing: {}"), printed);
      assertTrue(printed.contains("ann:"), printed);
      assertTrue(printed.contains(keyId + ":"), printed);
      assertFalse(printed.contains(key.secretAccessKey()), "never a secret");
      assertFalse(printed.contains("AKADMIN"), "configured keys are declared where they are");

      Run toFile = run(source, "admin-secret", "export", "--output", file.toString());
      assertEquals(0, toFile.code(), toFile.err());
      assertEquals("", toFile.out());
      assertEquals(printed, Files.readString(file));
    }
    // a fresh server needs the secret of each key it creates: given by reference
    String withSecret =
        Files.readString(file).replace("    name: ci\n", "    name: ci\n    secret: s3cret-ci\n");
    assertNotEquals(printed, withSecret);
    Files.writeString(file, withSecret);
    try (SwitchboardServer target = SwitchboardServer.start(config().with(Settings.INIT, file))) {
      Run again = run(target, "admin-secret", "export");
      assertEquals(0, again.code(), again.err());
      assertEquals(printed, again.out());
    }
  }

  @Test
  void export_withAWrongSecret_isRefusedAndWritesNothing() throws Exception {
    Path file = dir.resolve("setup.yaml");
    try (SwitchboardServer server = SwitchboardServer.start(config())) {
      Run r = run(server, "wrong", "export", "-o", file.toString());
      assertNotEquals(0, r.code());
      assertTrue(r.err().contains("UNAUTHENTICATED"), r.err());
      assertFalse(Files.exists(file));
    }
  }
}
