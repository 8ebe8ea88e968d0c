package io.switchboard.bench.routing;

import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Presence;
import io.switchboard.routing.Reservation;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingEvent;
import io.switchboard.routing.RoutingStats;
import io.switchboard.routing.Strategy;
import io.switchboard.routing.spi.MemoryRouterJournal;
import io.switchboard.routing.spi.RouterEntry;
import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.routing.spi.RouterSnapshot;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Switchboard's in-process router ({@code Router.builder().build()}, the {@code MemoryRouter}) on a
 * {@link ManualClock}, with or without a journal: longest idle, one voice slot per agent, offers
 * accepted by the simulation. Agents are {@code a<N>} with attributes {@code languages} and {@code
 * skills}; a contact's requirement is the selector {@code languages HAS 'es' AND skills HAS
 * 'billing' ...}.
 */
final class SwitchboardRouting implements RoutingTarget {

  static final String CHANNEL = "voice";

  private final ManualClock clock = ManualClock.create();
  private final Router router;
  private final String[] reservationOf;
  private final Map<Long, String> selectors = new HashMap<>();

  /** The journals the target can run with ({@link #describe}). */
  static final List<String> JOURNALS = List.of("noop", "memory", "none");

  /**
   * A router for up to {@code maxContacts} contacts with the journal named {@code journal}: {@code
   * noop} marks and batches every change as a durable router does and hands the batch to a journal
   * that drops it (the router's own cost of durability, without a store's); {@code memory} stores
   * it in a {@link MemoryRouterJournal} (hash maps of records); {@code none}, no journal.
   */
  SwitchboardRouting(int maxContacts, Decisions decisions, String journal) {
    this.reservationOf = new String[maxContacts];
    Router.Builder builder =
        Router.builder()
            .clock(clock)
            .strategy(Strategy.longestIdle())
            .offerTimeout(Duration.ofMinutes(5))
            .eventHistory(1_024)
            .contactHistory(1_024);
    switch (journal) {
      case "noop" -> builder.journal(new DiscardingJournal());
      case "memory" -> builder.journal(new MemoryRouterJournal());
      case "none" -> {}
      default -> throw new IllegalArgumentException("unknown journal " + journal);
    }
    this.router = builder.build();
    router.onEvent(
        event -> {
          if (event instanceof RoutingEvent.ReservationOffered offered) {
            Reservation r = offered.reservation();
            int contact = Integer.parseInt(r.contactId(), 1, r.contactId().length(), 10);
            reservationOf[contact] = r.id();
            decisions.decided(contact, Integer.parseInt(r.agentId(), 1, r.agentId().length(), 10));
          }
        });
  }

  @Override
  public void addAgent(int agent, long skills) {
    router.createAgent(
        NewAgent.builder("a" + agent)
            .attribute("languages", CallCenter.languages(skills))
            .attribute("skills", CallCenter.skills(skills))
            .capacity(CHANNEL, 1)
            .presence(Presence.available())
            .build());
  }

  @Override
  public void arrive(int contact, long requirement) {
    // masks use the low 40 bits only, which Long.hashCode folds into colliding buckets: spread
    String selector =
        selectors.computeIfAbsent(
            requirement * 0x9E3779B97F4A7C15L, k -> CallCenter.selector(requirement));
    router.createContact(NewContact.builder("c" + contact, CHANNEL).requirements(selector).build());
  }

  @Override
  public void complete(int contact) {
    router.complete("c" + contact);
  }

  @Override
  public void accept(int contact) {
    router.accept(reservationOf[contact]);
    reservationOf[contact] = null;
  }

  @Override
  public void advanceMillis(long millis) {
    clock.advanceMillis(millis);
  }

  /** Taken after the run (it scans), so it costs the measurement nothing. */
  @Override
  public String notes() {
    RoutingStats stats = router.stats();
    long groups = stats.groups().stream().filter(g -> g.contacts().waiting() > 0).count();
    return String.format(
        "%,d contacts waiting in %,d requirement groups at the end (%,d distinct sets seen)",
        stats.overall().waiting(), groups, selectors.size());
  }

  @Override
  public void close() {
    router.close();
  }

  static String describe(String journal) {
    return switch (journal) {
      case "noop" -> "every change batched for a journal that discards it (no store)";
      case "memory" -> "MemoryRouterJournal (records in hash maps)";
      default -> "none";
    };
  }

  /** A journal that stores nothing: the router does all its journaling work, the store none. */
  static final class DiscardingJournal implements RouterJournal {
    @Override
    public RouterSnapshot load() {
      return RouterSnapshot.empty();
    }

    @Override
    public void append(List<RouterEntry> entries) {}

    @Override
    public Ticket appendDurable(List<RouterEntry> entries) {
      return DONE;
    }

    @Override
    public void close() {}
  }
}
