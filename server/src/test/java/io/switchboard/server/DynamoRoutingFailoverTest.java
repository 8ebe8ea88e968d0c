package io.switchboard.server;

import static io.switchboard.server.RoutingFailoverTest.accept;
import static io.switchboard.server.RoutingFailoverTest.agent;
import static io.switchboard.server.RoutingFailoverTest.awaitRoutedBy;
import static io.switchboard.server.RoutingFailoverTest.contact;
import static io.switchboard.server.RoutingFailoverTest.ok;
import static io.switchboard.server.RoutingFailoverTest.routedBy;
import static io.switchboard.server.RoutingFailoverTest.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.storage.dynamodb.Moto;
import io.switchboard.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Routing across two servers on one DynamoDB table (moto, one request at a time; docs/deploy.md,
 * "Routing across servers"): either server answers routing calls (the follower forwards to the
 * leader); when the leader dies without a word, the other takes over once it has seen the lease
 * unchanged for a whole lease, with every agent, contact and reservation, and matching resumes;
 * nothing acknowledged is lost. A graceful stop hands over at the next try, without a gap in the
 * reservation ids. Waits are bounded polls of a condition, never fixed sleeps.
 */
@ExtendWith(Moto.class)
class DynamoRoutingFailoverTest {

  private static final Duration WAIT = RoutingFailoverTest.WAIT;
  private static final Map<String, String> CREDENTIALS =
      Map.of("aws.accessKeyId", "test", "aws.secretAccessKey", "test");

  /** The SDK's default chain reads these: moto takes any credentials. */
  @BeforeAll
  static void credentials() {
    CREDENTIALS.forEach(System::setProperty);
  }

  @AfterAll
  static void forget() {
    CREDENTIALS.keySet().forEach(System::clearProperty);
  }

  /** Servers on a table of their own: no lease taken, no router state. */
  private static ServerConfig freshTable(String lease) {
    return ServerConfig.resolve(
        Map.of(
            "port",
            "0",
            "routing-lease",
            lease,
            "dynamodb-table",
            Moto.prefix() + "switchboard",
            "dynamodb-region",
            "us-east-1",
            "dynamodb-endpoint",
            Moto.endpoint().toString()),
        Map.of());
  }

  @Test
  void leaderDies_otherTakesOver_nothingAcknowledgedLost_matchingResumes() throws Exception {
    ServerConfig config = freshTable("2s");
    SwitchboardServer one = SwitchboardServer.start(config);
    SwitchboardServer two = SwitchboardServer.start(config);
    try (Http a = new Http(one.uri());
        Http b = new Http(two.uri())) {
      String oneId = one.cluster().orElseThrow().serverId();
      String twoId = two.cluster().orElseThrow().serverId();
      assertTrue(one.cluster().orElseThrow().leading(), "the first server takes the free lease");
      assertFalse(two.cluster().orElseThrow().leading());

      Http.Answer ana = agent(b, "ana", "es");
      assertEquals(oneId, routedBy(ana), "the follower forwarded; the leader decided");
      JsonNode c1 = ok(201, contact(b, "c1", "skills HAS 'es'"));
      assertEquals("ana", c1.get("agentId").asText());
      accept(a, c1.get("reservationId").asText());
      assertEquals("queued", ok(201, contact(a, "c2", "skills HAS 'es'")).get("state").asText());

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
      Await.until(() -> acknowledged.size() >= 10, "contacts created through the follower", WAIT);
      one.halt(); // dies: no lease released, nothing more written, connections dropped

      awaitRoutedBy(b, twoId);
      assertTrue(two.cluster().orElseThrow().leading());
      int atTakeover = acknowledged.size();
      Await.until(
          () -> acknowledged.size() >= atTakeover + 10,
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

      // matching resumes on the new leader: ana, free again, takes c2
      ok(200, b.post("/v1/routing/contacts/c1/complete", "{\"wrapUpSeconds\":0}"));
      JsonNode c2 = ok(200, b.get("/v1/routing/contacts/c2"));
      assertEquals("offered", c2.get("state").asText());
      assertEquals("ana", c2.get("agentId").asText());
      accept(b, c2.get("reservationId").asText());
      assertEquals("completed", state(b, "c1"));
    } finally {
      two.stop();
      one.stop();
    }
  }

  @Test
  void leaderStopsGracefully_otherTakesOverWithoutWaitingForTheLease_idsContinue()
      throws Exception {
    RoutingFailoverTest.gracefulHandover(freshTable("10s"), Duration.ofSeconds(8));
  }
}
