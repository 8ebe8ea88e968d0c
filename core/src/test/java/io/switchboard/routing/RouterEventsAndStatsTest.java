package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class RouterEventsAndStatsTest {

  private final ManualClock clock = ManualClock.create();

  @Test
  void events_afterId_resumeWithoutGapsAndInOrder() {
    Router router = Router.builder().clock(clock).build();
    List<RoutingEvent> heard = new ArrayList<>();
    router.onEvent(heard::add);
    router.createAgent(
        NewAgent.builder("a").capacity("voice", 1).presence(Presence.available()).build());
    Contact c = router.createContact(NewContact.builder("c", "voice").build());
    router.accept(c.reservationId().orElseThrow());

    EventPage all = router.events(0, 100);
    EventPage rest = router.events(2, 100);

    assertEquals(
        List.of("agent.created", "contact.queued", "reservation.offered", "reservation.accepted"),
        all.events().stream().map(RoutingEvent::type).toList());
    assertEquals(List.of(1L, 2L, 3L, 4L), all.events().stream().map(RoutingEvent::id).toList());
    assertEquals(all.events().subList(2, 4), rest.events());
    assertEquals(all.events(), heard);
    assertEquals(Optional.of("a"), all.events().get(2).agentConcerned());
    assertFalse(all.missed());
  }

  @Test
  void events_olderThanHistory_reportedMissed() {
    Router router = Router.builder().clock(clock).eventHistory(16).build();
    for (int i = 0; i < 20; i++) {
      router.createContact(NewContact.builder("c" + i, "voice").build());
    }
    EventPage page = router.events(0, 100);
    assertTrue(page.missed());
    assertEquals(5, page.events().get(0).id());
    assertEquals(20, page.lastId());
  }

  @Test
  void listener_subscriptionClosed_hearsNothingMore() {
    Router router = Router.builder().clock(clock).build();
    List<RoutingEvent> heard = new ArrayList<>();
    Router.Subscription subscription = router.onEvent(heard::add);
    router.createContact(NewContact.builder("c1", "voice").build());
    subscription.close();
    router.createContact(NewContact.builder("c2", "voice").build());
    assertEquals(1, heard.size());
  }

  @Test
  void stats_serviceLevelAndSpeedOfAnswer_overSlidingWindow() {
    Router router =
        Router.builder()
            .clock(clock)
            .serviceLevelThreshold(Duration.ofSeconds(20))
            .statsWindow(Duration.ofMinutes(1))
            .build();
    router.createContact(NewContact.builder("fast", "voice").requirements("lang = 'es'").build());
    router.createContact(NewContact.builder("slow", "voice").requirements("lang = 'es'").build());
    router.createContact(NewContact.builder("gone", "voice").build());
    clock.advanceSeconds(10);
    router.createAgent(
        NewAgent.builder("a")
            .attribute("lang", "es")
            .capacity("voice", 2)
            .presence(Presence.available())
            .build());
    router.accept(router.contact("fast").reservationId().orElseThrow());
    clock.advanceSeconds(20);
    router.accept(router.contact("slow").reservationId().orElseThrow());
    router.abandon("gone");

    RoutingStats stats = router.stats();

    ContactStats overall = stats.overall();
    assertEquals(2, overall.answered());
    assertEquals(1, overall.abandoned());
    assertEquals(OptionalDouble.of(1.0 / 3), overall.serviceLevel());
    assertEquals(Optional.of(Duration.ofSeconds(20)), overall.averageSpeedOfAnswer());
    GroupStats spanish =
        stats.groups().stream()
            .filter(g -> g.requirements().equals(Optional.of("lang = 'es'")))
            .findFirst()
            .orElseThrow();
    assertEquals(OptionalDouble.of(0.5), spanish.contacts().serviceLevel());
    assertEquals(Map.of("voice", 1.0), stats.occupancyByChannel());
    assertEquals(1, stats.agentsByPresence().get(Presence.Kind.AVAILABLE));

    clock.advanceSeconds(61);
    assertEquals(0, router.stats().overall().answered());
    assertEquals(OptionalDouble.empty(), router.stats().overall().serviceLevel());
  }

  @Test
  void stats_waitingContacts_countAndLongestWait() {
    Router router = Router.builder().clock(clock).build();
    router.createContact(NewContact.builder("old", "voice").build());
    clock.advanceSeconds(30);
    router.createContact(NewContact.builder("new", "voice").priority(5).build());

    ContactStats overall = router.stats().overall();

    assertEquals(2, overall.waiting());
    assertEquals(Duration.ofSeconds(30), overall.longestWait());
  }
}
