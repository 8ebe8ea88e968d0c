package io.switchboard.tck.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.routing.Contact;
import io.switchboard.routing.ContactState;
import io.switchboard.routing.ContactUpdate;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Presence;
import io.switchboard.routing.Router;
import io.switchboard.routing.spi.MemoryRouterJournal;
import io.switchboard.routing.spi.RouterJournal;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a router journal stores, whatever the store: what a router wrote loads back exactly as the
 * reference {@link MemoryRouterJournal} fed the same calls holds it (every record kind and contact
 * state, deletes included), a router rebuilt from it equals one rebuilt from the reference, an
 * empty store loads nothing, and durable calls made at the same time from many threads are all
 * stored. A store module's test extends this class and says how to make an empty store ({@link
 * #newStore()}).
 */
public abstract class RouterJournalContract {

  /** A new, empty store. */
  protected abstract JournalStore newStore();

  private final ManualClock clock = ManualClock.create();
  private final List<AutoCloseable> opened = new ArrayList<>();

  @AfterEach
  final void closeAll() throws Exception {
    for (AutoCloseable c : opened.reversed()) {
      c.close();
    }
    opened.clear();
  }

  private <T extends AutoCloseable> T track(T closeable) {
    opened.add(closeable);
    return closeable;
  }

  private Router.Builder builder() {
    return Router.builder()
        .clock(clock)
        .offerTimeout(Duration.ofSeconds(10))
        .wrapUp("chat", Duration.ofSeconds(5))
        .contactHistory(3);
  }

  @Test
  void emptyStore_loadsNothing() {
    RouterJournal journal = track(newStore().open(clock));
    assertEquals(normalized(RouterSnapshot.empty()), normalized(journal.load()));
  }

  @Test
  void reopenedStore_loadsWhatTheReferenceJournalHolds_everyRecordKindAndState() {
    JournalStore store = newStore();
    MemoryRouterJournal reference = new MemoryRouterJournal();
    RouterJournal journal = store.open(clock);
    Router m = builder().journal(reference).build();
    Router p = builder().journal(journal).build();
    for (Consumer<Router> step : scenario()) {
      step.accept(m);
      step.accept(p);
    }
    clock.advance(Duration.ofSeconds(6)); // the wrap-up ends by a timer: written without waiting
    m.close();
    p.close();
    journal.close();

    RouterJournal reopened = track(store.open(clock));
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

    Router fromReference = track(builder().journal(reference).build());
    Router fromStore = track(builder().journal(reopened).build());
    assertEquals(fromReference.agents(), fromStore.agents());
    assertEquals(fromReference.waiting(), fromStore.waiting());
    for (StoredContact c : expected.contacts()) {
      assertEquals(fromReference.contact(c.id()), fromStore.contact(c.id()));
    }
  }

  /** Calls that leave every record kind and contact state in the store, deletes included. */
  private static List<Consumer<Router>> scenario() {
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
  void concurrentDurableCalls_allStored() throws Exception {
    JournalStore store = newStore();
    RouterJournal journal = store.open(clock);
    Router router = builder().journal(journal).build();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int thread = t;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 50; i++) {
                    router.createContact(
                        NewContact.builder("t" + thread + "-" + i, "voice").build());
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    router.close();
    journal.close();
    RouterJournal reopened = track(store.open(clock));
    assertEquals(400, reopened.load().contacts().size());
  }
}
