package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.server.config.ServerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every route of the native API over real HTTP, happy paths and the errors each route owns. */
class NativeApiTest {

  private static SwitchboardServer server;
  private static Http http;

  @BeforeAll
  static void start() {
    server = SwitchboardServer.start(ServerConfig.forTests());
    http = new Http(server.uri());
  }

  @AfterAll
  static void stop() {
    http.close();
    server.stop();
  }

  private static void create(String name, String config) {
    Http.Answer a =
        http.post(
            "/v1/queues",
            "{\"name\":\"" + name + "\"" + (config.isEmpty() ? "" : ",") + config + "}");
    assertEquals(201, a.status(), a.toString());
  }

  private static String send(String queue, String message) {
    Http.Answer a = http.post("/v1/queues/" + queue + "/messages", message);
    assertEquals(201, a.status(), a.toString());
    return a.json().get("id").asText();
  }

  private static JsonNode receiveOne(String queue, String request) {
    Http.Answer a = http.post("/v1/queues/" + queue + "/receive", request);
    assertEquals(200, a.status(), a.toString());
    JsonNode messages = a.json().get("messages");
    assertEquals(1, messages.size(), a.toString());
    return messages.get(0);
  }

  @Test
  void queues_createGetListUpdateDelete_roundTrip() {
    Http.Answer created =
        http.post(
            "/v1/queues",
            "{\"name\":\"life\",\"order\":\"lifo\",\"visibilityTimeoutSeconds\":45,"
                + "\"maxDepth\":10,\"overflow\":\"dropOldest\",\"indexedAttributes\":[\"lang\"]}");
    assertEquals(201, created.status(), created.toString());
    assertEquals("lifo", created.json().at("/config/order").asText());
    assertEquals(45, created.json().at("/config/visibilityTimeoutSeconds").asInt());

    Http.Answer again =
        http.post(
            "/v1/queues",
            "{\"name\":\"life\",\"order\":\"lifo\",\"visibilityTimeoutSeconds\":45,"
                + "\"maxDepth\":10,\"overflow\":\"dropOldest\",\"indexedAttributes\":[\"lang\"]}");
    assertEquals(200, again.status(), again.toString());
    Http.Answer other = http.post("/v1/queues", "{\"name\":\"life\"}");
    assertEquals(409, other.status());
    assertEquals("QUEUE_ALREADY_EXISTS", other.code());

    Http.Answer got = http.get("/v1/queues/life");
    assertEquals(200, got.status());
    assertEquals(0, got.json().at("/stats/depth").asInt());
    assertTrue(http.get("/v1/queues?prefix=lif").text().contains("\"life\""));
    assertFalse(http.get("/v1/queues?prefix=zzz").text().contains("\"life\""));

    Http.Answer updated =
        http.send("PATCH", "/v1/queues/life", "{\"order\":\"fifo\",\"maxDepth\":null}");
    assertEquals(200, updated.status(), updated.toString());
    assertEquals("fifo", updated.json().at("/config/order").asText());
    assertTrue(updated.json().at("/config/maxDepth").isMissingNode());
    assertEquals(45, updated.json().at("/config/visibilityTimeoutSeconds").asInt());

    assertEquals(204, http.send("DELETE", "/v1/queues/life", null).status());
    Http.Answer gone = http.get("/v1/queues/life");
    assertEquals(404, gone.status());
    assertEquals("QUEUE_NOT_FOUND", gone.code());
  }

  @Test
  void keyLimit_setShownAppliedAndRemoved_aBadOneRefusedNamingTheRange() {
    Http.Answer created =
        http.post("/v1/queues", "{\"name\":\"tenants\",\"keyLimit\":{\"maxConcurrent\":1}}");
    assertEquals(201, created.status(), created.toString());
    assertEquals(1, created.json().at("/config/keyLimit/maxConcurrent").asInt());
    send("tenants", "{\"body\":\"a1\",\"groupId\":\"acme\"}");
    send("tenants", "{\"body\":\"a2\",\"groupId\":\"acme\"}");
    send("tenants", "{\"body\":\"b1\",\"groupId\":\"globex\"}");
    Http.Answer got = http.post("/v1/queues/tenants/receive", "{\"maxMessages\":10}");
    assertEquals(200, got.status(), got.toString());
    assertEquals(2, got.json().get("messages").size(), got.toString());
    assertEquals("a1", got.json().at("/messages/0/body").asText());
    assertEquals("b1", got.json().at("/messages/1/body").asText());
    assertEquals(1, http.get("/v1/queues/tenants/stats").json().at("/counters/keyLimited").asInt());

    for (String bad :
        List.of(
            "{\"keyLimit\":{\"maxConcurrent\":0}}", "{\"keyLimit\":{\"maxConcurrent\":120001}}")) {
      Http.Answer refused = http.send("PATCH", "/v1/queues/tenants", bad);
      assertEquals(400, refused.status(), refused.toString());
      assertEquals("INVALID_ARGUMENT", refused.code());
      assertTrue(
          refused.text().contains("keyLimit.maxConcurrent must be 1..120000"), refused.text());
    }
    Http.Answer noField = http.send("PATCH", "/v1/queues/tenants", "{\"keyLimit\":{}}");
    assertEquals(400, noField.status(), noField.toString());
    assertTrue(noField.text().contains("maxConcurrent"), noField.text());
    assertEquals(
        1,
        http.get("/v1/queues/tenants").json().at("/config/keyLimit/maxConcurrent").asInt(),
        "a refused change changes nothing");

    Http.Answer removed = http.send("PATCH", "/v1/queues/tenants", "{\"keyLimit\":null}");
    assertEquals(200, removed.status(), removed.toString());
    assertTrue(removed.json().at("/config/keyLimit").isMissingNode(), removed.toString());
    Http.Answer rest = http.post("/v1/queues/tenants/receive", "{\"maxMessages\":10}");
    assertEquals("a2", rest.json().at("/messages/0/body").asText(), rest.toString());
  }

  @Test
  void sendReceiveAck_withSelector_leasesTheMatchingMessage() {
    create("agents", "");
    send("agents", "{\"body\":\"ana\",\"attributes\":{\"language\":\"es\",\"gender\":\"F\"}}");
    String luis =
        send("agents", "{\"body\":\"luis\",\"attributes\":{\"language\":\"es\",\"gender\":\"M\"}}");
    JsonNode m =
        receiveOne(
            "agents",
            "{\"selector\":\"language = 'es' AND gender = 'M'\",\"visibilityTimeoutSeconds\":60}");
    assertEquals(luis, m.get("id").asText());
    assertEquals("in_flight", m.get("state").asText());
    assertEquals("M", m.at("/attributes/gender").asText());
    String receipt = m.get("receipt").asText();
    assertEquals(204, http.post("/v1/queues/agents/leases/" + receipt + "/ack", null).status());
    assertEquals(204, http.post("/v1/queues/agents/leases/" + receipt + "/ack", "{}").status());

    JsonNode stats = http.get("/v1/queues/agents/stats").json();
    assertEquals(1, stats.get("available").asInt());
    assertEquals(1, stats.at("/counters/acked").asInt());
    assertEquals(2, stats.at("/counters/sent").asInt());
  }

  @Test
  void sendBatch_returnsResultsInOrder_andDuplicateAnswers200() {
    create("batch", "");
    Http.Answer a =
        http.post(
            "/v1/queues/batch/messages/batch",
            "{\"messages\":[{\"body\":\"a\"},{\"body\":\"b\",\"priority\":3}]}");
    assertEquals(201, a.status(), a.toString());
    assertEquals(2, a.json().get("results").size());
    assertEquals(2, http.get("/v1/queues/batch/stats").json().get("available").asInt());

    String first = send("batch", "{\"body\":\"d\",\"deduplicationId\":\"x1\"}");
    Http.Answer dup =
        http.post("/v1/queues/batch/messages", "{\"body\":\"d\",\"deduplicationId\":\"x1\"}");
    assertEquals(200, dup.status());
    assertTrue(dup.json().get("duplicate").asBoolean());
    assertEquals(first, dup.json().get("id").asText());
  }

  @Test
  void leases_releaseExtendFailDeadLetter_andStaleReceipt() {
    create("work-dlq", "");
    create("work", "\"deadLetter\":{\"target\":\"work-dlq\",\"maxReceiveCount\":5}");
    String id = send("work", "{\"body\":\"job\"}");

    String r1 = receiveOne("work", "{}").get("receipt").asText();
    Http.Answer extended =
        http.post("/v1/queues/work/leases/" + r1 + "/extend", "{\"visibilityTimeoutSeconds\":0}");
    assertEquals(200, extended.status(), extended.toString());
    String r2 = receiveOne("work", "{}").get("receipt").asText();
    Http.Answer stale = http.post("/v1/queues/work/leases/" + r1 + "/ack", null);
    assertEquals(409, stale.status(), stale.toString());
    assertEquals("RECEIPT_STALE", stale.code());

    Http.Answer released =
        http.post(
            "/v1/queues/work/leases/" + r2 + "/release", "{\"delaySeconds\":0,\"toBack\":true}");
    assertEquals(204, released.status(), released.toString());
    Http.Answer notInFlight = http.post("/v1/queues/work/leases/" + r2 + "/release", "{}");
    assertEquals(409, notInFlight.status(), notInFlight.toString());

    String r3 = receiveOne("work", "{}").get("receipt").asText();
    assertEquals(204, http.post("/v1/queues/work/leases/" + r3 + "/dead-letter", null).status());
    JsonNode inDlq = http.get("/v1/queues/work-dlq/messages/" + id).json();
    assertEquals("work", inDlq.get("deadLetterSource").asText(), inDlq.toString());
    assertEquals(1, http.get("/v1/queues/work-dlq/stats").json().get("available").asInt());

    String other = send("work", "{\"body\":\"doomed\"}");
    String r4 = receiveOne("work", "{}").get("receipt").asText();
    assertEquals(204, http.post("/v1/queues/work/leases/" + r4 + "/fail", null).status());
    assertEquals(404, http.get("/v1/queues/work/messages/" + other).status());
  }

  @Test
  void ackBatch_answersEachReceipt_andABadOneDoesNotStopTheOthers() {
    create("acks", "");
    http.post(
        "/v1/queues/acks/messages/batch",
        "{\"messages\":[{\"body\":\"a\"},{\"body\":\"b\"},{\"body\":\"c\"}]}");
    JsonNode got = http.post("/v1/queues/acks/receive", "{\"maxMessages\":3}").json();
    String r0 = got.at("/messages/0/receipt").asText();
    String r1 = got.at("/messages/1/receipt").asText();
    String r2 = got.at("/messages/2/receipt").asText();
    http.post("/v1/queues/acks/leases/" + r2 + "/extend", "{\"visibilityTimeoutSeconds\":0}");
    receiveOne("acks", "{}");

    Http.Answer a =
        http.post(
            "/v1/queues/acks/acks",
            "{\"receipts\":[\""
                + r0
                + "\",\"garbage\",\""
                + r1
                + "\",\""
                + r2
                + "\",\""
                + r0
                + "\"]}");
    assertEquals(200, a.status(), a.toString());
    JsonNode results = a.json().get("results");
    assertEquals(5, results.size(), a.toString());
    assertEquals(r0, results.get(0).get("receipt").asText());
    assertTrue(results.get(0).get("acked").asBoolean(), a.toString());
    assertFalse(results.get(1).get("acked").asBoolean(), a.toString());
    assertEquals("RECEIPT_INVALID", results.get(1).get("code").asText());
    assertTrue(results.get(2).get("acked").asBoolean(), a.toString());
    assertEquals("RECEIPT_STALE", results.get(3).get("code").asText(), a.toString());
    assertFalse(results.get(3).get("message").asText().isEmpty());
    assertTrue(results.get(4).get("acked").asBoolean(), "acks are idempotent: " + a);
    assertEquals(2, http.get("/v1/queues/acks/stats").json().at("/counters/acked").asInt());
  }

  @Test
  void noop_answers204_withoutTouchingAQueue() {
    Http.Answer a = http.post("/v1/noop", "x".repeat(600));
    assertEquals(204, a.status(), a.toString());
    assertEquals("", a.text());
  }

  @Test
  void sizedNoop_answersJsonOfExactlyTheBytesAsked_andRefusesASizeOutOfRange() {
    for (int size : new int[] {10, 11, 2_900, 1 << 20}) {
      Http.Answer a = http.post("/v1/noop?answerBytes=" + size, "x".repeat(500));
      assertEquals(200, a.status(), a.toString());
      assertEquals(size, a.text().length(), "answer length for answerBytes=" + size);
      assertEquals("", a.json().path("pad").asText().replace("x", ""), "only padding");
    }
    Http.Answer tooSmall = http.post("/v1/noop?answerBytes=9", "");
    assertEquals(400, tooSmall.status(), tooSmall.toString());
    assertEquals("INVALID_ARGUMENT", tooSmall.json().path("code").asText());
    assertEquals(
        "answerBytes must be 10..1048576 (the size of the answer), got 9",
        tooSmall.json().path("message").asText());
  }

  @Test
  void messagesById_getUpdateTouchRemoveDeadLetterRestore() {
    create("prio-dlq", "");
    create("prio", "\"deadLetter\":{\"target\":\"prio-dlq\",\"maxReceiveCount\":3}");
    String a = send("prio", "{\"body\":\"A\"}");
    String b = send("prio", "{\"body\":\"B\"}");
    String c = send("prio", "{\"body\":\"C\",\"attributes\":{\"kind\":\"x\"}}");

    Http.Answer raised = http.send("PATCH", "/v1/queues/prio/messages/" + c, "{\"priority\":10}");
    assertEquals(200, raised.status(), raised.toString());
    assertEquals(10, raised.json().get("priority").asInt());
    Http.Answer attrs =
        http.send("PATCH", "/v1/queues/prio/messages/" + c, "{\"attributes\":{\"kind\":\"y\"}}");
    assertEquals("y", attrs.json().at("/attributes/kind").asText());

    Http.Answer touched = http.post("/v1/queues/prio/messages/" + a + "/touch", null);
    assertEquals(200, touched.status(), touched.toString());
    assertEquals(List.of("C", "B", "A"), bodies(http.get("/v1/queues/prio/messages").json()));

    assertEquals(204, http.post("/v1/queues/prio/messages/" + b + "/dead-letter", null).status());
    assertEquals("B", http.get("/v1/queues/prio-dlq/messages/" + b).json().get("body").asText());
    Http.Answer restored = http.post("/v1/queues/prio-dlq/messages/" + b + "/restore", null);
    assertEquals(200, restored.status(), restored.toString());
    assertEquals(
        "available", http.get("/v1/queues/prio/messages/" + b).json().get("state").asText());

    assertEquals(204, http.send("DELETE", "/v1/queues/prio/messages/" + a, null).status());
    Http.Answer gone = http.get("/v1/queues/prio/messages/" + a);
    assertEquals(404, gone.status());
    assertEquals("MESSAGE_NOT_FOUND", gone.code());
  }

  @Test
  void browse_pagesWithCursorAndSelector_withoutLeasing() {
    create("browse", "");
    for (int i = 0; i < 5; i++) {
      send("browse", "{\"body\":\"m" + i + "\",\"attributes\":{\"n\":" + i + "}}");
    }
    JsonNode page1 = http.get("/v1/queues/browse/messages?limit=2").json();
    assertEquals(List.of("m0", "m1"), bodies(page1));
    String cursor = page1.get("nextCursor").asText();
    JsonNode page2 = http.get("/v1/queues/browse/messages?limit=2&cursor=" + cursor).json();
    assertEquals(List.of("m2", "m3"), bodies(page2));
    JsonNode filtered = http.get("/v1/queues/browse/messages?selector=n%20%3E%3D%203").json();
    assertEquals(List.of("m3", "m4"), bodies(filtered));
    assertEquals(5, http.get("/v1/queues/browse/stats").json().get("available").asInt());

    Http.Answer purged = http.post("/v1/queues/browse/purge", null);
    assertEquals(5, purged.json().get("purged").asInt());
  }

  @Test
  void redrive_startListCancel() {
    create("rd-dlq", "");
    create("rd", "\"deadLetter\":{\"target\":\"rd-dlq\",\"maxReceiveCount\":1}");
    for (int i = 0; i < 5; i++) {
      String id = send("rd", "{\"body\":\"r" + i + "\"}");
      assertEquals(204, http.post("/v1/queues/rd/messages/" + id + "/dead-letter", null).status());
    }
    Http.Answer started = http.post("/v1/queues/rd-dlq/redrives", "{\"maxPerSecond\":1}");
    assertEquals(201, started.status(), started.toString());
    String task = started.json().get("id").asText();
    assertEquals(5, started.json().get("toMove").asInt());
    JsonNode list = http.get("/v1/queues/rd-dlq/redrives").json().get("tasks");
    assertEquals(task, list.get(0).get("id").asText());
    Http.Answer cancelled = http.post("/v1/redrives/" + task + "/cancel", null);
    assertEquals(200, cancelled.status(), cancelled.toString());
    assertEquals("cancelled", cancelled.json().get("status").asText());
    Http.Answer unknown = http.post("/v1/redrives/nope/cancel", null);
    assertEquals(404, unknown.status(), unknown.toString());
    assertEquals("TASK_NOT_FOUND", unknown.code());
  }

  @Test
  void receive_longPoll_isAnsweredBySend() throws Exception {
    create("poll", "");
    CompletableFuture<Http.Answer> waiting =
        CompletableFuture.supplyAsync(
            () -> http.post("/v1/queues/poll/receive", "{\"waitTimeSeconds\":10}"));
    while (http.get("/v1/queues/poll/stats").json().get("waitingReceivers").asInt() < 1) {
      Thread.onSpinWait();
    }
    long sentAt = System.nanoTime();
    send("poll", "{\"body\":\"wake\"}");
    Http.Answer a = waiting.get(10, TimeUnit.SECONDS);
    assertEquals("wake", a.json().at("/messages/0/body").asText());
    assertTrue(Duration.ofNanos(System.nanoTime() - sentAt).toSeconds() < 5);
  }

  @Test
  void groupedQueue_blocksAGroupWithAMessageInFlight() {
    create("orders.fifo", "\"contentBasedDeduplication\":true");
    send("orders.fifo", "{\"body\":\"A1\",\"groupId\":\"A\"}");
    send("orders.fifo", "{\"body\":\"A2\",\"groupId\":\"A\"}");
    send("orders.fifo", "{\"body\":\"B1\",\"groupId\":\"B\"}");
    assertEquals("A1", receiveOne("orders.fifo", "{}").get("body").asText());
    assertEquals("B1", receiveOne("orders.fifo", "{}").get("body").asText());
    assertEquals(
        0, http.post("/v1/queues/orders.fifo/receive", "{}").json().get("messages").size());
  }

  static List<String> bodies(JsonNode page) {
    List<String> out = new ArrayList<>();
    page.get("messages").forEach(m -> out.add(m.get("body").asText()));
    return out;
  }
}
