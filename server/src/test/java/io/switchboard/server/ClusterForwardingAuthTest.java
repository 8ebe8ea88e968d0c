package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.auth.AccessKeys;
import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.Grant;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.cluster.RoutingForwarder;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.security.ForwardedCalls;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Regression (docs/security.md): a SigV4-signed routing call to a follower of a PostgreSQL cluster
 * failed at the leader, which checked the forwarded {@code Authorization} again and found a
 * signature over the follower's host. The follower now forwards the key it admitted the call as,
 * under the cluster's server-to-server credential ({@link ForwardedCalls}); the leader checks that
 * credential, looks the key up and checks its grants. A call that claims to be forwarded without
 * the credential is refused.
 */
class ClusterForwardingAuthTest {

  /** The class's database on the shared PostgreSQL: both tests' clusters run on it. */
  private static String url;

  @BeforeAll
  static void database() throws Exception {
    url = SharedPostgres.database("cluster_forwarding_auth");
  }

  private static Http.Answer signed(
      Http http, SwitchboardServer to, String method, String path, String body, String id) {
    Map<String, String> headers = new HashMap<>();
    headers.put("Content-Type", "application/json");
    byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    return http.send(
        method,
        path,
        body,
        AwsSigning.sign(
            method, to.uri().resolve(path), bytes, headers, id, "s-" + id, "switchboard"));
  }

  @Test
  void sigV4SignedRoutingCall_toTheFollower_isServedByTheLeader_asTheKeyItWasSignedWith()
      throws Exception {
    ServerConfig config =
        ServerConfig.resolve(
                Map.of(
                    "port", "0",
                    "routing-lease", "30s",
                    "postgres-url", url,
                    "postgres-user", "postgres",
                    "postgres-password", "postgres"),
                Map.of())
            .withAccessKeys(AccessKeys.parse("AKSUP:s-AKSUP"));
    try (SwitchboardServer one = SwitchboardServer.start(config);
        SwitchboardServer two = SwitchboardServer.start(config);
        Http a = new Http(one.uri());
        Http b = new Http(two.uri())) {
      assertTrue(one.cluster().orElseThrow().leading());
      String leaderId = one.cluster().orElseThrow().serverId();
      // a stored key, bound to agent ana: every server of the cluster sees it
      one.keys()
          .put(
              new Principal(
                  "AKANA",
                  "s-AKANA",
                  Optional.empty(),
                  List.of(Grant.of("default", Action.ROUTING_AGENT)),
                  Optional.of("ana")));

      Http.Answer created =
          signed(
              b,
              two,
              "POST",
              "/v1/routing/agents",
              "{\"id\":\"ana\",\"capacity\":{\"voice\":1},\"presence\":\"offline\"}",
              "AKSUP");
      assertEquals(201, created.status(), created.toString());
      assertEquals(
          leaderId,
          created.raw().headers().firstValue(RoutingForwarder.ROUTED_BY).orElse(""),
          "the follower forwarded; the leader served");

      Http.Answer own =
          signed(
              b,
              two,
              "PUT",
              "/v1/routing/agents/ana/presence",
              "{\"presence\":\"available\"}",
              "AKANA");
      assertEquals(200, own.status(), own.toString());
      signed(
          b,
          two,
          "POST",
          "/v1/routing/agents",
          "{\"id\":\"bob\",\"capacity\":{\"voice\":1},\"presence\":\"offline\"}",
          "AKSUP");
      Http.Answer other =
          signed(
              b,
              two,
              "PUT",
              "/v1/routing/agents/bob/presence",
              "{\"presence\":\"available\"}",
              "AKANA");
      assertEquals(403, other.status(), other.toString());
    }
  }

  @Test
  void aCallClaimingToBeForwarded_withoutTheServersCredential_isRefused() throws Exception {
    ServerConfig config =
        ServerConfig.resolve(
                Map.of(
                    "port", "0",
                    "routing-lease", "30s",
                    "postgres-url", url,
                    "postgres-user", "postgres",
                    "postgres-password", "postgres"),
                Map.of())
            .withAccessKeys(AccessKeys.parse("AKSUP:s-AKSUP"));
    try (SwitchboardServer leader = SwitchboardServer.start(config);
        Http a = new Http(leader.uri())) {
      Map<String, String> forged = new HashMap<>();
      forged.put("Content-Type", "application/json");
      forged.put(ForwardedCalls.FORWARDED_BY, "elsewhere/abcdef");
      forged.put(ForwardedCalls.PRINCIPAL, "AKSUP");
      forged.put(ForwardedCalls.AT, Long.toString(System.currentTimeMillis()));
      forged.put(ForwardedCalls.SIGNATURE, "00".repeat(32));
      Http.Answer refused = a.send("GET", "/v1/routing/stats", null, forged);
      assertEquals(401, refused.status(), refused.toString());
      assertEquals("UNAUTHENTICATED", refused.code());
      assertTrue(refused.text().contains("server signature"), refused.toString());
      assertFalse(refused.text().contains("s-AKSUP"));
    }
  }
}
