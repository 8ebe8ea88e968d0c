package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.switchboard.routing.IntervalFigures;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Presence;
import io.switchboard.routing.Router;
import io.switchboard.routing.StatisticsQuery;
import io.switchboard.routing.StatisticsReport;
import io.switchboard.routing.spi.RouterRecordCodec;
import io.switchboard.routing.spi.StoredInterval;
import io.switchboard.routing.spi.StoredInterval.Scope;
import io.switchboard.time.ManualClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
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
      // b loaded the open interval and the cumulative figures; the closed one came from the table
      for (StoredInterval i : onB.load().intervals()) {
        assertTrue(
            i.start() == StoredInterval.TOTAL || i.start() == T0.plusSeconds(900).toEpochMilli(),
            "loaded " + i);
      }

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

  @Test
  void retention_deletesOldIntervalsFromTheTable() {
    DataSource ds = RouterTables.fresh();
    PostgresRouterJournal journal = PostgresRouterJournal.open(ds, RouterTables.takeLease(ds, "a"));
    Router r =
        Router.builder().clock(clock).statsRetention(Duration.ofDays(1)).journal(journal).build();
    try {
      r.createContact(NewContact.builder("c1", "voice").build());
      clock.advance(Duration.ofDays(2));
      r.createContact(NewContact.builder("c2", "voice").build());

      long t0 = T0.toEpochMilli();
      assertEquals(
          List.of(),
          journal.intervals(t0, t0 + Duration.ofDays(1).toMillis(), Scope.WORKSPACE, ""));
      assertEquals(
          0,
          count(
              ds,
              "select count(*) from sb_router_interval where start_ms < "
                  + clock.instant().minus(Duration.ofDays(1)).toEpochMilli()));
      StatisticsReport all = r.statistics(StatisticsQuery.between(T0, T0.plus(Duration.ofDays(3))));
      assertEquals(1, all.totals().arrived());
      assertEquals(2, all.cumulative().arrived());
    } finally {
      r.close();
      journal.close();
    }
  }

  @Test
  void aVersion27Table_itsIntervalsGetTheirStart() throws Exception {
    String url = TestDatabase.freshDatabase("intervals_from_v27");
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername("postgres");
    config.setPassword("postgres");
    config.setMaximumPoolSize(2);
    try (HikariDataSource old = new HikariDataSource(config)) {
      Schema.migrate(old, 27);
      long t0 = T0.toEpochMilli();
      List<StoredInterval> rows =
          List.of(
              new StoredInterval(t0, Scope.WORKSPACE, "", IntervalFigures.ZERO),
              new StoredInterval(t0 + 900_000, Scope.AGENT, "a1", IntervalFigures.ZERO),
              new StoredInterval(StoredInterval.TOTAL, Scope.WORKSPACE, "", IntervalFigures.ZERO));
      try (Connection c = old.getConnection();
          PreparedStatement ps =
              c.prepareStatement(
                  "insert into sb_router_interval (workspace, id, value) values ('default', ?,"
                      + " ?)")) {
        for (StoredInterval i : rows) {
          ps.setString(1, i.key());
          ps.setBytes(2, RouterRecordCodec.encode(i));
          ps.executeUpdate();
        }
      }
      Schema.migrate(old);
      assertEquals(
          t0 + 900_000,
          count(old, "select max(start_ms) from sb_router_interval where workspace = 'default'"));
      assertEquals(1, count(old, "select count(*) from sb_router_interval where start_ms is null"));
      assertEquals(t0, count(old, "select min(start_ms) from sb_router_interval"));
    }
  }

  private static long count(DataSource ds, String query) {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(query);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
