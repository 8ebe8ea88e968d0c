package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.client.QueuePage;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueInfo;
import io.switchboard.server.auth.Grant;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Listing queues answered every queue at once (20.9 MB with 50,000 queues): {@code GET /v1/queues}
 * now answers a page (at most {@code limit}, 1,000 by default) with a cursor, as SQS {@code
 * ListQueues} does with {@code MaxResults}/{@code NextToken}; what a page answers does not depend
 * on how many queues there are, and following the cursors lists each queue once.
 */
class QueueListPagesTest {

  private static final Instant START = Instant.parse("2026-12-02T00:00:00Z");

  @Test
  void listPage_sameAnswerWith10And3000Queues() {
    try (SwitchboardServer few = server(10);
        SwitchboardServer many = server(3_000);
        Http a = new Http(few.uri());
        Http b = new Http(many.uri())) {
      Http.Answer fewPage = a.get("/v1/queues?limit=5");
      Http.Answer manyPage = b.get("/v1/queues?limit=5");
      assertEquals(200, manyPage.status(), manyPage.text());
      // the same five queues; only the cursor says more follow
      assertEquals(fewPage.json().get("queues"), manyPage.json().get("queues"));
      assertEquals("q00004", manyPage.json().path("nextCursor").asText());
      assertEquals(5, manyPage.json().get("queues").size());

      // SQS ListQueues pages the same way
      String fewSqs = listQueuesSqs(a, few, "{\"MaxResults\":5}");
      String manySqs = listQueuesSqs(b, many, "{\"MaxResults\":5}");
      assertEquals(fewSqs.length(), manySqs.length(), fewSqs + "\n" + manySqs);

      // with no limit, a page is at most 1,000 queues
      JsonNode first = b.get("/v1/queues").json();
      assertEquals(1000, first.get("queues").size());
      assertEquals("q00999", first.path("nextCursor").asText());
    }
  }

  @Test
  void cursors_listEveryQueueOnce_inOrder_withinThePrefix() {
    try (SwitchboardServer server = server(2_500);
        Http http = new Http(server.uri());
        SwitchboardClient client = SwitchboardClient.create(server.uri())) {
      List<String> names = new ArrayList<>();
      String cursor = "";
      do {
        JsonNode page =
            http.get(
                    "/v1/queues?prefix=q01&limit=300"
                        + (cursor.isEmpty() ? "" : "&cursor=" + cursor))
                .json();
        page.get("queues").forEach(q -> names.add(q.get("name").asText()));
        cursor = page.path("nextCursor").asText();
      } while (!cursor.isEmpty());
      assertEquals(1000, names.size());
      assertEquals("q01000", names.get(0));
      assertEquals("q01999", names.get(999));
      assertEquals(names.stream().sorted().distinct().toList(), names);

      // the Java client follows the pages for the whole list, and reads one page as asked
      List<QueueInfo> all = client.listQueues("");
      assertEquals(2_500, all.size());
      QueuePage page = client.queuePage("q02", Optional.of("q02490"), 100);
      assertEquals(
          List.of(
              "q02491", "q02492", "q02493", "q02494", "q02495", "q02496", "q02497", "q02498",
              "q02499"),
          page.queues().stream().map(QueueInfo::name).toList());
      assertFalse(page.nextCursor().isPresent());
    }
  }

  @Test
  void listPage_refusesALimitOutside1to1000_withItsValue() {
    try (SwitchboardServer server = server(3);
        Http http = new Http(server.uri())) {
      for (String limit : List.of("0", "1001")) {
        Http.Answer refused = http.get("/v1/queues?limit=" + limit);
        assertEquals(400, refused.status(), refused.text());
        assertEquals("INVALID_ARGUMENT", refused.code());
        assertTrue(refused.text().contains("limit must be 1..1000, got " + limit), refused.text());
      }
    }
  }

  /**
   * A key sees only the queues it may browse: pages of one, followed by their cursors, list exactly
   * those, each once, and no cursor names a queue the key may not see (the server reads on past the
   * others in full pages).
   */
  @Test
  void aKeysPages_listTheQueuesItMayBrowse_eachOnce_andNoCursorNamesAnother() {
    try (SwitchboardServer server = server(2_050);
        Http http = new Http(server.uri())) {
      server
          .keys()
          .put(
              new Principal(
                  "AKPAGES",
                  "pages-secret",
                  Optional.empty(),
                  List.of(
                      Grant.parse("queue:browse on q0202*"), Grant.parse("queue:browse on q00001")),
                  Optional.empty()));
      String auth =
          "Basic "
              + Base64.getEncoder()
                  .encodeToString("AKPAGES:pages-secret".getBytes(StandardCharsets.UTF_8));
      List<String> names = new ArrayList<>();
      List<String> cursors = new ArrayList<>();
      String cursor = "";
      do {
        Http.Answer a =
            http.send(
                "GET",
                "/v1/queues?limit=1" + (cursor.isEmpty() ? "" : "&cursor=" + cursor),
                "",
                Map.of("Authorization", auth));
        assertEquals(200, a.status(), a.text());
        a.json().get("queues").forEach(q -> names.add(q.get("name").asText()));
        cursor = a.json().path("nextCursor").asText();
        if (!cursor.isEmpty()) {
          cursors.add(cursor);
        }
      } while (!cursor.isEmpty());
      List<String> visible = new ArrayList<>(List.of("q00001"));
      for (int i = 20; i < 30; i++) {
        visible.add(String.format("q020%02d", i));
      }
      assertEquals(visible, names);
      assertTrue(visible.containsAll(cursors), "a cursor named a hidden queue: " + cursors);
    }
  }

  /** A server whose engine holds q00000.. created at one instant (so pages compare equal). */
  private static SwitchboardServer server(int queues) {
    ManualClock clock = ManualClock.at(START);
    return SwitchboardServer.start(
        ServerConfig.forTests(),
        c -> {
          QueueEngine engine = QueueEngine.builder().clock(clock).maxQueues(10_000).build();
          for (int i = 0; i < queues; i++) {
            engine.createQueue(String.format("q%05d", i), QueueConfig.defaults());
          }
          return engine;
        },
        clock);
  }

  /** The queue URLs of a ListQueues answer, with the server's own address left out. */
  private static String listQueuesSqs(Http http, SwitchboardServer server, String body) {
    Http.Answer a =
        http.send(
            "POST",
            "/",
            body,
            Map.of(
                "X-Amz-Target",
                "AmazonSQS.ListQueues",
                "Content-Type",
                "application/x-amz-json-1.0"));
    assertEquals(200, a.status(), a.text());
    return a.text().replace(server.uri().toString(), "");
  }
}
