package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.internal.Bytes;
import io.switchboard.routing.Agent;
import io.switchboard.routing.Contact;
import io.switchboard.routing.ContactState;
import io.switchboard.routing.ContactUpdate;
import io.switchboard.routing.EventPage;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Presence;
import io.switchboard.routing.Reservation;
import io.switchboard.routing.ReservationState;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingErrorCode;
import io.switchboard.routing.RoutingEvent;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.TaskQueue;
import io.switchboard.time.ManualClock;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The router on the real store: close the router and the store, open both again, and everything is
 * where it was: agents, contacts in each state, a pending reservation that times out after the
 * restart, a wrap-up that ends after it, an escalation step that falls due after it, and event ids
 * that continue above the ones handed out before.
 */
class RocksRouterJournalTest {

  @TempDir Path dir;
  private final ManualClock clock = ManualClock.create();
  private RocksRouterJournal journal;
  private Router router;

  private void open() {
    journal = RocksRouterJournal.open(dir.resolve("routing"), Durability.sync());
    router =
        Router.builder()
            .clock(clock)
            .offerTimeout(Duration.ofSeconds(30))
            .missLimit(1)
            .journal(journal)
            .build();
  }

  private void restart() {
    router.close();
    journal.close();
    open();
  }

  @AfterEach
  void close() {
    router.close();
    journal.close();
  }

  @Test
  void changesWhileWaiting_cancelsAndTransfers_surviveARestart() {
    open();
    router.createAgent(
        NewAgent.builder("ann")
            .attribute("skills", List.of("billing"))
            .capacity("voice", 1)
            .presence(Presence.available())
            .build());
    router.createContact(NewContact.builder("t1", "voice").build());
    router.accept(router.contact("t1").reservationId().orElseThrow());
    for (String id : List.of("c1", "c2", "c3")) {
      clock.advance(Duration.ofSeconds(1));
      router.createContact(NewContact.builder(id, "voice").requirements("lang = 'fr'").build());
    }
    router.updateContact("c3", ContactUpdate.none().withPriority(4));
    router.updateContact("c2", ContactUpdate.none().withAttributes(Map.of("vip", true)));
    router.cancel("c1", "called back");
    router.transfer("t1", "general", java.util.Optional.of("lang = 'fr'"));
    List<Contact> waiting = router.waiting();

    restart();

    assertEquals(waiting, router.waiting());
    assertEquals(List.of("c3", "t1", "c2"), router.waiting().stream().map(Contact::id).toList());
    assertEquals(ContactState.CANCELLED, router.contact("c1").state());
    assertEquals(Map.of("vip", true), router.contact("c2").attributes());
    assertEquals(java.util.Optional.of("general"), router.contact("t1").queue());
    assertTrue(router.contact("t1").answeredAt().isPresent(), "the first answer is kept");
    assertEquals(Map.of(), router.agent("ann").load(), "ann's slot was freed by the transfer");
  }

  /** The contact routed through task queue {@code queue}, as a workspace routes it. */
  private static NewContact throughQueue(NewContact c, String queue) {
    return new NewContact(
        c.id(),
        c.channel(),
        c.attributes(),
        c.requirements(),
        c.priority(),
        c.escalations(),
        c.maxWait(),
        java.util.Optional.of(queue));
  }

  @Test
  void taskQueueRules_applyToRecoveredContacts_andHeldContactsStillCountTowardsTheCap() {
    List<TaskQueue> queues =
        List.of(
            new TaskQueue(
                "chat",
                java.util.Optional.empty(),
                TaskQueue.Order.LIFO,
                java.util.Optional.empty(),
                java.util.Optional.of(2),
                java.util.Optional.empty()));
    open();
    router.taskQueues(queues);
    router.createAgent(
        NewAgent.builder("ann").capacity("chat", 5).presence(Presence.available()).build());
    for (String id : List.of("q1", "q2", "q3", "q4")) {
      clock.advance(Duration.ofSeconds(1));
      router.createContact(throughQueue(NewContact.builder(id, "chat").build(), "chat"));
    }
    router.accept(router.contact("q1").reservationId().orElseThrow());
    assertEquals(List.of("q4", "q3"), router.waiting().stream().map(Contact::id).toList());

    restart();
    router.taskQueues(queues); // as the workspace does when it opens its router

    assertEquals(List.of("q4", "q3"), router.waiting().stream().map(Contact::id).toList());
    router.updateCapacity("ann", Map.of("chat", 6));
    assertEquals(2, router.waiting().size(), "ann still holds 2 of the queue's contacts");
    router.complete("q1", Duration.ZERO);
    assertEquals(ContactState.OFFERED, router.contact("q4").state(), "newest first");
    assertEquals(1, router.taskQueueStats("chat").offered(), "counted since the restart");
  }

  @Test
  void everyStateSurvivesARestart_andTimersFireAfterIt() {
    open();
    Map<String, Object> attrs =
        Map.of(
            "skills",
            List.of("billing", "sales"),
            "lang",
            "es",
            "level",
            4,
            "big",
            12345678901L,
            "score",
            0.75,
            "exact",
            new BigDecimal("1.50"),
            "senior",
            true);
    router.createAgent(
        NewAgent.builder("ana")
            .attributes(attrs)
            .capacity("voice", 1)
            .capacity("chat", 2)
            .presence(Presence.available())
            .build());
    router.createAgent(
        NewAgent.builder("bob")
            .attribute("skills", List.of("sales"))
            .capacity("voice", 1)
            .presence(Presence.away("lunch"))
            .build());
    // ana: c6 completed, c1 assigned (voice), c2 in wrap-up (chat), c3 offered (chat); c4 and
    // c7 (with an escalation step) queued; c5 abandoned; c8 timed out.
    router.createContact(NewContact.builder("c6", "voice").build());
    router.accept(router.contact("c6").reservationId().orElseThrow());
    router.complete("c6");
    router.createContact(NewContact.builder("c1", "voice").requirements("lang = 'es'").build());
    router.accept(router.contact("c1").reservationId().orElseThrow());
    router.createContact(NewContact.builder("c2", "chat").build());
    router.accept(router.contact("c2").reservationId().orElseThrow());
    router.createContact(NewContact.builder("c3", "chat").build());
    router.complete("c2", Duration.ofSeconds(60));
    router.createContact(
        NewContact.builder("c4", "voice").requirements("skills HAS 'sales'").priority(2).build());
    router.createContact(NewContact.builder("c5", "voice").build());
    router.abandon("c5");
    router.createContact(
        NewContact.builder("c7", "voice")
            .requirements("lang = 'fr'")
            .escalate(Duration.ofSeconds(45), "skills HAS 'sales'")
            .build());
    router.createContact(
        NewContact.builder("c8", "voice")
            .requirements("lang = 'de'")
            .maxWait(Duration.ofSeconds(5))
            .build());
    clock.advanceMillis(5_000);
    assertEquals(ContactState.TIMED_OUT, router.contact("c8").state());
    String offer = router.contact("c3").reservationId().orElseThrow();

    List<Agent> agentsBefore = router.agents();
    List<Contact> contactsBefore = contacts(router);
    List<Contact> waitingBefore = router.waiting();
    Reservation pendingBefore = router.reservation(offer);
    long lastIdBefore = router.events(0, 10).lastId();

    restart();

    assertEquals(agentsBefore, router.agents());
    assertEquals(contactsBefore, contacts(router));
    assertEquals(waitingBefore, router.waiting());
    assertEquals(pendingBefore, router.reservation(offer));
    assertEquals(attrs, router.agent("ana").attributes());
    assertEquals(List.of(pendingBefore), router.pendingReservations("ana"));

    // A reconnecting client is told it missed events, and new ids are above every earlier one.
    EventPage resumed = router.events(lastIdBefore, 100);
    assertTrue(resumed.missed());
    router.presence("bob", Presence.available());
    List<RoutingEvent> after = router.events(lastIdBefore, 100).events();
    assertTrue(!after.isEmpty() && after.get(0).id() > lastIdBefore, after.toString());
    // bob took the priority-2 sales contact c4 at once.
    assertEquals(ContactState.OFFERED, router.contact("c4").state());
    assertEquals("bob", router.contact("c4").agentId().orElseThrow());

    // The offer to ana (made at 0 s, 30 s timeout) times out after the restart: c3 back in line,
    // and ana (miss limit 1) set away.
    clock.advanceMillis(25_000);
    assertEquals(ReservationState.TIMED_OUT, router.reservation(offer).state());
    assertEquals(Presence.Kind.AWAY, router.agent("ana").presence().kind());
    assertEquals(ContactState.QUEUED, router.contact("c3").state());
    RoutingException expired = assertThrows(RoutingException.class, () -> router.accept(offer));
    assertEquals(RoutingErrorCode.RESERVATION_EXPIRED, expired.code());

    restart();
    // 45 s: c7 escalates to sales; at 60 s c2's wrap-up ends.
    clock.advanceMillis(15_000);
    assertEquals(1, router.contact("c7").escalationStep());
    assertEquals(ContactState.WRAP_UP, router.contact("c2").state());
    restart();
    clock.advanceMillis(15_000);
    assertEquals(ContactState.COMPLETED, router.contact("c2").state());
    router.complete("c1");
    assertEquals(ContactState.COMPLETED, router.contact("c1").state());
    assertEquals(0, router.agent("ana").load().size());
  }

  @Test
  void aNewerFormatIsRefusedWithAClearError() throws Exception {
    open();
    router.close();
    journal.close();
    try (org.rocksdb.RocksDB db = org.rocksdb.RocksDB.open(dir.resolve("routing").toString())) {
      db.put(
          "format".getBytes(),
          new Bytes.Writer(4).i(io.switchboard.routing.spi.RouterRecordCodec.FORMAT + 1).toArray());
    }
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> RocksRouterJournal.open(dir.resolve("routing"), Durability.sync()));
    assertTrue(
        e.getMessage()
            .contains("format " + (io.switchboard.routing.spi.RouterRecordCodec.FORMAT + 1)),
        e.getMessage());
  }

  private static List<Contact> contacts(Router router) {
    return List.of("c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8").stream()
        .map(router::contact)
        .toList();
  }
}
