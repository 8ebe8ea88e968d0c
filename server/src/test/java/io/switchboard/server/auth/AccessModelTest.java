package io.switchboard.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Grants, principals and what they allow, without a server. */
class AccessModelTest {

  @Test
  void glob_matchesRunsOfCharacters() {
    Grant g = Grant.parse("queue:send on orders-*");
    assertTrue(g.matches("orders-1"));
    assertTrue(g.matches("orders-"));
    assertFalse(g.matches("billing"));
    assertFalse(g.matches("my-orders-1"));
    assertTrue(Grant.parse("queue:send on *-dlq").matches("orders-dlq"));
    assertTrue(Grant.parse("queue:send on a*b*c").matches("a-b-b-c"));
    assertFalse(Grant.parse("queue:send on a*b*c").matches("a-b-b-"));
    assertTrue(Grant.parse("queue:send on *").matches(""));
    assertTrue(Grant.parse("queue:send on exact.name").matches("exact.name"));
    assertFalse(Grant.parse("queue:send on exact.name").matches("exactxname"), "no regex");
  }

  @Test
  void grant_parse_refusesWhatItCannotRead_namingTheKnownActions() {
    IllegalArgumentException unknown =
        assertThrows(IllegalArgumentException.class, () -> Grant.parse("queue:write on *"));
    assertTrue(unknown.getMessage().contains("queue:write"), unknown.getMessage());
    assertTrue(unknown.getMessage().contains("queue:send"), unknown.getMessage());
    IllegalArgumentException shape =
        assertThrows(IllegalArgumentException.class, () -> Grant.parse("queue:send orders"));
    assertTrue(shape.getMessage().contains("ACTION[,ACTION...] on PATTERN"), shape.getMessage());
    assertEquals(
        "queue:send,queue:receive on orders-*",
        Grant.parse(" queue:receive , queue:send  on  orders-* ").toString());
  }

  @Test
  void principal_may_followsTheDesign() {
    Principal orders =
        new Principal(
            "ORDERS",
            "s",
            Optional.empty(),
            List.of(Grant.parse("queue:send,queue:browse on orders-*")),
            Optional.empty());
    assertTrue(orders.may(Access.queue(Action.QUEUE_SEND, "orders-1")));
    assertFalse(orders.may(Access.queue(Action.QUEUE_SEND, "billing")));
    assertFalse(orders.may(Access.queue(Action.QUEUE_RECEIVE, "orders-1")));
    assertTrue(orders.may(Access.any(Action.QUEUE_BROWSE)), "listing: some grant of it");
    assertFalse(orders.may(Access.any(Action.METRICS_READ)));

    Principal admin = Principal.admin("ADMIN", "s");
    for (Action a : Action.values()) {
      assertTrue(admin.may(Access.queue(a, "anything")), a.toString());
    }

    Principal agent =
        new Principal(
            "ANN",
            "s",
            Optional.empty(),
            List.of(Grant.of("default", Action.ROUTING_AGENT)),
            Optional.of("ann"));
    assertTrue(agent.may(Access.routing(Action.ROUTING_AGENT, Optional.of("ann"))));
    assertFalse(agent.may(Access.routing(Action.ROUTING_AGENT, Optional.of("bob"))));
    assertFalse(agent.may(Access.routing(Action.ROUTING_SUPERVISOR, Optional.empty())));

    Principal supervisor =
        new Principal(
            "SUP",
            "s",
            Optional.empty(),
            List.of(Grant.of("default", Action.ROUTING_SUPERVISOR)),
            Optional.empty());
    assertTrue(supervisor.may(Access.routing(Action.ROUTING_AGENT, Optional.of("bob"))));
    assertFalse(supervisor.may(Access.queue(Action.QUEUE_SEND, "x")));
  }

  @Test
  void anAgentGrant_needsTheAgentItActsAs() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new Principal(
                    "ANN",
                    "s",
                    Optional.empty(),
                    List.of(Grant.of("default", Action.ROUTING_AGENT)),
                    Optional.empty()));
    assertTrue(e.getMessage().contains("names no agent"), e.getMessage());
  }

  @Test
  void principal_neverShowsItsSecret() {
    Principal p =
        new Principal(
            "AKID", "top-secret", Optional.of("svc"), List.of(Grant.admin()), Optional.empty());
    assertFalse(p.toString().contains("top-secret"), p.toString());
    assertTrue(p.toString().contains("AKID"), p.toString());
    assertTrue(p.secretMatches("top-secret"));
    assertFalse(p.secretMatches("top-secreT"));
  }

  @Test
  void keyRing_putFindListRevoke() {
    KeyRing ring = new AuditedKeyRing(new MemoryKeyRing());
    assertTrue(ring.keyless());
    ring.put(Principal.admin("A", "1"));
    ring.put(Principal.admin("B", "2"));
    assertEquals(2, ring.list().size());
    ring.put(Principal.admin("A", "3")); // replaces
    assertTrue(ring.find("A").orElseThrow().secretMatches("3"));
    assertTrue(ring.revoke("A"));
    assertFalse(ring.revoke("A"));
    assertEquals(Optional.empty(), ring.find("A"));
    assertTrue(ring.revoke("B"));
    assertTrue(ring.list().isEmpty());
    assertFalse(ring.keyless(), "revoking the last key locks the server, it does not open it");
    assertThrows(
        IllegalArgumentException.class,
        () -> new MemoryKeyRing(List.of(Principal.admin("X", "1"), Principal.admin("X", "2"))));
  }
}
