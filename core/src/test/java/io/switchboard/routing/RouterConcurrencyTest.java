package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.selector.Selector;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * Many threads change presence, create contacts, accept, reject and complete at once, while the
 * clock jumps. Checked: no agent over capacity, no contact with two live offers, and once quiet no
 * eligible agent idle while a contact it matches waits.
 */
class RouterConcurrencyTest {

  private static final String[] REQUIREMENTS = {"skills HAS 'a'", "skills HAS 'b'", "lang = 'es'"};

  @Test
  void manyThreads_mixedOperations_invariantsHold() throws Exception {
    ManualClock clock = ManualClock.create();
    Router router =
        Router.builder().clock(clock).offerTimeout(Duration.ofSeconds(5)).missLimit(0).build();
    ConcurrentLinkedQueue<RoutingEvent> events = new ConcurrentLinkedQueue<>();
    router.onEvent(events::add);
    for (int i = 0; i < 20; i++) {
      router.createAgent(
          NewAgent.builder("a" + i)
              .attribute("skills", i % 2 == 0 ? List.of("a") : List.of("a", "b"))
              .attribute("lang", i % 3 == 0 ? "es" : "en")
              .capacity("voice", 1)
              .capacity("chat", 2)
              .build());
    }
    int threads = 8;
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    for (int t = 0; t < threads; t++) {
      int n = t;
      workers.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      start.await();
                      work(router, clock, n);
                    } catch (Throwable e) {
                      failures.add(e);
                    }
                  }));
    }
    start.countDown();
    for (Thread w : workers) {
      w.join();
    }
    assertTrue(failures.isEmpty(), () -> failures.peek().toString());

    for (Agent agent : router.agents()) {
      agent
          .load()
          .forEach(
              (channel, load) ->
                  assertTrue(load <= agent.capacity().getOrDefault(channel, 0), agent.toString()));
    }
    Map<String, String> liveOffer = new HashMap<>();
    Map<String, java.time.Instant> refused = new HashMap<>(); // contact + agent: when, last
    for (RoutingEvent e : events) {
      switch (e) {
        case RoutingEvent.ReservationOffered o -> {
          String previous = liveOffer.put(o.reservation().contactId(), o.reservation().id());
          assertEquals(null, previous, "contact offered twice at once: " + o);
        }
        case RoutingEvent.ReservationRejected r -> {
          liveOffer.remove(r.contactId());
          refused.merge(r.contactId() + " " + r.agentId(), r.at(), (a, b) -> a.isAfter(b) ? a : b);
        }
        case RoutingEvent.ReservationTimedOut r -> {
          liveOffer.remove(r.contactId());
          refused.merge(r.contactId() + " " + r.agentId(), r.at(), (a, b) -> a.isAfter(b) ? a : b);
        }
        case RoutingEvent.ReservationCancelled r -> liveOffer.remove(r.contactId());
        default -> {}
      }
    }
    List<Agent> agents = router.agents();
    for (Contact waiting : router.waiting()) {
      Selector requirement = Selector.parse(waiting.requirements().orElseThrow());
      for (Agent agent : agents) {
        java.time.Instant last = refused.get(waiting.id() + " " + agent.id());
        boolean resting =
            last != null && last.plus(Router.DEFAULT_REST_PERIOD).isAfter(clock.instant());
        assertTrue(
            !agent.eligibleFor(waiting.channel())
                || !requirement.matches(agent.attributes()::get)
                || resting,
            agent.id() + " idle while " + waiting.id() + " waits");
      }
    }
  }

  private static void work(Router router, ManualClock clock, int thread) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int i = 0; i < 3_000; i++) {
      int dice = random.nextInt(100);
      String agent = "a" + random.nextInt(20);
      try {
        if (dice < 25) {
          router.presence(
              agent, random.nextInt(4) == 0 ? Presence.away("break") : Presence.available());
        } else if (dice < 50) {
          router.createContact(
              NewContact.builder("t" + thread + "-" + i, random.nextBoolean() ? "voice" : "chat")
                  .requirements(REQUIREMENTS[random.nextInt(REQUIREMENTS.length)])
                  .build());
        } else if (dice < 85) {
          for (Reservation r : router.pendingReservations(agent)) {
            if (random.nextInt(4) == 0) {
              router.reject(r.id());
            } else {
              router.complete(router.accept(r.id()).id());
            }
          }
        } else if (dice < 95) {
          List<Contact> waiting = router.waiting();
          if (!waiting.isEmpty()) {
            router.abandon(waiting.get(random.nextInt(waiting.size())).id());
          }
        } else if (thread == 0) {
          clock.advanceSeconds(1);
        }
      } catch (RoutingException raced) {
        // another thread got there first (the reservation expired, the contact left): expected
        if (raced.code() == RoutingErrorCode.INVALID_ARGUMENT) {
          throw raced;
        }
      }
    }
  }
}
