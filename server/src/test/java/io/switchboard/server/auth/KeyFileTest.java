package io.switchboard.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --access-keys-file}: YAML and properties, refused when others may read it or it is bad.
 */
class KeyFileTest {

  @TempDir Path dir;

  private static final boolean POSIX =
      FileSystems.getDefault().supportedFileAttributeViews().contains("posix");

  private Path write(String name, String text) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, text);
    if (POSIX) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }
    return file;
  }

  private static Principal orders(Map<String, Principal> keys) {
    return keys.get("AKIAORDERS");
  }

  private static Map<String, Principal> byId(List<Principal> keys) {
    return keys.stream().collect(Collectors.toMap(Principal::keyId, Function.identity()));
  }

  @Test
  void yaml_keysWithGrants_inBothGrantForms() throws IOException {
    Path file =
        write(
            "keys.yaml",
            """
            keys:
              - id: AKIAORDERS
                secret: "orders-secret"
                name: orders service
                grants:
                  - actions: [queue:send, queue:receive]
                    resource: "orders-*"
                  - "metrics:read on *"
              - id: AKIAANN
                secret: ann-secret
                agent: ann
                grants:
                  - routing:agent on default
              - id: AKIAPARTNER
                secret: partner-secret
                account: "111122223333"
                grants:
                  - queue:send on partner-*
            """);
    Map<String, Principal> keys = byId(KeyFile.read(file));
    assertEquals(Optional.of("111122223333"), keys.get("AKIAPARTNER").account());
    assertEquals(Optional.empty(), orders(keys).account(), "the server's account");
    Principal orders = keys.get("AKIAORDERS");
    assertEquals(Optional.of("orders service"), orders.name());
    assertTrue(orders.secretMatches("orders-secret"));
    assertTrue(orders.may(Access.queue(Action.QUEUE_RECEIVE, "orders-eu")));
    assertFalse(orders.may(Access.queue(Action.QUEUE_ADMIN, "orders-eu")));
    assertTrue(orders.may(Access.any(Action.METRICS_READ)));
    assertEquals(Optional.of("ann"), keys.get("AKIAANN").agent());
  }

  @Test
  void properties_keysWithGrants() throws IOException {
    Path file =
        write(
            "keys.properties",
            """
            AKIAORDERS.secret = orders-secret
            AKIAORDERS.name = orders service
            AKIAORDERS.grants = queue:send,queue:receive on orders-*; metrics:read on *
            AKIAANN.secret = ann-secret
            AKIAANN.agent = ann
            AKIAANN.grants = routing:agent on default
            """);
    Map<String, Principal> keys = byId(KeyFile.read(file));
    assertEquals(2, keys.size());
    assertTrue(keys.get("AKIAORDERS").may(Access.queue(Action.QUEUE_SEND, "orders-1")));
    assertTrue(keys.get("AKIAORDERS").may(Access.any(Action.METRICS_READ)));
    assertEquals(Optional.of("ann"), keys.get("AKIAANN").agent());
  }

  @Test
  void aFileOthersMayRead_isRefused_sayingWhatWasFoundAndTheFix() throws IOException {
    assumeTrue(POSIX, "POSIX permissions");
    Path file = write("keys.yaml", "keys: []\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    KeyFile.Invalid e = assertThrows(KeyFile.Invalid.class, () -> KeyFile.read(file));
    assertTrue(e.getMessage().contains("rw-r--r--"), e.getMessage());
    assertTrue(e.getMessage().contains("chmod 600 " + file), e.getMessage());
  }

  @Test
  void badFiles_areRefusedClearly_withoutEchoingSecrets() throws IOException {
    Map<String, String> cases =
        Map.of(
            "no-keys.yaml", "other: 1\n",
            "no-secret.yaml", "keys:\n  - id: AK1\n    grants: ['admin on *']\n",
            "bad-action.yaml",
                "keys:\n  - id: AK1\n    secret: hush-hush\n    grants: ['queue:write on *']\n",
            "agent-unbound.yaml",
                "keys:\n  - id: AK1\n    secret: hush-hush\n    grants: ['routing:agent on *']\n",
            "twice.properties", "AK1.secret=hush-hush\nAK1.grants=admin on *\nAK1.color=blue\n",
            "bad-account.properties",
                "AK1.secret=hush-hush\nAK1.grants=admin on *\nAK1.account=12-34\n",
            "not-yaml.yaml", "keys: [ {id: AK1, secret: hush-hush\n");
    Map<String, String> expected =
        Map.of(
            "no-keys.yaml", "'keys:' list",
            "no-secret.yaml", "'secret' is required",
            "bad-action.yaml", "unknown action 'queue:write'",
            "agent-unbound.yaml", "names no agent",
            "twice.properties", "AK1.color",
            "bad-account.properties", "in SQS queue policies, got '12-34'",
            "not-yaml.yaml", "not valid YAML");
    for (var c : cases.entrySet()) {
      Path file = write(c.getKey(), c.getValue());
      KeyFile.Invalid e = assertThrows(KeyFile.Invalid.class, () -> KeyFile.read(file), c.getKey());
      assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
      assertTrue(e.getMessage().contains(expected.get(c.getKey())), e.getMessage());
      assertFalse(e.getMessage().contains("hush-hush"), e.getMessage());
    }
    KeyFile.Invalid missing =
        assertThrows(KeyFile.Invalid.class, () -> KeyFile.read(dir.resolve("absent.yaml")));
    assertTrue(missing.getMessage().contains("no such file"), missing.getMessage());
  }
}
