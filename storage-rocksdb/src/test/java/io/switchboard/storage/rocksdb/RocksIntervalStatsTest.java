package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.routing.IntervalFigures;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Presence;
import io.switchboard.routing.Router;
import io.switchboard.routing.StatisticsQuery;
import io.switchboard.routing.StatisticsReport;
import io.switchboard.routing.spi.StoredInterval;
import io.switchboard.routing.spi.StoredInterval.Scope;
import io.switchboard.time.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lasting statistics on the RocksDB router store: closed and open intervals, the cumulative
 * figures and the agents' activity time are all there after the router and the store are closed and
 * opened again; intervals past the retention are deleted from the store.
 */
class RocksIntervalStatsTest {

  private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

  @TempDir Path dir;
  private final ManualClock clock = ManualClock.at(T0);
  private RocksRouterJournal journal;
  private Router router;

  private void open(Duration retention) {
    journal = RocksRouterJournal.open(dir.resolve("routing"), Durability.sync());
    router = Router.builder().clock(clock).statsRetention(retention).journal(journal).build();
  }

  private void restart(Duration retention) {
    router.close();
    journal.close();
    open(retention);
  }

  @AfterEach
  void close() {
    router.close();
    journal.close();
  }

  private StatisticsReport day() {
    return router.statistics(StatisticsQuery.between(T0, T0.plus(Duration.ofDays(3))));
  }

  @Test
  void restart_keepsIntervalsCumulativeAndActivityTime() {
    open(Duration.ofDays(35));
    router.createAgent(
        NewAgent.builder("a1").capacity("voice", 1).presence(Presence.available()).build());
    router.createContact(NewContact.builder("c1", "voice").build());
    clock.advanceSeconds(10);
    router.accept(router.pendingReservations("a1").get(0).id());
    clock.advance(Duration.ofMinutes(20));
    router.complete("c1"); // in the second interval, the open one
    router.presence("a1", Presence.away("break"));
    StatisticsReport before = day();

    restart(Duration.ofDays(35));

    StatisticsReport after = day();
    assertEquals(before, after);
    assertEquals(2, after.intervals().size());
    IntervalFigures open = after.intervals().get(1).figures();
    assertEquals(1, open.handled());
    assertEquals(Duration.ofMinutes(20).toMillis(), open.handleMillis());
    assertEquals(1, after.cumulative().answered());
    assertEquals(
        Duration.ofMinutes(20).plusSeconds(10).toMillis(),
        after.cumulative().activityMillis().get("available"));
  }

  @Test
  void retention_deletesOldIntervalsFromTheStore() {
    open(Duration.ofDays(1));
    router.createContact(NewContact.builder("c1", "voice").build());
    clock.advance(Duration.ofDays(2));
    router.createContact(NewContact.builder("c2", "voice").build());

    restart(Duration.ofDays(1));

    long from = T0.toEpochMilli();
    long to = T0.plus(Duration.ofDays(3)).toEpochMilli();
    assertEquals(
        0,
        journal.intervals(from, to, Scope.WORKSPACE, "").stream()
            .filter(i -> i.start() == from)
            .count(),
        "the first interval is deleted from the store");
    StatisticsReport r = day();
    assertEquals(1, r.totals().arrived());
    assertEquals(2, r.cumulative().arrived());
  }

  @Test
  void afterRestart_pastIntervalsComeFromTheStore_notFromMemory() {
    open(Duration.ofDays(7));
    router.createAgent(
        NewAgent.builder("a1").capacity("voice", 1).presence(Presence.available()).build());
    for (int q = 0; q < 6; q++) {
      router.createContact(NewContact.builder("c" + q, "voice").build());
      router.abandon("c" + q);
      clock.advance(Duration.ofMinutes(15));
    }
    clock.advance(Duration.ofMinutes(1));
    router.stats(); // in the seventh interval: the sixth closes
    StatisticsReport before = day();
    assertEquals(7, before.intervals().size(), "six closed, one open with activity time");

    restart(Duration.ofDays(7));

    // the store loads the open interval and the cumulative figures only
    long latest = T0.plus(Duration.ofMinutes(90)).toEpochMilli();
    for (StoredInterval i : journal.load().intervals()) {
      assertTrue(i.start() == StoredInterval.TOTAL || i.start() == latest, "loaded " + i.start());
    }
    StatisticsReport after = day();
    assertEquals(before, after);
    assertEquals(
        6,
        journal.intervals(T0.toEpochMilli(), latest, Scope.WORKSPACE, "").size(),
        "the closed workspace intervals are read by range");
    StatisticsReport agent =
        router.statistics(StatisticsQuery.between(T0, T0.plus(Duration.ofDays(1))).forAgent("a1"));
    assertEquals(7, agent.intervals().size());
    assertEquals(
        Duration.ofMinutes(91).toMillis(), agent.totals().activityMillis().get("available"));
  }
}
