package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.routing.IntervalFigures;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Presence;
import io.switchboard.routing.Router;
import io.switchboard.routing.StatisticsQuery;
import io.switchboard.routing.StatisticsReport;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The lasting statistics in PostgreSQL survive a failover: server "a" routes and counts, the lease
 * passes to server "b" (a takeover at a new epoch), and b's router, loaded from the store, answers
 * the same statistics, closed interval, open interval, cumulative figures and activity time alike,
 * and goes on counting in the same open interval.
 */
class PostgresIntervalStatsTest {

  private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

  private final ManualClock clock = ManualClock.at(T0);

  private Router router(PostgresRouterJournal journal) {
    return Router.builder().clock(clock).journal(journal).build();
  }

  private StatisticsReport day(Router r) {
    return r.statistics(StatisticsQuery.between(T0, T0.plus(Duration.ofDays(1))));
  }

  @Test
  void failoverToAnotherServer_keepsIntervalsAndGoesOnCounting() {
    DataSource ds = RouterTables.fresh();
    PostgresRouterJournal onA = PostgresRouterJournal.open(ds, RouterTables.takeLease(ds, "a"));
    Router a = router(onA);
    a.createAgent(
        NewAgent.builder("a1").capacity("voice", 1).presence(Presence.available()).build());
    a.createContact(NewContact.builder("c1", "voice").build());
    clock.advanceSeconds(5);
    a.accept(a.pendingReservations("a1").get(0).id());
    clock.advance(Duration.ofMinutes(16));
    a.complete("c1", Duration.ofSeconds(30)); // the open interval, 00:15
    a.createContact(NewContact.builder("c2", "voice").build());
    StatisticsReport before = day(a);

    // a stops renewing (it is not closed first: a crash); b takes the lease over
    PostgresRouterJournal onB = PostgresRouterJournal.open(ds, RouterTables.takeLease(ds, "b"));
    Router b = router(onB);
    try {
      assertEquals(before, day(b));
      assertEquals(2, day(b).intervals().size());

      b.abandon("c2");
      IntervalFigures open = day(b).intervals().get(1).figures();
      assertEquals(1, open.handled());
      assertEquals(1, open.wrapUps());
      assertEquals(30_000, open.wrapUpMillis());
      assertEquals(1, open.arrived());
      assertEquals(1, open.abandoned());
      IntervalFigures agent =
          b.statistics(StatisticsQuery.between(T0, T0.plus(Duration.ofDays(1))).forAgent("a1"))
              .cumulative();
      assertEquals(1, agent.accepted());
      assertEquals(
          Duration.ofMinutes(16).plusSeconds(5).toMillis(),
          agent.activityMillis().get("available"));
    } finally {
      b.close();
      onB.close();
      a.close();
      onA.close();
    }
  }
}
