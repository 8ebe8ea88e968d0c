package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.routing.NewAgent;
import io.switchboard.routing.Presence;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingErrorCode;
import io.switchboard.routing.RoutingException;
import io.switchboard.testing.Await;
import java.io.PrintWriter;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The routing lease between servers on one database: the first server leads and the others know
 * where; a graceful close hands over at the next try; a dead leader's lease is taken only once it
 * ran out; a deposed leader's write is refused and it steps down; a leader cut off from the
 * database stops routing before anyone else can start. Waits are bounded polls, never fixed sleeps.
 */
class RoutingLeadershipTest {

  private static final Duration WAIT = Duration.ofSeconds(15);

  private DataSource ds;
  private final List<RoutingLeadership> opened = new ArrayList<>();

  @BeforeEach
  void fresh() {
    ds = RouterTables.fresh();
  }

  @AfterEach
  void close() {
    opened.forEach(RoutingLeadership::halt);
  }

  private RoutingLeadership server(String id, Duration lease, DataSource source, boolean ticking) {
    RoutingLeadership.Builder b =
        RoutingLeadership.builder()
            .dataSource(source)
            .serverId(id)
            .advertiseUrl(URI.create("http://" + id + ":8080"))
            .lease(lease)
            .router(journal -> Router.builder().journal(journal).build());
    if (!ticking) {
      b.manualTicks();
    }
    RoutingLeadership l = b.build();
    opened.add(l);
    return l.start();
  }

  private RoutingLeadership manual(String id, Duration lease) {
    return server(id, lease, ds, false);
  }

  @Test
  void firstServerLeads_secondFollowsAndKnowsWhere() {
    RoutingLeadership a = manual("a", Duration.ofSeconds(30));
    RoutingLeadership b = manual("b", Duration.ofSeconds(30));
    assertTrue(a.leading());
    assertFalse(b.leading());
    RoutingLeadership.Leader leader = b.leader().orElseThrow();
    assertEquals("a", leader.id());
    assertEquals(URI.create("http://a:8080"), leader.url());
    assertTrue(leader.live());
    b.tick();
    assertFalse(b.leading(), "a live lease is not taken");
  }

  @Test
  void damagedLeaseRowWithoutUrl_reportedAsSuch_notAsANullPointerException() {
    manual("a", Duration.ofSeconds(30));
    RoutingLeadership b = manual("b", Duration.ofSeconds(30));
    RouterTables.sql(ds, "update sb_router_leader set url = null");
    b.refresh();
    String error = b.lastError().orElseThrow();
    assertTrue(error.contains("names holder 'a' but no url"), error);
    assertFalse(b.leading());
  }

  @Test
  void gracefulClose_releasesTheLease_nextServerTakesOverAtOnceWithTheState() {
    RoutingLeadership a = manual("a", Duration.ofSeconds(30));
    RoutingLeadership b = manual("b", Duration.ofSeconds(30));
    a.router().orElseThrow().createAgent(agent("ana"));
    a.close();
    b.tick();
    assertTrue(b.leading(), "a released lease is taken at the next try");
    assertEquals("ana", b.router().orElseThrow().agent("ana").id());
    assertEquals(2, b.leader().orElseThrow().epoch());
  }

  @Test
  void deadLeader_leaseTakenOnlyAfterItRanOut() {
    RoutingLeadership a = server("a", Duration.ofMillis(1500), ds, true);
    RoutingLeadership b = manual("b", Duration.ofMillis(1500));
    a.router().orElseThrow().createAgent(agent("ana"));
    long died = System.nanoTime();
    a.halt(); // no release: the lease runs out by itself
    b.tick();
    if (System.nanoTime() - died < Duration.ofMillis(300).toNanos()) {
      assertFalse(b.leading(), "took a lease that had not run out");
    }
    Await.until(
        () -> {
          b.tick();
          return b.leading();
        },
        "b takes over after the lease ran out",
        WAIT);
    // a renewed at most a third of the lease (plus a round trip) before it died
    assertTrue(System.nanoTime() - died >= Duration.ofMillis(750).toNanos());
    assertEquals("ana", b.router().orElseThrow().agent("ana").id());
  }

  @Test
  void deposedLeader_writeRefused_routerUnavailable_stepsDownAtNextTick() {
    RoutingLeadership a = manual("a", Duration.ofSeconds(30));
    RoutingLeadership b = manual("b", Duration.ofSeconds(30));
    Router stale = a.router().orElseThrow();
    RouterTables.expireLease(ds); // as if a had been paused for longer than the lease
    b.tick();
    assertTrue(b.leading());
    // a has not noticed: it still hands out its router, whose first write is refused
    RoutingException refused =
        assertThrows(RoutingException.class, () -> stale.createAgent(agent("ghost")));
    assertEquals(RoutingErrorCode.UNAVAILABLE, refused.code());
    assertTrue(
        refused.getMessage().contains("no longer holds the routing lease"), refused.getMessage());
    assertThrows(RoutingException.class, stale::agents);
    a.tick();
    assertFalse(a.leading());
    assertEquals("b", a.leader().orElseThrow().id());
    assertTrue(b.router().orElseThrow().agents().isEmpty(), "the refused write is not stored");
    b.tick();
    assertTrue(b.leading(), "the deposed leader's release does not touch the new lease");
  }

  @Test
  void leaderCutOffFromTheDatabase_stopsRoutingBeforeAnotherServerCanStart() {
    SwitchableDataSource cut = new SwitchableDataSource(ds);
    Duration lease = Duration.ofMillis(1500);
    RoutingLeadership a = server("a", lease, cut, true);
    RoutingLeadership b = manual("b", lease);
    assertTrue(a.leading());
    cut.down = true;
    Await.until(
        () -> {
          b.tick();
          if (b.leading()) {
            assertFalse(a.leading(), "two leaders at once");
            return true;
          }
          return false;
        },
        "b takes over from a leader cut off from the database",
        WAIT);
    assertFalse(a.leading());
    assertTrue(a.lastError().orElseThrow().contains("unavailable"), a.lastError().orElseThrow());
  }

  @Test
  void routerWhoseStoreFailed_stepsDownAndTheServerLeadsAgainAtANewEpoch() {
    RoutingLeadership a = manual("a", Duration.ofSeconds(30));
    Router first = a.router().orElseThrow();
    first.createAgent(agent("ana"));
    // a foreign epoch bump that a gives back at once: a's store refuses its next write
    RouterTables.sql(ds, "update sb_router_leader set epoch = epoch + 1");
    assertThrows(RoutingException.class, () -> first.createAgent(agent("bob")));
    a.tick(); // steps down (its store stopped) ...
    assertFalse(a.leading());
    a.tick(); // ... and takes the lease again as its holder, reloading what was stored
    assertTrue(a.leading());
    assertEquals(
        List.of("ana"), a.router().orElseThrow().agents().stream().map(x -> x.id()).toList());
  }

  private static NewAgent agent(String id) {
    return NewAgent.builder(id).capacity("voice", 1).presence(Presence.available()).build();
  }

  /** A data source that can be cut off, as a network partition would. */
  private static final class SwitchableDataSource implements DataSource {
    private final DataSource target;
    volatile boolean down;

    SwitchableDataSource(DataSource target) {
      this.target = target;
    }

    @Override
    public Connection getConnection() throws SQLException {
      if (down) {
        throw new SQLException("connection refused (test partition)", "08001");
      }
      return target.getConnection();
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
      return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
      throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
      return false;
    }
  }
}
