package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.routing.Contact;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Presence;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingErrorCode;
import io.switchboard.routing.RoutingException;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What only the PostgreSQL router store does: a write under an epoch that lost the lease is refused
 * and stops the router, reservation ids never repeat after a leader dies without closing (they are
 * reserved a block at a time), and a store of another format is refused. What every router store
 * does (loads what the reference journal holds, stores concurrent durable calls, continues the
 * reservation ids after a graceful handover) is the routing contract's ({@link
 * PostgresRouterContractTest}, {@link PostgresRouterJournalContractTest}).
 */
class PostgresRouterJournalTest {

  private DataSource ds;
  private ManualClock clock;

  @BeforeEach
  void fresh() {
    ds = RouterTables.fresh();
    clock = ManualClock.create();
  }

  private Router.Builder builder() {
    return Router.builder()
        .clock(clock)
        .offerTimeout(Duration.ofSeconds(10))
        .wrapUp("chat", Duration.ofSeconds(5))
        .contactHistory(3);
  }

  private static NewContact voice(String id, String requirements) {
    return NewContact.builder(id, "voice").requirements(requirements).build();
  }

  @Test
  void writeAfterTheLeasePassedOn_isRefused_routerStops_newLeaderSeesNothingOfIt() {
    long first = RouterTables.takeLease(ds, "a");
    PostgresRouterJournal old = PostgresRouterJournal.open(ds, first);
    Router deposed = builder().journal(old).build();
    deposed.createAgent(NewAgent.builder("ana").capacity("voice", 1).build());

    long second = RouterTables.takeLease(ds, "b");
    RoutingException refused =
        assertThrows(
            RoutingException.class,
            () -> deposed.createAgent(NewAgent.builder("bob").capacity("voice", 1).build()));
    assertEquals(RoutingErrorCode.UNAVAILABLE, refused.code());
    assertTrue(
        refused.getMessage().contains("no longer holds the routing lease")
            && refused.getMessage().contains("epoch " + second + " is held by b"),
        refused.getMessage());
    RoutingException stopped = assertThrows(RoutingException.class, deposed::agents);
    assertEquals(RoutingErrorCode.UNAVAILABLE, stopped.code());
    assertTrue(old.failure().isPresent());

    PostgresRouterJournal current = PostgresRouterJournal.open(ds, second);
    assertEquals(List.of("ana"), current.load().agents().stream().map(a -> a.id()).toList());
    deposed.close();
    old.close();
    current.close();
  }

  @Test
  void leaderDiesWithoutClosing_nextLeaderStartsReservationIdsAboveTheReservedBlock() {
    long first = RouterTables.takeLease(ds, "a");
    PostgresRouterJournal dying = PostgresRouterJournal.open(ds, first);
    Router a = builder().journal(dying).build();
    a.createAgent(
        NewAgent.builder("ana").capacity("voice", 1).presence(Presence.available()).build());
    assertEquals("res-1", a.createContact(voice("c1", "level IS NULL")).reservationId().get());
    dying.abandon();
    a.close();

    long second = RouterTables.takeLease(ds, "b");
    PostgresRouterJournal next = PostgresRouterJournal.open(ds, second);
    Router b = builder().journal(next).build();
    b.createAgent(
        NewAgent.builder("bo").capacity("voice", 1).presence(Presence.available()).build());
    Contact again = b.reject("res-1"); // back in line (resting from ana), offered to bo: a new id
    assertEquals(
        "res-" + (PostgresRouterJournal.RESERVATION_BLOCK + 1), again.reservationId().get());
    b.close();
    next.close();
  }

  @Test
  void storeOfAnotherFormat_isRefusedNamingBoth() {
    RouterTables.sql(ds, "update sb_router_state set format = 7");
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> PostgresRouterJournal.open(ds, 1));
    assertTrue(
        e.getMessage().contains("format 7") && e.getMessage().contains("format 1 only"),
        e.getMessage());
  }
}
