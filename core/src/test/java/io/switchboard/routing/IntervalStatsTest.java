package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.routing.spi.MemoryRouterJournal;
import io.switchboard.routing.spi.RouterEntry;
import io.switchboard.routing.spi.StoredInterval;
import io.switchboard.routing.spi.WorkspaceStore;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The lasting statistics on a manual clock standing at a quarter-hour (2030-01-01T00:00Z): what is
 * counted, in which 15-minute interval, and that it survives a restart on the journal.
 */
class IntervalStatsTest {

  private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
  private static final Duration QUARTER = Duration.ofMinutes(15);

  private final ManualClock clock = ManualClock.at(T0);
  private final MemoryRouterJournal journal = new MemoryRouterJournal();
  private Router router = build();

  private Router build() {
    return Router.builder()
        .clock(clock)
        .serviceLevelThreshold(Duration.ofSeconds(20))
        .journal(journal)
        .build();
  }

  @AfterEach
  void close() {
    router.close();
  }

  private void restart() {
    router.close();
    router = build();
  }

  private StatisticsReport day() {
    return router.statistics(StatisticsQuery.between(T0, T0.plus(Duration.ofDays(1))));
  }

  private static Map<Instant, IntervalFigures> byStart(StatisticsReport r) {
    Map<Instant, IntervalFigures> out = new java.util.LinkedHashMap<>();
    r.intervals().forEach(i -> out.put(i.start(), i.figures()));
    return out;
  }

  private void agent(String id) {
    router.createAgent(
        NewAgent.builder(id).capacity("voice", 1).presence(Presence.available()).build());
  }

  @Test
  void handleCrossingAnIntervalBoundary_countedWhereItEnds() {
    agent("a1");
    clock.advance(Duration.ofMinutes(10));
    router.createContact(NewContact.builder("c1", "voice").build());
    Reservation offer = router.pendingReservations("a1").get(0);
    clock.advanceSeconds(5);
    router.accept(offer.id());
    clock.advance(Duration.ofMinutes(10)); // handling crosses 00:15
    router.complete("c1");

    Map<Instant, IntervalFigures> intervals = byStart(day());
    IntervalFigures first = intervals.get(T0);
    assertEquals(1, first.arrived());
    assertEquals(1, first.offered());
    assertEquals(1, first.accepted());
    assertEquals(1, first.answered());
    assertEquals(1, first.answeredWithinThreshold());
    assertEquals(0, first.handled());
    IntervalFigures second = intervals.get(T0.plus(QUARTER));
    assertEquals(1, second.handled());
    assertEquals(Duration.ofMinutes(10).toMillis(), second.handleMillis());
    assertEquals(0, second.offered());
  }

  @Test
  void activityTime_splitAcrossIntervals() {
    agent("a1");
    clock.advance(Duration.ofMinutes(20));
    router.presence("a1", Presence.away("lunch"));
    clock.advance(Duration.ofMinutes(5));
    router.presence("a1", Presence.available());

    Map<Instant, IntervalFigures> intervals = byStart(day());
    assertEquals(Map.of("available", QUARTER.toMillis()), intervals.get(T0).activityMillis());
    assertEquals(
        Map.of(
            "available",
            Duration.ofMinutes(5).toMillis(),
            "away",
            Duration.ofMinutes(5).toMillis()),
        intervals.get(T0.plus(QUARTER)).activityMillis());

    // the stint in progress counts up to now in a query, and survives a restart
    clock.advance(Duration.ofMinutes(10)); // 00:35
    restart();
    StatisticsReport agent =
        router.statistics(StatisticsQuery.between(T0, T0.plus(Duration.ofDays(1))).forAgent("a1"));
    Map<Instant, IntervalFigures> a = byStart(agent);
    assertEquals(
        Map.of(
            "available",
            Duration.ofMinutes(10).toMillis(),
            "away",
            Duration.ofMinutes(5).toMillis()),
        a.get(T0.plus(QUARTER)).activityMillis());
    assertEquals(
        Map.of("available", Duration.ofMinutes(5).toMillis()),
        a.get(T0.plus(QUARTER.multipliedBy(2))).activityMillis());
    assertEquals(
        Map.of(
            "available",
            Duration.ofMinutes(30).toMillis(),
            "away",
            Duration.ofMinutes(5).toMillis()),
        agent.cumulative().activityMillis());
  }

  @Test
  void answeredWithinThreshold_onlyWhenAnsweredInTime() {
    agent("a1");
    router.createContact(NewContact.builder("c1", "voice").build());
    clock.advanceSeconds(25); // past the 20 s threshold
    router.accept(router.pendingReservations("a1").get(0).id());
    router.complete("c1");
    router.createContact(NewContact.builder("c2", "voice").build());
    clock.advanceSeconds(3);
    router.accept(router.pendingReservations("a1").get(0).id());

    IntervalFigures f = day().totals();
    assertEquals(2, f.answered());
    assertEquals(1, f.answeredWithinThreshold());
  }

  @Test
  void taskQueueThreshold_overridesTheWorkspaces() {
    WorkspaceRouters routers = WorkspaceRouters.memory(clock);
    Router defaultRouter = Router.builder().clock(clock).build();
    Workspaces workspaces =
        new Workspaces(defaultRouter, WorkspaceSettings.DEFAULTS, WorkspaceStore.memory(), routers);
    try {
      Workspace ws =
          workspaces.create(
              WorkspaceDefinition.create("cc", WorkspaceSettings.DEFAULTS, List.of()));
      ws.putQueue(
          new TaskQueue(
              "billing",
              Optional.empty(),
              TaskQueue.Order.FIFO,
              Optional.empty(),
              Optional.empty(),
              Optional.of(Duration.ofSeconds(60))));
      ws.createContact(NewContact.builder("c1", "voice").build(), Optional.of("billing"));
      clock.advanceSeconds(45); // past the workspace's 20 s, within the queue's 60 s
      ws.router()
          .createAgent(
              NewAgent.builder("a1").capacity("voice", 1).presence(Presence.available()).build());
      ws.router().accept(ws.router().pendingReservations("a1").get(0).id());

      StatisticsReport billing =
          ws.router()
              .statistics(
                  StatisticsQuery.between(T0, T0.plus(Duration.ofHours(1))).forQueue("billing"));
      assertEquals(1, billing.totals().answeredWithinThreshold());
      assertEquals(1, billing.totals().arrived());
    } finally {
      workspaces.close();
      defaultRouter.close();
    }
  }

  @Test
  void offersRejectedTimedOutAbandonedAndWrapUp_perAgentAndWorkspace() {
    agent("a1");
    agent("a2");
    router.createContact(NewContact.builder("c1", "voice").build());
    Reservation first =
        router.pendingReservations("a1").isEmpty()
            ? router.pendingReservations("a2").get(0)
            : router.pendingReservations("a1").get(0);
    router.reject(first.id());
    clock.advanceSeconds(31); // the next offer times out (30 s)
    router.createContact(NewContact.builder("c2", "voice").build());
    router.abandon("c2");
    Contact c1 = router.contact("c1");
    Reservation next = router.pendingReservations(c1.agentId().orElseThrow()).get(0);
    router.accept(next.id());
    clock.advanceSeconds(60);
    router.complete("c1", Duration.ofSeconds(30));
    clock.advanceSeconds(30);
    router.stats(); // wrap-up ends

    IntervalFigures ws = day().totals();
    assertEquals(1, ws.rejected());
    assertTrue(ws.timedOut() >= 1, "timed out " + ws.timedOut());
    assertEquals(1, ws.abandoned());
    assertEquals(1, ws.handled());
    assertEquals(1, ws.wrapUps());
    assertEquals(30_000, ws.wrapUpMillis());
    assertEquals(60_000, ws.handleMillis());
    IntervalFigures agent =
        router
            .statistics(
                StatisticsQuery.between(T0, T0.plus(Duration.ofDays(1))).forAgent(first.agentId()))
            .totals();
    assertEquals(1, agent.rejected());
    assertEquals(
        ws.offered(), ws.accepted() + ws.rejected() + ws.timedOut() + 1 /* abandoned c2's offer */);
  }

  @Test
  void restart_keepsClosedAndOpenIntervals() {
    agent("a1");
    router.createContact(NewContact.builder("c1", "voice").build());
    router.accept(router.pendingReservations("a1").get(0).id());
    clock.advance(QUARTER);
    router.createContact(NewContact.builder("c2", "voice").build()); // the open interval
    StatisticsReport before = day();

    restart();

    StatisticsReport after = day();
    assertEquals(before, after);
    assertEquals(2, after.intervals().size());
    assertEquals(2, after.cumulative().arrived());
  }

  @Test
  void retention_dropsOldIntervalsFromTheStore_keepsCumulative() {
    router.close();
    router =
        Router.builder().clock(clock).journal(journal).statsRetention(Duration.ofDays(1)).build();
    router.createContact(NewContact.builder("c1", "voice").build());
    clock.advance(Duration.ofDays(2));
    router.createContact(NewContact.builder("c2", "voice").build());

    List<StoredInterval> stored = journal.storedIntervals();
    assertTrue(
        stored.stream().noneMatch(i -> i.start() == T0.toEpochMilli()),
        "the first interval is past the retention: " + stored);
    StatisticsReport r =
        router.statistics(StatisticsQuery.between(T0, T0.plus(Duration.ofDays(3))));
    assertEquals(1, r.totals().arrived());
    assertEquals(2, r.cumulative().arrived());
  }

  @Test
  void badQueries_invalidArgument() {
    agent("a1");
    assertInvalid(StatisticsQuery.between(T0.plusSeconds(1), T0), "from must be before to");
    assertInvalid(StatisticsQuery.between(T0, T0.plus(Duration.ofDays(32))), "longer than 31 days");
    assertInvalid(
        StatisticsQuery.between(T0, T0.plusSeconds(60)).forQueue("q").forAgent("a1"), "not both");
    assertInvalid(StatisticsQuery.between(T0, T0.plusSeconds(60)).forQueue("nope"), "'nope'");
    assertInvalid(StatisticsQuery.between(T0, T0.plusSeconds(60)).forAgent("ghost"), "'ghost'");
  }

  private void assertInvalid(StatisticsQuery q, String says) {
    RoutingException e = assertThrows(RoutingException.class, () -> router.statistics(q));
    assertEquals(RoutingErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().contains(says), e.getMessage());
  }

  @Test
  void intervalsAreStoredWithTheCallsBatch() {
    agent("a1");
    long puts =
        journal.load().intervals().stream()
            .filter(i -> i.scope() == StoredInterval.Scope.WORKSPACE)
            .filter(i -> !i.figures().equals(IntervalFigures.ZERO)) // the roll's marker
            .count();
    assertEquals(0, puts, "an agent's creation counts no time yet");
    router.createContact(NewContact.builder("c1", "voice").build());
    assertTrue(
        journal.load().intervals().stream()
            .anyMatch(
                i ->
                    i.start() == T0.toEpochMilli()
                        && i.scope() == StoredInterval.Scope.WORKSPACE
                        && i.figures().arrived() == 1));
    assertTrue(RouterEntry.IntervalPut.class.isRecord());
  }

  /**
   * The defect: every retained closed interval was also kept in memory (per agent and interval), so
   * the heap grew with agents times retention. Now memory holds the open interval only; the closed
   * ones are in the store and a query reads them from there, before and after a restart.
   */
  @Test
  void closedIntervalsWereKeptInMemory_nowOnlyTheOpenOne() {
    int agents = 20;
    for (int i = 0; i < agents; i++) {
      agent("a" + i);
    }
    int quarters = 8;
    for (int q = 0; q < quarters; q++) {
      router.createContact(NewContact.builder("c" + q, "voice").build());
      for (int i = 0; i < agents; i++) { // every agent's activity changes in every interval
        router.presence("a" + i, q % 2 == 0 ? Presence.away("break") : Presence.available());
      }
      clock.advance(QUARTER);
    }
    router.stats(); // a call in the ninth interval closes the eighth

    MemoryRouter memory = (MemoryRouter) router;
    int held = memory.statisticsBucketsHeld();
    assertTrue(held <= 1 + agents, "the open interval's scopes only, held " + held);

    StatisticsReport before = day();
    assertEquals(quarters + 1, before.intervals().size(), "" + before.intervals());
    for (int q = 0; q < quarters; q++) {
      IntervalFigures f = before.intervals().get(q).figures();
      assertEquals(1, f.arrived(), "interval " + q);
      assertEquals(
          agents * QUARTER.toMillis(),
          f.activityMillis().values().stream().mapToLong(Long::longValue).sum(),
          "interval " + q + ": every agent's quarter-hour, counted once");
    }
    StatisticsReport oneAgent =
        router.statistics(StatisticsQuery.between(T0, T0.plus(Duration.ofDays(1))).forAgent("a3"));
    assertEquals(
        Map.of(
            "available",
            QUARTER.multipliedBy(4).toMillis(),
            "away",
            QUARTER.multipliedBy(4).toMillis()),
        oneAgent.totals().activityMillis());

    restart();

    assertEquals(before, day(), "the past intervals come back from the store");
    assertTrue(((MemoryRouter) router).statisticsBucketsHeld() <= 1 + agents);
  }

  @Test
  void stintAcrossARollAndARestart_countedOnce() {
    agent("a1"); // available from 00:00
    clock.advance(Duration.ofMinutes(20));
    router.stats(); // rolls at 00:20: 00:00-00:15 counted, the stint goes on
    clock.advance(Duration.ofMinutes(15)); // 00:35
    restart();

    Map<Instant, IntervalFigures> a =
        byStart(
            router.statistics(
                StatisticsQuery.between(T0, T0.plus(Duration.ofDays(1))).forAgent("a1")));
    assertEquals(Map.of("available", QUARTER.toMillis()), a.get(T0).activityMillis());
    assertEquals(Map.of("available", QUARTER.toMillis()), a.get(T0.plus(QUARTER)).activityMillis());
    assertEquals(
        Map.of("available", Duration.ofMinutes(5).toMillis()),
        a.get(T0.plus(QUARTER.multipliedBy(2))).activityMillis());
    assertEquals(
        Map.of("available", Duration.ofMinutes(35).toMillis()),
        day().cumulative().activityMillis());
  }

  @Test
  void routerWithoutJournal_keepsItsClosedIntervals() {
    Router bare = Router.builder().clock(clock).build();
    try {
      bare.createContact(NewContact.builder("c1", "voice").build());
      clock.advance(QUARTER);
      bare.createContact(NewContact.builder("c2", "voice").build());
      StatisticsReport r =
          bare.statistics(StatisticsQuery.between(T0, T0.plus(Duration.ofDays(1))));
      assertEquals(2, r.intervals().size());
      assertEquals(2, r.totals().arrived());
    } finally {
      bare.close();
    }
  }

  @Test
  void aClockBehindTheLastRoll_countsInTheOpenInterval_neverOverwritesAClosedOne() {
    router.createContact(NewContact.builder("c1", "voice").build());
    router.createContact(NewContact.builder("c2", "voice").build());
    clock.advance(Duration.ofMinutes(20));
    router.createContact(NewContact.builder("c3", "voice").build()); // rolls to 00:15
    router.close();
    ManualClock late = ManualClock.at(T0.plus(Duration.ofMinutes(5))); // a server 15 min behind
    router = Router.builder().clock(late).journal(journal).build();

    router.createContact(NewContact.builder("c4", "voice").build());

    Map<Instant, IntervalFigures> intervals = byStart(day());
    assertEquals(2, intervals.get(T0).arrived(), "the closed interval as stored");
    assertEquals(2, intervals.get(T0.plus(QUARTER)).arrived(), "c3 and the late c4");
  }
}
