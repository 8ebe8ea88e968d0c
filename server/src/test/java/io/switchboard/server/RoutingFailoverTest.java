package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Routing across two servers on one PostgreSQL database (docs/deploy.md, "Routing across servers",
 * "What was tested (CI)"): either server answers routing calls (the follower forwards to the
 * leader, events stream through it); when the leader dies without a word, the other takes over once
 * the lease ran out, with every agent, contact and reservation, and matching resumes; nothing
 * acknowledged is lost and no contact is assigned twice. A graceful stop hands over at the next
 * try. Waits are bounded polls of a condition, never fixed sleeps.
 */
class RoutingFailoverTest {

  private static final String ROUTED_BY = "X-Switchboard-Routed-By";
  static final Duration WAIT = Duration.ofSeconds(20);

  private static int databases;

  /** Servers on a database of their own: no lease taken, no router state. */
  private static ServerConfig freshDatabase(String lease) throws Exception {
    String name = "failover_" + (++databases);
    String url = SharedPostgres.database(name);
    return ServerConfig.resolve(
        Map.of(
            "port", "0",
            "routing-lease", lease,
            "postgres-url", url,
            "postgres-user", "postgres",
            "postgres-password", "postgres"),
        Map.of());
  }

  @Test
  void leaderDies_otherTakesOverAfterTheLease_nothingLostOrAssignedTwice_matchingResumes()
      throws Exception {
    ServerConfig config = freshDatabase("2s");
    SwitchboardServer one = SwitchboardServer.start(config);
    SwitchboardServer two = SwitchboardServer.start(config);
    try (Http a = new Http(one.uri());
        Http b = new Http(two.uri())) {
      String oneId = one.cluster().orElseThrow().serverId();
      String twoId = two.cluster().orElseThrow().serverId();
      assertTrue(one.cluster().orElseThrow().leading(), "the first server takes the free lease");
      assertFalse(two.cluster().orElseThrow().leading());
      assertTrue(a.get("/metrics").text().contains("switchboard_routing_leader 1.0"));
      assertTrue(b.get("/metrics").text().contains("switchboard_routing_leader 0.0"));

      List<SseStream.Event> before = Collections.synchronizedList(new ArrayList<>());
      try (SseStream events =
          new SseStream(b.client(), two.uri().resolve("/v1/routing/events"), Map.of())) {
        assertEquals(200, events.response.statusCode());
        Http.Answer ana = agent(b, "ana", "es");
        assertEquals(oneId, routedBy(ana), "the follower forwarded; the leader decided");
        agent(a, "bob", "en");
        JsonNode c1 = ok(201, contact(b, "c1", "skills HAS 'es'"));
        assertEquals("ana", c1.get("agentId").asText());
        accept(b, c1.get("reservationId").asText());
        assertEquals("queued", ok(201, contact(a, "c2", "skills HAS 'es'")).get("state").asText());
        JsonNode c3 = ok(201, contact(b, "c3", "skills HAS 'en'"));
        assertEquals("bob", c3.get("agentId").asText());
        assertEquals("queued", ok(201, contact(b, "c4", "skills HAS 'fr'")).get("state").asText());
        events.until(
            e -> e.type().equals("reservation.offered") && contactOf(e).equals("c3"), before::add);

        // contacts keep arriving through the follower while the leader dies
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        List<Http.Answer> refused = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean stop = new AtomicBoolean();
        Thread producer =
            Thread.ofPlatform()
                .start(
                    () -> {
                      for (int i = 0; !stop.get(); i++) {
                        Http.Answer r = contact(b, "load-" + i, "skills HAS 'nobody'");
                        if (r.status() == 201) {
                          acknowledged.add("load-" + i);
                        } else {
                          refused.add(r);
                        }
                      }
                    });
        Await.until(() -> acknowledged.size() >= 20, "contacts created through the follower", WAIT);
        one.halt(); // dies: no lease released, nothing more written, connections dropped
        events.awaitEnd(before::add); // the stream through the follower ends with its leader

        Http.Answer meanwhile = b.get("/v1/routing/stats");
        if (meanwhile.status() != 200) {
          assertEquals(503, meanwhile.status(), meanwhile.toString());
          assertEquals("UNAVAILABLE", meanwhile.code());
          assertTrue(meanwhile.text().contains(oneId), meanwhile.toString());
        }
        awaitRoutedBy(b, twoId);
        assertTrue(two.cluster().orElseThrow().leading());
        assertTrue(b.get("/metrics").text().contains("switchboard_routing_leader 1.0"));
        int atTakeover = acknowledged.size();
        Await.until(
            () -> acknowledged.size() >= atTakeover + 20,
            "contacts created after the takeover",
            WAIT);
        stop.set(true);
        producer.join(20_000);
        for (Http.Answer r : refused) {
          assertEquals(503, r.status(), r.toString());
          assertEquals("UNAVAILABLE", r.code(), r.toString());
        }

        // nothing acknowledged is lost
        for (String id : acknowledged) {
          assertEquals("queued", state(b, id), id);
        }
        assertEquals("assigned", state(b, "c1"));
        assertEquals("queued", state(b, "c2"));
        JsonNode offered = ok(200, b.get("/v1/routing/contacts/c3"));
        assertEquals("offered", offered.get("state").asText());
        assertEquals(c3.get("reservationId").asText(), offered.get("reservationId").asText());
        assertEquals("queued", state(b, "c4"));

        // matching resumes, and the event stream resumes on the new leader
        long lastBefore = before.stream().mapToLong(SseStream.Event::id).max().orElseThrow();
        List<SseStream.Event> after = Collections.synchronizedList(new ArrayList<>());
        try (SseStream resumed =
            new SseStream(
                b.client(),
                two.uri().resolve("/v1/routing/events"),
                Map.of("Last-Event-ID", Long.toString(lastBefore)))) {
          assertEquals("missed", resumed.next().type(), "the old leader's history is not kept");
          agent(b, "dan", "fr"); // a waiting contact gets an agent that arrives after failover
          JsonNode c4 = ok(200, b.get("/v1/routing/contacts/c4"));
          assertEquals("offered", c4.get("state").asText());
          assertEquals("dan", c4.get("agentId").asText());
          ok(200, b.post("/v1/routing/contacts/c1/complete", "{\"wrapUpSeconds\":0}"));
          JsonNode c2 = ok(200, b.get("/v1/routing/contacts/c2"));
          assertEquals("offered", c2.get("state").asText(), "ana, free again, takes c2");
          assertEquals("ana", c2.get("agentId").asText());
          String fresh = c2.get("reservationId").asText();
          assertTrue(
              before.stream().noneMatch(e -> fresh.equals(e.data().at("/reservation/id").asText())),
              "reservation id " + fresh + " was shown before the failover");
          accept(b, fresh);
          resumed.until(
              e -> e.type().equals("reservation.accepted") && contactOf(e).equals("c2"),
              after::add);
        }
        for (SseStream.Event e : after) {
          assertTrue(e.id() > lastBefore, "event id repeated after the failover: " + e);
        }

        // no contact assigned twice, in the events or in the final state
        Map<String, String> acceptedBy = new HashMap<>();
        List<SseStream.Event> all = new ArrayList<>(before);
        all.addAll(after);
        for (SseStream.Event e : all) {
          if (e.type().equals("reservation.accepted")) {
            String previous = acceptedBy.put(contactOf(e), e.data().get("agentId").asText());
            assertEquals(null, previous, "contact assigned twice: " + e);
          }
        }
        assertEquals(Map.of("c1", "ana", "c2", "ana"), acceptedBy);
        assertEquals("completed", state(b, "c1"));
        assertEquals("assigned", state(b, "c2"));
        Set<String> busy = new HashSet<>();
        for (String c : List.of("c2", "c3", "c4")) {
          JsonNode contact = ok(200, b.get("/v1/routing/contacts/" + c));
          assertTrue(busy.add(contact.get("agentId").asText()), "agent holds two voice contacts");
        }

        // the lasting statistics came over with the rest and went on counting
        java.time.Instant now = java.time.Instant.now();
        JsonNode stats =
            ok(
                200,
                b.get(
                    "/v1/routing/statistics?from="
                        + now.minus(Duration.ofHours(1))
                        + "&to="
                        + now.plus(Duration.ofHours(1))));
        assertEquals(2, stats.at("/cumulative/answered").asLong(), "c1 before, c2 after: " + stats);
        assertTrue(
            stats.at("/cumulative/arrived").asLong() >= 4 + acknowledged.size(), stats.toString());
        assertEquals(2, stats.at("/totals/answered").asLong(), stats.toString());
      }
    } finally {
      two.stop();
      one.stop();
    }
  }

  @Test
  void leaderStopsGracefully_otherTakesOverWithoutWaitingForTheLease_idsContinue()
      throws Exception {
    gracefulHandover(freshDatabase("10s"), Duration.ofSeconds(6));
  }

  /**
   * Two servers on {@code config} (a 10 s lease): the leader stops gracefully, releasing the lease,
   * and the other takes over {@code within} that, long before the lease would have run out; the
   * reservation ids continue without a gap.
   */
  static void gracefulHandover(ServerConfig config, Duration within) throws Exception {
    SwitchboardServer one = SwitchboardServer.start(config);
    SwitchboardServer two = SwitchboardServer.start(config);
    try (Http b = new Http(two.uri())) {
      String twoId = two.cluster().orElseThrow().serverId();
      agent(b, "ana", "es");
      JsonNode c1 = ok(201, contact(b, "c1", "skills HAS 'es'"));
      assertEquals("res-1", c1.get("reservationId").asText());

      long stopping = System.nanoTime();
      one.stop(); // releases the lease
      awaitRoutedBy(b, twoId);
      assertTrue(
          System.nanoTime() - stopping < within.toNanos(),
          "took over only when the 10 s lease ran out, not when it was released");

      agent(b, "bo", "es"); // c1 rests from ana after her reject: bo takes it
      JsonNode again = ok(200, b.post("/v1/routing/reservations/res-1/reject", ""));
      assertEquals("offered", again.get("state").asText());
      assertEquals("bo", again.get("agentId").asText());
      assertEquals(
          "res-2", again.get("reservationId").asText(), "a planned handover leaves no gap");
    } finally {
      two.stop();
      one.stop();
    }
  }

  // ---- helpers (DynamoRoutingFailoverTest uses them too) -----------------------------------

  static Http.Answer agent(Http h, String id, String skill) {
    Http.Answer a =
        h.post(
            "/v1/routing/agents",
            "{\"id\":\""
                + id
                + "\",\"attributes\":{\"skills\":[\""
                + skill
                + "\"]},\"capacity\":{\"voice\":1},\"presence\":\"available\"}");
    ok(201, a);
    return a;
  }

  static Http.Answer contact(Http h, String id, String requirements) {
    return h.post(
        "/v1/routing/contacts",
        "{\"id\":\"" + id + "\",\"channel\":\"voice\",\"requirements\":\"" + requirements + "\"}");
  }

  static void accept(Http h, String reservation) {
    JsonNode c = ok(200, h.post("/v1/routing/reservations/" + reservation + "/accept", ""));
    assertEquals("assigned", c.get("state").asText());
  }

  static String state(Http h, String contact) {
    return ok(200, h.get("/v1/routing/contacts/" + contact)).get("state").asText();
  }

  static JsonNode ok(int status, Http.Answer a) {
    assertEquals(status, a.status(), a.toString());
    return a.json();
  }

  static String routedBy(Http.Answer a) {
    return a.raw().headers().firstValue(ROUTED_BY).orElse("");
  }

  static String contactOf(SseStream.Event e) {
    JsonNode id = e.data().get("contactId");
    return id != null ? id.asText() : e.data().at("/reservation/contactId").asText();
  }

  /** Polls the follower until routing answers there, decided by {@code serverId}. */
  static void awaitRoutedBy(Http h, String serverId) {
    Await.until(
        () -> {
          Http.Answer s = h.get("/v1/routing/stats");
          return s.status() == 200 && routedBy(s).equals(serverId);
        },
        "routing decided by " + serverId,
        WAIT);
  }
}
