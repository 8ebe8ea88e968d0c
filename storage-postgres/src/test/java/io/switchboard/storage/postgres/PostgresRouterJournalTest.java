package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.routing.Contact;
import io.switchboard.routing.ContactState;
import io.switchboard.routing.ContactUpdate;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Presence;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingErrorCode;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.spi.MemoryRouterJournal;
import io.switchboard.routing.spi.RouterSnapshot;
import io.switchboard.routing.spi.StoredContact;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The router's store in PostgreSQL: what a router wrote loads back exactly (compared with the
 * reference {@link MemoryRouterJournal} fed the same calls), a write under an epoch that lost the
 * lease is refused and stops the router, reservation ids never repeat after a leader dies, and
 * concurrent durable calls are all stored.
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

  @Test
  void reopenedStore_loadsWhatTheReferenceJournalHolds_everyRecordKindAndState() {
    long epoch = RouterTables.takeLease(ds, "a");
    MemoryRouterJournal reference = new MemoryRouterJournal();
    PostgresRouterJournal pg = PostgresRouterJournal.open(ds, epoch);
    Router m = builder().journal(reference).build();
    Router p = builder().journal(pg).build();
    for (Consumer<Router> step : scenario()) {
      step.accept(m);
      step.accept(p);
    }
    clock.advance(Duration.ofSeconds(6)); // the wrap-up ends by a timer: written without waiting
    m.close();
    p.close();
    pg.close();

    PostgresRouterJournal reopened = PostgresRouterJournal.open(ds, epoch);
    RouterSnapshot expected = reference.load();
    RouterSnapshot loaded = reopened.load();
    assertEquals(normalized(expected), normalized(loaded));
    Set<ContactState> states =
        loaded.contacts().stream().map(StoredContact::state).collect(Collectors.toSet());
    assertEquals(
        Set.of(
            ContactState.QUEUED,
            ContactState.OFFERED,
            ContactState.ASSIGNED,
            ContactState.COMPLETED,
            ContactState.ABANDONED,
            ContactState.CANCELLED),
        states);

    Router fromReference = builder().journal(reference).build();
    Router fromPostgres = builder().journal(reopened).build();
    assertEquals(fromReference.agents(), fromPostgres.agents());
    assertEquals(fromReference.waiting(), fromPostgres.waiting());
    for (StoredContact c : expected.contacts()) {
      assertEquals(fromReference.contact(c.id()), fromPostgres.contact(c.id()));
    }
    fromReference.close();
    fromPostgres.close();
    reopened.close();
  }

  /** Calls that leave every record kind and contact state in the store, deletes included. */
  private List<Consumer<Router>> scenario() {
    List<Consumer<Router>> steps = new ArrayList<>();
    steps.add(
        r ->
            r.createAgent(
                NewAgent.builder("ana")
                    .attributes(
                        Map.of(
                            "skills",
                            List.of("es", "billing"),
                            "level",
                            3,
                            "senior",
                            true,
                            "rate",
                            1.5))
                    .capacity("voice", 1)
                    .capacity("chat", 2)
                    .presence(Presence.available())
                    .build()));
    steps.add(
        r ->
            r.createAgent(
                NewAgent.builder("bob")
                    .attribute("skills", List.of("en"))
                    .capacity("voice", 1)
                    .presence(Presence.available())
                    .build()));
    steps.add(
        r ->
            r.createAgent(
                NewAgent.builder("cy")
                    .capacity("voice", 1)
                    .presence(Presence.away("lunch"))
                    .build()));
    steps.add(r -> r.accept(r.createContact(voice("c1", "skills HAS 'es'")).reservationId().get()));
    steps.add(
        r ->
            r.createContact(
                NewContact.builder("c2", "chat")
                    .requirements("skills HAS 'fr'")
                    .escalate(Duration.ofSeconds(60), "skills HAS 'en'")
                    .maxWait(Duration.ofMinutes(10))
                    .build()));
    steps.add(r -> r.createContact(voice("c3", "skills HAS 'en'"))); // offered to bob, pending
    steps.add(
        r -> {
          Contact c4 = r.createContact(NewContact.builder("c4", "chat").build());
          r.accept(c4.reservationId().get());
          r.complete("c4"); // wrap-up 5 s on chat
        });
    steps.add(r -> r.abandon(r.createContact(voice("c5", "skills HAS 'zz'")).id()));
    steps.add(r -> r.abandon(r.createContact(voice("c6", "skills HAS 'zz'")).id()));
    // cancelled between abandons, so that the history of 3 keeps both states
    steps.add(r -> r.cancel(r.createContact(voice("c9", "skills HAS 'zz'")).id(), "called back"));
    steps.add(r -> r.abandon(r.createContact(voice("c7", "skills HAS 'zz'")).id()));
    steps.add(
        r ->
            r.updateContact(
                r.createContact(voice("c8", "skills HAS 'zz'")).id(),
                ContactUpdate.none().withPriority(-5).withAttributes(Map.of("vip", true))));
    steps.add(r -> r.removeAgent("cy"));
    steps.add(r -> r.updateAttributes("bob", Map.of("skills", List.of("en", "fr"))));
    return steps;
  }

  private static NewContact voice(String id, String requirements) {
    return NewContact.builder(id, "voice").requirements(requirements).build();
  }

  /** A snapshot with its lists keyed by id (a snapshot has no order). */
  private static List<Object> normalized(RouterSnapshot s) {
    return List.of(
        s.counters(),
        byId(s.agents(), a -> a.id()),
        byId(s.contacts(), c -> c.id()),
        byId(s.reservations(), r -> r.id()));
  }

  private static <T> Map<String, T> byId(List<T> records, Function<T, String> id) {
    Map<String, T> out = new TreeMap<>();
    records.forEach(r -> out.put(id.apply(r), r));
    return out;
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
  void leaderClosesGracefully_nextLeaderContinuesTheReservationIdsWithoutAGap() {
    long first = RouterTables.takeLease(ds, "a");
    PostgresRouterJournal closing = PostgresRouterJournal.open(ds, first);
    Router a = builder().journal(closing).build();
    a.createAgent(
        NewAgent.builder("ana").capacity("voice", 1).presence(Presence.available()).build());
    a.createContact(voice("c1", "level IS NULL"));
    a.close();
    closing.close();

    long second = RouterTables.takeLease(ds, "b");
    PostgresRouterJournal next = PostgresRouterJournal.open(ds, second);
    Router b = builder().journal(next).build();
    b.createAgent(
        NewAgent.builder("bo").capacity("voice", 1).presence(Presence.available()).build());
    assertEquals("res-2", b.reject("res-1").reservationId().get()); // to bo: c1 rests from ana
    b.close();
    next.close();
  }

  @Test
  void concurrentDurableCalls_allStored() throws Exception {
    long epoch = RouterTables.takeLease(ds, "a");
    PostgresRouterJournal pg = PostgresRouterJournal.open(ds, epoch);
    Router router = builder().journal(pg).build();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      int thread = t;
      done.add(
          pool.submit(
              () -> {
                for (int i = 0; i < 50; i++) {
                  router.createContact(NewContact.builder("t" + thread + "-" + i, "voice").build());
                }
              }));
    }
    for (Future<?> f : done) {
      f.get();
    }
    pool.shutdown();
    router.close();
    pg.close();
    PostgresRouterJournal reopened = PostgresRouterJournal.open(ds, epoch);
    assertEquals(400, reopened.load().contacts().size());
    reopened.close();
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
