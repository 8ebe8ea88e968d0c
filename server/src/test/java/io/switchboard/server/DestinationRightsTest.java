package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.queue.QueueEngine;
import io.switchboard.server.auth.Audit;
import io.switchboard.server.auth.Grant;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A key may put messages only into queues it may send to, however it names them: as a dead-letter
 * target, a redrive destination, the source a message is restored or redriven to ({@code
 * docs/security.md}, "Moving messages between queues"). Checked when the queue is named and again
 * when a message moves, so a key that loses its grant stops moving messages there; what is refused
 * stays where it was, and every refusal is an audit line.
 */
class DestinationRightsTest {

  private static final String TEAM = "AKTEAM";
  private static final String TEAM_GRANT = "queue:admin,queue:send,queue:receive on team-*";

  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final Logger audit = (Logger) LoggerFactory.getLogger(Audit.LOGGER);
  private final ManualClock clock = ManualClock.create();
  private SwitchboardServer server;
  private Http http;

  @BeforeEach
  void start() {
    lines.start();
    audit.addAppender(lines);
    audit.setLevel(Level.INFO);
    server =
        SwitchboardServer.start(
            ServerConfig.forTests(),
            c -> QueueEngine.builder().clock(clock).maxQueues(c.maxQueues()).build(),
            clock);
    server.keys().put(Principal.admin("AKADMIN", "admin-pw"));
    team(TEAM_GRANT);
    http = new Http(server.uri());
    for (String q : List.of("secret", "team-x", "team-src")) {
      assertEquals(201, admin("POST", "/v1/queues", "{\"name\":\"" + q + "\"}").status());
    }
  }

  @AfterEach
  void stop() {
    http.close();
    server.stop();
    audit.detachAppender(lines);
    audit.setLevel(null);
  }

  /** (Re)places the team key with {@code grants} (a grant change applies to its next request). */
  private void team(String... grants) {
    server
        .keys()
        .put(
            new Principal(
                TEAM,
                "team-pw",
                Optional.of("team"),
                java.util.Arrays.stream(grants).map(Grant::parse).toList(),
                Optional.empty()));
  }

  private static String basic(String id, String secret) {
    return "Basic "
        + Base64.getEncoder().encodeToString((id + ":" + secret).getBytes(StandardCharsets.UTF_8));
  }

  private Http.Answer as(String key, String secret, String method, String path, String body) {
    Map<String, String> headers =
        body == null
            ? Map.of("Authorization", basic(key, secret))
            : Map.of("Authorization", basic(key, secret), "Content-Type", "application/json");
    return http.send(method, path, body, headers);
  }

  private Http.Answer admin(String method, String path, String body) {
    return as("AKADMIN", "admin-pw", method, path, body);
  }

  private Http.Answer team(String method, String path, String body) {
    return as(TEAM, "team-pw", method, path, body);
  }

  /** The messages in {@code queue}, leased ones included, as the admin browses them. */
  private List<JsonNode> messages(String queue) {
    Http.Answer a = admin("GET", "/v1/queues/" + queue + "/messages?includeInvisible=true", null);
    assertEquals(200, a.status(), a.toString());
    List<JsonNode> out = new java.util.ArrayList<>();
    a.json().get("messages").forEach(out::add);
    return out;
  }

  private String send(String who, String queue, String body) {
    Http.Answer a =
        who.equals(TEAM)
            ? team("POST", "/v1/queues/" + queue + "/messages", "{\"body\":\"" + body + "\"}")
            : admin("POST", "/v1/queues/" + queue + "/messages", "{\"body\":\"" + body + "\"}");
    assertEquals(201, a.status(), a.toString());
    return a.json().get("id").asText();
  }

  private static void assertRefused(Http.Answer a, String queue) {
    assertEquals(403, a.status(), a.toString());
    assertEquals("DESTINATION_FORBIDDEN", a.code(), a.toString());
    String message = a.json().get("message").asText();
    assertTrue(message.contains("queue:send on queue '" + queue + "'"), message);
    assertTrue(message.contains(TEAM), message);
  }

  /** The audit lines refusing the team key queue:send on {@code queue}. */
  private List<String> refusals(String queue) {
    return lines.list.stream()
        .map(
            e ->
                e.getFormattedMessage()
                    + " "
                    + e.getKeyValuePairs().stream()
                        .map(kv -> kv.key + "=" + kv.value)
                        .collect(Collectors.joining(" ")))
        .filter(
            t ->
                t.contains("event=refused")
                    && t.contains("status=403")
                    && t.contains("key=" + TEAM)
                    && t.contains("action=queue:send")
                    && t.contains("resource=queue/" + queue)
                    && t.contains("Moving messages between queues"))
        .toList();
  }

  @Test
  void theAttacks_ofTheOutsideTest_areRefused_andNothingReachesSecret() {
    // a direct send is refused as before
    Http.Answer direct = team("POST", "/v1/queues/secret/messages", "{\"body\":\"x\"}");
    assertEquals(403, direct.status(), direct.toString());

    Http.Answer create =
        team(
            "POST",
            "/v1/queues",
            "{\"name\":\"team-y\",\"deadLetter\":{\"target\":\"secret\",\"maxReceiveCount\":1}}");
    assertRefused(create, "secret");
    assertEquals(404, admin("GET", "/v1/queues/team-y", null).status(), "nothing was created");

    assertEquals(201, team("POST", "/v1/queues", "{\"name\":\"team-y\"}").status());
    Http.Answer patch =
        team(
            "PATCH",
            "/v1/queues/team-y",
            "{\"deadLetter\":{\"target\":\"secret\",\"maxReceiveCount\":1}}");
    assertRefused(patch, "secret");
    Http.Answer after = admin("GET", "/v1/queues/team-y", null);
    assertTrue(
        after.json().path("config").path("deadLetter").path("target").isMissingNode(),
        "the configuration is unchanged: " + after);

    send(TEAM, "team-x", "to-redrive");
    Http.Answer redrive =
        team("POST", "/v1/queues/team-x/redrives", "{\"destination\":\"secret\"}");
    assertRefused(redrive, "secret");

    assertEquals(List.of(), messages("secret"), "nothing reached secret");
    assertEquals(1, messages("team-x").size(), "the message stayed in team-x");
    assertEquals(3, refusals("secret").size(), "one audit line per refusal: " + lines.list);
  }

  /** Puts a key with {@code grants} alone (secret "pw"). */
  private void key(String id, String grant) {
    server
        .keys()
        .put(
            new Principal(
                id, "pw", Optional.empty(), List.of(Grant.parse(grant)), Optional.empty()));
  }

  /** As the team key (then allowed to send to secret): team-y dead-letters into secret. */
  private void teamYDeadLettersIntoSecret() {
    team(TEAM_GRANT, "queue:send on secret");
    Http.Answer created =
        team(
            "POST",
            "/v1/queues",
            "{\"name\":\"team-y\",\"deadLetter\":{\"target\":\"secret\",\"maxReceiveCount\":1}}");
    assertEquals(201, created.status(), created.toString());
    key("AKCONSUMER", "queue:receive on team-y");
  }

  /** The consumer's receive of team-y with a 10 second lease: the ids it got. */
  private List<String> consumerReceives() {
    Http.Answer a =
        as(
            "AKCONSUMER",
            "pw",
            "POST",
            "/v1/queues/team-y/receive",
            "{\"maxMessages\":10,\"visibilityTimeoutSeconds\":10}");
    assertEquals(200, a.status(), "a receive-only consumer is admitted: " + a);
    List<String> ids = new java.util.ArrayList<>();
    a.json().get("messages").forEach(m -> ids.add(m.get("id").asText()));
    return ids;
  }

  @Test
  void aReceiveOnlyConsumer_ofAQueueWithADeadLetterTarget_receives_andItsMessageIsDeadLettered() {
    teamYDeadLettersIntoSecret();
    String id = send(TEAM, "team-y", "m1");
    assertEquals(List.of(id), consumerReceives());
    clock.advance(Duration.ofSeconds(11)); // the lease ends after the last allowed receive
    assertEquals(List.of(), messages("team-y"));
    List<JsonNode> moved = messages("secret");
    assertEquals(1, moved.size(), "dead-lettered: its configurer may send to secret");
    assertEquals(id, moved.get(0).get("id").asText());
    assertEquals(List.of(), refusals("secret"));
  }

  @Test
  void aConfigurerThatLosesItsGrant_stopsTheAutomaticMoves_theMessageStays_untilTheGrantIsBack() {
    teamYDeadLettersIntoSecret();
    String id = send(TEAM, "team-y", "m1");
    team(TEAM_GRANT); // queue:send on secret revoked from the key that set the target

    assertEquals(List.of(id), consumerReceives(), "the consumer is not refused");
    clock.advance(Duration.ofSeconds(11));
    List<JsonNode> left = messages("team-y");
    assertEquals(1, left.size(), "the move is refused: the message stays in team-y");
    assertEquals(id, left.get(0).get("id").asText());
    assertEquals(1, left.get(0).get("receiveCount").asInt(), "its receive count kept");
    assertEquals(List.of(), messages("secret"));
    List<String> audited = refusals("secret");
    assertEquals(1, audited.size(), lines.list.toString());
    assertTrue(audited.get(0).contains("message " + id), audited.get(0));
    assertTrue(audited.get(0).contains("stays in 'team-y'"), audited.get(0));

    // received again: refused again at its lease end, within the minute: no second line
    assertEquals(List.of(id), consumerReceives());
    clock.advance(Duration.ofSeconds(11));
    assertEquals(2, messages("team-y").get(0).get("receiveCount").asInt());
    assertEquals(1, refusals("secret").size(), "one line a minute: " + lines.list);
    Http.Answer metrics = admin("GET", "/metrics", null);
    assertTrue(
        metrics.text().contains("switchboard_dead_letter_moves_refused_total 2.0"),
        "each refusal is counted");

    // explicit moves keep checking the caller
    assertRefused(
        team("POST", "/v1/queues/team-y/messages/" + id + "/dead-letter", null), "secret");

    team(TEAM_GRANT, "queue:send on secret"); // the grant is back: the next lease end moves it
    assertEquals(List.of(id), consumerReceives());
    clock.advance(Duration.ofSeconds(11));
    assertEquals(List.of(), messages("team-y"));
    assertEquals(1, messages("secret").size());
  }

  @Test
  void anExpiredMessage_whoseConfigurerWasRevoked_staysAndMovesOnceAKeyMaySendThereAgain() {
    team(TEAM_GRANT, "queue:send on secret");
    assertEquals(
        201,
        team(
                "POST",
                "/v1/queues",
                "{\"name\":\"team-ttl\",\"onExpire\":\"deadLetter\","
                    + "\"deadLetter\":{\"target\":\"secret\",\"maxReceiveCount\":5}}")
            .status());
    key("AKPRODUCER", "queue:send on team-ttl");
    Http.Answer sent =
        as(
            "AKPRODUCER",
            "pw",
            "POST",
            "/v1/queues/team-ttl/messages",
            "{\"body\":\"x\",\"timeToLiveSeconds\":60}");
    assertEquals(201, sent.status(), "a send-only producer is admitted: " + sent);
    Http.Answer batch =
        as(
            "AKPRODUCER",
            "pw",
            "POST",
            "/v1/queues/team-ttl/messages/batch",
            "{\"messages\":[{\"body\":\"y\",\"timeToLiveSeconds\":60}]}");
    assertEquals(201, batch.status(), batch.toString());
    assertTrue(server.keys().revoke(TEAM));

    clock.advance(Duration.ofSeconds(61));
    assertEquals(2, messages("team-ttl").size(), "expired, refused: they stay");
    assertEquals(List.of(), messages("secret"));
    List<String> audited = refusals("secret");
    assertEquals(1, audited.size(), lines.list.toString());
    assertTrue(audited.get(0).contains("no longer exists"), audited.get(0));

    team(TEAM_GRANT, "queue:send on secret"); // the key is back with the grant
    clock.advance(Duration.ofSeconds(61)); // the refused moves are asked again a minute later
    assertEquals(List.of(), messages("team-ttl"));
    assertEquals(2, messages("secret").size());
  }

  /** Dead-letters one message of {@code from} into {@code dlq} as the admin; its id. */
  private String deadLettered(String from, String dlq) {
    Http.Answer patched =
        admin(
            "PATCH",
            "/v1/queues/" + from,
            "{\"deadLetter\":{\"target\":\"" + dlq + "\",\"maxReceiveCount\":5}}");
    assertEquals(200, patched.status(), patched.toString());
    String id = send("AKADMIN", from, "from-" + from);
    assertEquals(
        204,
        admin("POST", "/v1/queues/" + from + "/messages/" + id + "/dead-letter", null).status());
    return id;
  }

  @Test
  void restoringOrRedrivingAMessageBackToAQueueTheKeyMayNotSendTo_leavesItInTheDeadLetterQueue() {
    String id = deadLettered("secret", "team-x");
    assertEquals(1, messages("team-x").size());

    assertRefused(team("POST", "/v1/queues/team-x/messages/" + id + "/restore", null), "secret");

    Http.Answer started = team("POST", "/v1/queues/team-x/redrives", "{}");
    assertEquals(201, started.status(), started.toString());
    assertEquals("failed", started.json().get("status").asText(), started.toString());
    assertEquals(0, started.json().get("moved").asLong(), started.toString());
    String reason = started.json().get("failureReason").asText();
    assertTrue(reason.contains("lacks queue:send on queue 'secret'"), reason);
    assertTrue(reason.contains(TEAM), reason);
    assertTrue(reason.contains("stay in 'team-x'"), reason);

    assertEquals(List.of(), messages("secret"), "nothing went back to secret");
    List<JsonNode> left = messages("team-x");
    assertEquals(1, left.size());
    assertEquals(id, left.get(0).get("id").asText());
    assertEquals("secret", left.get(0).get("deadLetterSource").asText(), "it is still secret's");
    assertEquals(2, refusals("secret").size(), lines.list.toString());
    // an admin's redrive of the same messages moves them
    Http.Answer byAdmin = admin("POST", "/v1/queues/team-x/redrives", "{}");
    assertEquals("completed", byAdmin.json().get("status").asText(), byAdmin.toString());
    assertEquals(1, messages("secret").size());
  }

  @Test
  void aRunningRedrive_stopsAtTheFirstMoveAfterItsStarterLosesTheGrant() {
    for (int i = 0; i < 4; i++) {
      deadLettered("team-src", "team-x");
    }
    team(TEAM_GRANT, "queue:send on secret");
    Http.Answer started =
        team(
            "POST",
            "/v1/queues/team-x/redrives",
            "{\"destination\":\"secret\",\"maxPerSecond\":1}");
    assertEquals(201, started.status(), started.toString());
    assertEquals("running", started.json().get("status").asText(), started.toString());
    assertEquals(1, started.json().get("moved").asLong(), "one second's worth at the start");

    team(TEAM_GRANT); // queue:send on secret revoked while the task runs
    clock.advance(Duration.ofSeconds(10)); // housekeeping steps the task on

    Http.Answer tasks = admin("GET", "/v1/queues/team-x/redrives", null);
    JsonNode task = tasks.json().get("tasks").get(0);
    assertEquals("failed", task.get("status").asText(), tasks.toString());
    assertEquals(1, task.get("moved").asLong(), tasks.toString());
    assertTrue(
        task.get("failureReason").asText().contains("lacks queue:send on queue 'secret'"),
        tasks.toString());
    assertEquals(1, messages("secret").size(), "only the move made while allowed");
    assertEquals(3, messages("team-x").size(), "the rest stayed in the dead-letter queue");
    assertEquals(1, refusals("secret").size(), lines.list.toString());
  }

  @Test
  void aRedrive_startedByARevokedKey_stops() {
    for (int i = 0; i < 3; i++) {
      deadLettered("team-src", "team-x");
    }
    team(TEAM_GRANT, "queue:send on secret");
    Http.Answer started =
        team(
            "POST",
            "/v1/queues/team-x/redrives",
            "{\"destination\":\"secret\",\"maxPerSecond\":1}");
    assertEquals(201, started.status(), started.toString());
    assertTrue(server.keys().revoke(TEAM));
    clock.advance(Duration.ofSeconds(10));
    JsonNode task = admin("GET", "/v1/queues/team-x/redrives", null).json().get("tasks").get(0);
    assertEquals("failed", task.get("status").asText(), task.toString());
    assertTrue(task.get("failureReason").asText().contains("no longer exists"), task.toString());
    assertEquals(2, messages("team-x").size());
  }
}
