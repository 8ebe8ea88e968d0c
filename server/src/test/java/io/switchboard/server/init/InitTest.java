package io.switchboard.server.init;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.switchboard.client.Credentials;
import io.switchboard.client.KeyWire;
import io.switchboard.client.RoutingClient;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.queue.DeadLetterPolicy;
import io.switchboard.queue.QueueInfo;
import io.switchboard.routing.Agent;
import io.switchboard.routing.Workflow;
import io.switchboard.routing.WorkflowTarget;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.server.Http;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.StartupException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --init FILE}: the declared setup at start, idempotently; {@code export} reads it back. */
class InitTest {

  @TempDir Path dir;

  static final String ADMIN = "AKINITADMIN";
  static final String SECRET = "init-admin-secret-0123456789";

  /** The dead-letter queue comes after its source: the file's order is not the creation order. */
  static final String SETUP =
      """
      queues:
        orders:
          visibilityTimeoutSeconds: 45
          deadLetter: {target: orders-dlq, maxReceiveCount: 5}
          maxDepth: 1000
          overflow: dropOldest
          keyLimit: {maxConcurrent: 4}
        orders-dlq:
          retentionSeconds: 1209600
        jobs.fifo:
          contentBasedDeduplication: true
      workspaces:
        centre:
          offerTimeoutSeconds: 20
          activities:
            - {name: Ready, available: true}
            - {name: Lunch, available: false}
            - {name: offline, available: false}
          taskQueues:
            billing: {workerExpression: "skills HAS 'billing'"}
            general: {}
          workflows:
            support:
              filters:
                - name: billing
                  expression: "topic = 'billing'"
                  targets: [{queue: billing, timeoutSeconds: 30}, {queue: general}]
              defaultFilter: {targets: [{queue: general}]}
          agents:
            ann: {attributes: {skills: [billing], level: 3}, capacity: {voice: 1}, activity: Ready}
        default:
          taskQueues:
            support: {}
      keys:
        AKINITADMIN:
          name: operator
          secret: init-admin-secret-0123456789
          grants: [{actions: [admin], resource: "*"}]
      """;

  private SwitchboardServer start(Path data, String yaml) throws Exception {
    Path file = dir.resolve("init-" + System.nanoTime() + ".yaml");
    Files.writeString(file, yaml);
    return SwitchboardServer.start(
        ServerConfig.resolve(
            Map.of("port", "0", "data-dir", data.toString(), "init", file.toString()), Map.of()));
  }

  private static SwitchboardClient client(SwitchboardServer server) {
    return SwitchboardClient.builder()
        .baseUri(server.uri())
        .credentials(Credentials.of(ADMIN, SECRET))
        .build();
  }

  /** What a start could have written, read through the API. */
  record Snapshot(
      List<QueueInfo> queues,
      List<WorkspaceDefinition> workspaces,
      List<Workflow> workflows,
      List<List<Object>> agents,
      List<KeyWire.AccessKey> keys) {}

  private static Snapshot snapshot(SwitchboardClient c) {
    return new Snapshot(
        c.listQueues(""),
        c.workspaces().list(),
        c.workspaces().workflows("centre"),
        c.workspace("centre").agents().stream()
            .map(
                a ->
                    List.<Object>of(
                        a.id(), a.attributes(), a.capacity(), a.activity(), a.activitySince()))
            .toList(),
        c.listKeys());
  }

  @Test
  void freshServer_createsQueuesInDependencyOrderWorkspacesAgentsAndKeys() throws Exception {
    try (SwitchboardServer server = start(dir.resolve("data"), SETUP);
        SwitchboardClient c = client(server)) {
      QueueInfo orders = c.queue("orders");
      assertEquals(Duration.ofSeconds(45), orders.config().visibilityTimeout());
      assertEquals(Optional.of(DeadLetterPolicy.of("orders-dlq", 5)), orders.config().deadLetter());
      assertEquals(java.util.OptionalInt.of(4), orders.config().keyLimit());
      assertEquals(Duration.ofDays(14), c.queue("orders-dlq").config().retention());
      assertTrue(c.queue("jobs.fifo").config().contentBasedDeduplication());
      WorkspaceDefinition centre = c.workspaces().get("centre");
      assertEquals(Duration.ofSeconds(20), centre.settings().offerTimeout());
      assertEquals(3, centre.activities().size());
      assertEquals(
          Optional.of("skills HAS 'billing'"),
          centre.queue("billing").orElseThrow().workerExpression());
      Workflow support = c.workspaces().workflow("centre", "support");
      assertEquals("topic = 'billing'", support.filters().get(0).expression());
      assertEquals(
          List.of("billing", "general"),
          support.filters().get(0).targets().stream().map(WorkflowTarget::queue).toList());
      assertEquals(
          Optional.of(Duration.ofSeconds(30)), support.filters().get(0).targets().get(0).timeout());
      Agent ann = c.workspace("centre").agent("ann");
      assertEquals("Ready", ann.activity());
      assertEquals(Map.of("voice", 1), ann.capacity());
      assertTrue(c.workspaces().get("default").queue("support").isPresent());
      // the declared key is what the client signs with: the server is no longer keyless
      assertEquals("operator", c.listKeys().get(0).name());
    }
  }

  @Test
  void secondStart_withTheSameFile_writesNothing() throws Exception {
    Path data = dir.resolve("data");
    Snapshot first;
    try (SwitchboardServer server = start(data, SETUP);
        SwitchboardClient c = client(server)) {
      first = snapshot(c);
    }
    try (SwitchboardServer server = start(data, SETUP);
        SwitchboardClient c = client(server)) {
      // same configurations, same creation times (queues, keys), same definitions and agents
      assertEquals(first, snapshot(c));
    }
  }

  @Test
  void changedQueue_isAppliedAndTheRestLeftAlone() throws Exception {
    Path data = dir.resolve("data");
    Snapshot first;
    try (SwitchboardServer server = start(data, SETUP);
        SwitchboardClient c = client(server)) {
      first = snapshot(c);
    }
    String changed =
        SETUP
            .replace("visibilityTimeoutSeconds: 45", "visibilityTimeoutSeconds: 90")
            .replace("level: 3", "level: 4");
    try (SwitchboardServer server = start(data, changed);
        SwitchboardClient c = client(server)) {
      QueueInfo orders = c.queue("orders");
      assertEquals(Duration.ofSeconds(90), orders.config().visibilityTimeout());
      assertEquals(first.queues().get(1).createdAt(), orders.createdAt());
      assertEquals(
          4L, ((Number) c.workspace("centre").agent("ann").attributes().get("level")).longValue());
      assertEquals(first.keys(), c.listKeys());
    }
  }

  @Test
  void changedQueue_thatTheEngineRefuses_stopsTheStartNamingQueueFieldOldAndNew() throws Exception {
    Path data = dir.resolve("data");
    try (SwitchboardServer server = start(data, SETUP)) {
      // created
    }
    String refused =
        SETUP.replace(
            "deadLetter: {target: orders-dlq, maxReceiveCount: 5}",
            "deadLetter: {target: jobs.fifo, maxReceiveCount: 5}");
    StartupException e = assertThrows(StartupException.class, () -> start(data, refused).stop());
    assertTrue(e.getMessage().contains("queue 'orders' cannot be changed"), e.getMessage());
    assertTrue(
        e.getMessage()
            .contains(
                "deadLetter from {\"target\":\"orders-dlq\",\"maxReceiveCount\":5} to"
                    + " {\"target\":\"jobs.fifo\",\"maxReceiveCount\":5}"),
        e.getMessage());
    assertTrue(e.getMessage().contains("must be standard"), e.getMessage());
    try (SwitchboardServer server = start(data, SETUP);
        SwitchboardClient c = client(server)) {
      assertEquals("orders-dlq", c.queue("orders").config().deadLetter().orElseThrow().target());
    }
  }

  @Test
  void unknownField_isRefusedAtStartListingTheKnownOnes_andNothingIsCreated() throws Exception {
    Path data = dir.resolve("data");
    String bad = SETUP.replace("visibilityTimeoutSeconds: 45", "visibilityTimeout: 45");
    StartupException e = assertThrows(StartupException.class, () -> start(data, bad).stop());
    String m = e.getMessage();
    assertTrue(m.startsWith("init file "), m);
    assertTrue(m.contains("unknown field 'visibilityTimeout' in queue 'orders'"), m);
    assertTrue(m.contains("known fields: order, visibilityTimeoutSeconds"), m);
    try (SwitchboardServer server =
            SwitchboardServer.start(
                ServerConfig.resolve(Map.of("port", "0", "data-dir", data.toString()), Map.of()));
        SwitchboardClient c = SwitchboardClient.create(server.uri())) {
      assertEquals(List.of(), c.listQueues(""));
    }
  }

  @Test
  void aCallbackUrlNamingAMetadataAddress_stopsTheStart_andNothingIsCreated() throws Exception {
    Path data = dir.resolve("data");
    String line = "defaultFilter: {targets: [{queue: general}]}";
    int at = SETUP.indexOf(line);
    String indent = " ".repeat(at - SETUP.lastIndexOf('\n', at) - 1);
    String bad =
        SETUP.replace(
            line,
            line + "\n" + indent + "assignmentCallbackUrl: \"http://169.254.169.254/latest/\"");
    assertTrue(bad.contains("169.254.169.254"), bad);
    StartupException e = assertThrows(StartupException.class, () -> start(data, bad).stop());
    String m = e.getMessage();
    assertTrue(m.startsWith("init file "), m);
    assertTrue(m.contains("workflow 'support' of workspace 'centre'"), m);
    assertTrue(m.contains("169.254.169.254") && m.contains("link-local"), m);
    try (SwitchboardServer server =
            SwitchboardServer.start(
                ServerConfig.resolve(Map.of("port", "0", "data-dir", data.toString()), Map.of()));
        SwitchboardClient c = SwitchboardClient.create(server.uri())) {
      assertEquals(List.of(), c.listQueues(""));
    }
  }

  @Test
  void badFiles_areRefusedWithTheEntryAndWhatIsWrong() throws Exception {
    Map<String, String> cases = new HashMap<>();
    cases.put("queues: {orders: {visibilityTimeoutSeconds: 99999}}", "queue 'orders'");
    cases.put(
        "queues: {a: {deadLetter: {target: b, maxReceiveCount: 1}},"
            + " b: {deadLetter: {target: a, maxReceiveCount: 1}}}",
        "cycle: a -> b -> a");
    cases.put("queus: {}", "unknown field 'queus'");
    cases.put("queues: [a]", "queues");
    cases.put("keys: {AK1: {grants: [{actions: [fly], resource: '*'}], secret: s}}", "key 'AK1'");
    cases.put(
        "keys: {AK1: {grants: [{actions: [admin], resource: '*'}], secret: s, account: '12'}}",
        "12-digit AWS account id the key belongs to in SQS queue policies, got '12'");
    cases.put(
        "workspaces: {default: {offerTimeoutSeconds: 3}}",
        "takes only taskQueues, workflows and agents");
    cases.put("queues: {a: {}, a: {}}", "Duplicate field 'a'");
    cases.put("queues: {orders: {order: sideways}}", "order must be one of");
    int i = 0;
    for (var c : cases.entrySet()) {
      Path data = dir.resolve("bad" + i++);
      StartupException e =
          assertThrows(StartupException.class, () -> start(data, c.getKey()).stop(), c.getKey());
      assertTrue(e.getMessage().contains(c.getValue()), c.getKey() + " -> " + e.getMessage());
    }
  }

  @Test
  void secretByReference_isReadFromTheEnvironment_andNeverShown() {
    var root =
        yaml(
            "keys: {AK1: {secret: '${ENV:AK1_SECRET}', grants: [{actions: [admin], resource: '*'}]}}");
    InitFile.Setup s = InitFile.parse(root, Map.of("AK1_SECRET", "from-the-env")::get);
    assertEquals(Optional.of("from-the-env"), s.keys().get(0).secret());
    assertFalse(s.keys().toString().contains("from-the-env"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> InitFile.parse(root, name -> null));
    assertTrue(
        e.getMessage().contains("names the environment variable AK1_SECRET, which is not set"),
        e.getMessage());
  }

  @Test
  void badFiles_neverShowASecret() throws Exception {
    List<String> files =
        List.of(
            "keys:\n  AK1:\n    secret: 98765432123\n    grants: [{actions: [admin], resource: '*'}]\n",
            "keys:\n  AK1:\n    secret: s3cr3t-value: [\n    grants: []\n",
            "keys:\n  AK1:\n    secret: \"s3cr3t-value\n",
            "keys:\n  AK1:\n    secret: s3cr3t-value\n    secret: s3cr3t-value\n"
                + "    grants: [{actions: [admin], resource: '*'}]\n");
    int i = 0;
    for (String file : files) {
      Path data = dir.resolve("secret" + i++);
      StartupException e = assertThrows(StartupException.class, () -> start(data, file).stop());
      assertFalse(e.getMessage().contains("s3cr3t"), e.getMessage());
      assertFalse(e.getMessage().contains("98765432123"), e.getMessage());
      if (file.contains("[") && !file.contains("grants: [{")) {
        assertTrue(e.getMessage().contains("not valid YAML"), e.getMessage());
        assertTrue(e.getMessage().contains("at line 3"), e.getMessage());
      }
    }
  }

  @Test
  void changedKey_isRefusedNamingTheField_neverTheSecret() throws Exception {
    Path data = dir.resolve("data");
    try (SwitchboardServer server = start(data, SETUP)) {
      // created
    }
    String changed =
        SETUP.replace("name: operator", "name: ops").replace(SECRET, "another-secret-value");
    StartupException e = assertThrows(StartupException.class, () -> start(data, changed).stop());
    assertTrue(e.getMessage().contains("key 'AKINITADMIN' exists otherwise"), e.getMessage());
    assertTrue(e.getMessage().contains("name from operator to ops"), e.getMessage());
    assertTrue(e.getMessage().contains("the secret differs"), e.getMessage());
    assertFalse(e.getMessage().contains("another-secret-value"));
    assertFalse(e.getMessage().contains(SECRET));
  }

  @Test
  void export_thenInit_roundTrips() throws Exception {
    String exported;
    try (SwitchboardServer server = start(dir.resolve("a"), SETUP);
        SwitchboardClient c = client(server)) {
      exported = InitFile.export(c);
    }
    assertFalse(exported.contains(SECRET), exported);
    assertTrue(exported.contains("orders-dlq"), exported);
    assertTrue(exported.contains("maxConcurrent: 4"), exported);
    // export writes no secret: a fresh server needs one for each key it creates
    ObjectNode tree = (ObjectNode) yaml(exported);
    ((ObjectNode) tree.get("keys").get(ADMIN)).put("secret", SECRET);
    String withSecret = new YAMLMapper().writeValueAsString(tree);
    try (SwitchboardServer server = start(dir.resolve("b"), withSecret);
        SwitchboardClient c = client(server)) {
      assertEquals(exported, InitFile.export(c));
    }
    // and the export applied to the server it came from changes nothing
    Snapshot before;
    try (SwitchboardServer server = start(dir.resolve("a"), SETUP);
        SwitchboardClient c = client(server)) {
      before = snapshot(c);
    }
    try (SwitchboardServer server = start(dir.resolve("a"), exported);
        SwitchboardClient c = client(server)) {
      assertEquals(before, snapshot(c));
    }
  }

  /**
   * What a server holds that the init file can declare, compared as state, not as text: queues,
   * workspaces with their settings (the refusal settings included), activities, task queues and
   * workflows, every agent with its attributes, capacity and activity (in {@code default} too), and
   * the queues and keys (without their creation times, which are the server's).
   */
  record State(
      List<List<Object>> queues,
      List<WorkspaceDefinition> workspaces,
      List<Workflow> workflows,
      List<List<Object>> agents,
      List<List<Object>> keys) {}

  private static State state(SwitchboardClient c) {
    List<List<Object>> agents = new java.util.ArrayList<>();
    for (WorkspaceDefinition d : c.workspaces().list()) {
      RoutingClient r = d.name().equals("default") ? c.routing() : c.workspace(d.name());
      for (io.switchboard.routing.Agent a : r.agents()) {
        agents.add(List.of(d.name(), a.id(), a.attributes(), a.capacity(), a.activity()));
      }
    }
    return new State(
        c.listQueues("").stream()
            .map(q -> List.<Object>of(q.name(), q.grouped(), q.config())) // not createdAt
            .toList(),
        c.workspaces().list(),
        c.workspaces().workflows("centre"),
        agents,
        c.listKeys().stream()
            .map(
                k ->
                    java.util.Arrays.<Object>asList(
                        k.accessKeyId(), k.name(), k.grants(), k.agent()))
            .toList());
  }

  @Test
  void export_thenInitOnAFreshServer_givesTheSameState_agentsActivitiesAndSettingsIncluded()
      throws Exception {
    String exported;
    State before;
    try (SwitchboardServer server = start(dir.resolve("a"), SETUP);
        SwitchboardClient c = client(server)) {
      // changes made at run time, after the file: the export must carry them
      c.workspace("centre").activity("ann", "Lunch");
      c.workspace("centre")
          .createAgent(
              io.switchboard.routing.NewAgent.builder("bo").capacity("chat", 2).build(), "Ready");
      c.workspaces()
          .configure(
              "centre",
              c.workspaces()
                  .get("centre")
                  .settings()
                  .withMissLimit(Optional.of(2))
                  .withAutoAccept(Optional.of(java.util.Set.of("chat")))
                  .withStatsWindow(Optional.of(java.time.Duration.ofMinutes(10)))
                  .withRestPeriod(java.time.Duration.ofSeconds(45))
                  .withRejectActivity(Optional.of("Lunch"))
                  .withTimeoutActivity(Optional.of("Lunch")));
      c.routing()
          .createAgent(
              io.switchboard.routing.NewAgent.builder("dee")
                  .capacity("voice", 1)
                  .presence(io.switchboard.routing.Presence.available())
                  .build());
      before = state(c);
      exported = InitFile.export(c);
    }
    assertTrue(
        before.agents().stream().anyMatch(a -> a.get(1).equals("ann") && a.get(4).equals("Lunch")),
        "ann is at lunch, not in the default activity: " + before.agents());
    ObjectNode tree = (ObjectNode) yaml(exported);
    ((ObjectNode) tree.get("keys").get(ADMIN)).put("secret", SECRET);
    String withSecret = new YAMLMapper().writeValueAsString(tree);
    try (SwitchboardServer server = start(dir.resolve("fresh"), withSecret);
        SwitchboardClient c = client(server)) {
      assertEquals(before, state(c));
    }
  }

  /** The declared key is what lets a durable server start bound off loopback without others. */
  @Test
  void declaredKeys_letADurableServerStartOffLoopback_andEveryRequestIsChecked() throws Exception {
    Path file = dir.resolve("keys.yaml");
    Files.writeString(
        file,
        "keys: {AKINITADMIN: {secret: "
            + SECRET
            + ", grants: [{actions: [admin], resource: '*'}]}}");
    ServerConfig exposed =
        ServerConfig.resolve(
            Map.of(
                "port",
                "0",
                "bind",
                "0.0.0.0",
                "data-dir",
                dir.resolve("data").toString(),
                "init",
                file.toString()),
            Map.of());
    try (SwitchboardServer server = SwitchboardServer.start(exposed);
        Http h = new Http(server.uri());
        SwitchboardClient c = client(server)) {
      assertEquals(401, h.get("/v1/queues").status());
      assertEquals(List.of(), c.listQueues(""));
    }
  }

  @Test
  void theExampleOfDeployMd_startsAServer() throws Exception {
    String doc = Files.readString(Path.of("..", "docs", "deploy.md"));
    int from = doc.indexOf("```yaml\nqueues:") + "```yaml\n".length();
    String example = doc.substring(from, doc.indexOf("```", from));
    InitFile.Setup parsed =
        InitFile.parse(
            yaml(example),
            Map.of(
                    "SWITCHBOARD_CI_SECRET",
                    "a",
                    "ANN_SECRET",
                    "b",
                    "SWITCHBOARD_ADMIN_SECRET",
                    "c",
                    "SWITCHBOARD_PARTNER_SECRET",
                    "d")
                ::get);
    assertEquals(4, parsed.queues().size());
    String literal =
        example
            .replace("${ENV:SWITCHBOARD_ADMIN_SECRET}", "ops-secret")
            .replace("${ENV:SWITCHBOARD_CI_SECRET}", "ci-secret")
            .replace("${ENV:ANN_SECRET}", "ann-secret")
            .replace("${ENV:SWITCHBOARD_PARTNER_SECRET}", "partner-secret");
    try (SwitchboardServer server = start(dir.resolve("data"), literal);
        SwitchboardClient c =
            SwitchboardClient.builder()
                .baseUri(server.uri())
                .credentials(Credentials.of("AKCIPIPELINE", "ci-secret"))
                .build()) {
      assertFalse(
          c.send("orders", io.switchboard.queue.NewMessage.builder("{}").build()).id().isEmpty());
      SwitchboardClient ann =
          SwitchboardClient.builder()
              .baseUri(server.uri())
              .credentials(Credentials.of("AKANN", "ann-secret"))
              .build();
      assertEquals("Ready", ann.workspace("centre").agent("ann").activity());
      ann.close();
      // the example's admin key administers the server it starts: it lists the keys
      try (Http h = new Http(server.uri())) {
        Http.Answer keys =
            h.send(
                "GET",
                "/v1/keys",
                null,
                Map.of(
                    "Authorization",
                    "Basic "
                        + java.util.Base64.getEncoder()
                            .encodeToString(
                                "AKOPS:ops-secret"
                                    .getBytes(java.nio.charset.StandardCharsets.UTF_8))));
        assertEquals(200, keys.status(), keys.toString());
        assertTrue(keys.text().contains("AKCIPIPELINE"), keys.text());
      }
    }
  }

  private static com.fasterxml.jackson.databind.JsonNode yaml(String text) {
    try {
      return new YAMLMapper().readTree(text);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
