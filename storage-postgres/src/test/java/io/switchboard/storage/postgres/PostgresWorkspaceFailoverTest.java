package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.switchboard.routing.Activity;
import io.switchboard.routing.Agent;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.ReservationState;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingErrorCode;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.TaskQueue;
import io.switchboard.routing.Workspace;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceSettings;
import io.switchboard.routing.Workspaces;
import io.switchboard.tck.routing.ContactCentre;
import io.switchboard.time.ManualClock;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Routing workspaces other than {@code default} over PostgreSQL (docs/deploy.md, "Routing across
 * servers"): the leader runs every stored workspace on a journal of its own under its one lease; a
 * takeover, after a graceful handover or a leader's death, finds each workspace's definition,
 * agents (with their activities), waiting contacts (queue, arrival) and offers as they were, and
 * reservation ids keep rising; a deposed leader changes no workspace; deleting a workspace deletes
 * its rows; the tables of a version-6 database become workspace {@code default}'s.
 */
class PostgresWorkspaceFailoverTest {

  private static final List<Activity> CENTRE = ContactCentre.ACTIVITIES;

  private final ManualClock clock = ManualClock.create();
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

  private RoutingLeadership server(String id, DataSource source) {
    RoutingLeadership l =
        RoutingLeadership.builder()
            .dataSource(source)
            .serverId(id)
            .advertiseUrl(URI.create("http://" + id + ":8080"))
            .lease(Duration.ofSeconds(30))
            .router(journal -> Router.builder().clock(clock).journal(journal).build())
            .workspaces(
                WorkspaceSettings.DEFAULTS,
                w -> w.settings().applyTo(Router.builder().clock(clock)))
            .manualTicks()
            .build();
    opened.add(l);
    return l.start();
  }

  private static Workspaces workspaces(RoutingLeadership l) {
    return l.workspaces().orElseThrow();
  }

  private static NewAgent agent(String id, String... skills) {
    return ContactCentre.agent(id, skills);
  }

  private static Workspace centre(RoutingLeadership leader) {
    return ContactCentre.create(workspaces(leader));
  }

  @Test
  void leaderDies_newLeaderHasTheWorkspacesAgentsContactsAndOffers_reservationIdsKeepRising() {
    RoutingLeadership a = server("a", ds);
    RoutingLeadership b = server("b", ds);
    ContactCentre.Before before = ContactCentre.Before.create(workspaces(a));

    a.halt(); // dies: no release, nothing more written
    RouterTables.expireLease(ds);
    b.tick();
    assertTrue(b.leading());

    Workspace after =
        before.assertTakenOver(workspaces(b), PostgresRouterJournal.RESERVATION_BLOCK);

    // the workspace keeps routing: bob back from lunch takes g1
    after.activity("bob", "Ready");
    assertEquals(Optional.of("bob"), after.router().contact("g1").agentId());
  }

  @Test
  void takeover_theNewLeaderRunsTheWorkspacesTimers_anOfferTimesOut() {
    RoutingLeadership a = server("a", ds);
    RoutingLeadership b = server("b", ds);
    String offer = centre(a).router().contact("b1").reservationId().orElseThrow();
    a.halt();
    RouterTables.expireLease(ds);
    b.tick();
    clock.advance(WorkspaceSettings.DEFAULTS.offerTimeout());
    Router centre = workspaces(b).get("centre").router();
    assertEquals(ReservationState.TIMED_OUT, centre.reservation(offer).state());
    assertNotEquals(
        Optional.of(offer), centre.contact("b1").reservationId(), "b1 was routed again");
  }

  @Test
  void gracefulHandover_reservationIdsContinueWithoutAGap() {
    RoutingLeadership a = server("a", ds);
    RoutingLeadership b = server("b", ds);
    Workspace before = centre(a);
    String offer = before.router().contact("b1").reservationId().orElseThrow();
    a.close();
    b.tick();
    Workspace after = workspaces(b).get("centre");
    after.router().reject(offer);
    String next = after.router().pendingReservations("ann").get(0).id();
    assertEquals(ContactCentre.number(offer) + 1, ContactCentre.number(next));
    assertEquals(2, after.router().agents().size());
  }

  @Test
  void deposedLeader_changesNoWorkspace_andStepsDown() {
    RoutingLeadership a = server("a", ds);
    RoutingLeadership b = server("b", ds);
    Workspace stale = centre(a);
    RouterTables.expireLease(ds); // as if a had been paused for longer than the lease
    b.tick();
    assertTrue(b.leading());

    RoutingException refused =
        assertThrows(
            RoutingException.class, () -> stale.createAgent(agent("ghost"), Optional.empty()));
    assertEquals(RoutingErrorCode.UNAVAILABLE, refused.code());
    RoutingException definition =
        assertThrows(RoutingException.class, () -> stale.putQueue(TaskQueue.named("ghosts")));
    assertEquals(RoutingErrorCode.UNAVAILABLE, definition.code());
    assertTrue(
        definition.getMessage().contains("no longer holds the routing lease"),
        definition.getMessage());
    a.tick();
    assertFalse(a.leading());

    Workspace now = workspaces(b).get("centre");
    assertEquals(List.of("ann", "bob"), now.router().agents().stream().map(Agent::id).toList());
    assertEquals(
        List.of("billing", "general"),
        now.definition().queues().stream().map(TaskQueue::name).toList());
  }

  @Test
  void createdOnTheLeader_routesAtOnce_deleteDropsItsRows_recreatedIsEmpty() {
    RoutingLeadership a = server("a", ds);
    centre(a);
    assertEquals(2, count("select count(*) from sb_router_agent where workspace = 'centre'"));
    assertEquals(1, count("select count(*) from sb_router_state where workspace = 'centre'"));

    workspaces(a).delete("centre");
    for (String table :
        List.of(
            "sb_router_agent",
            "sb_router_contact",
            "sb_router_reservation",
            "sb_router_interval",
            "sb_router_state")) {
      assertEquals(
          0, count("select count(*) from " + table + " where workspace = 'centre'"), table);
    }
    assertEquals(0, count("select count(*) from sb_workspace where name = 'centre'"));
    assertEquals(1, count("select count(*) from sb_router_state where workspace = 'default'"));

    Workspace again =
        workspaces(a)
            .create(WorkspaceDefinition.create("centre", WorkspaceSettings.DEFAULTS, CENTRE));
    assertTrue(again.router().agents().isEmpty());
    a.close();
    RoutingLeadership b = server("b", ds);
    assertTrue(b.leading());
    assertTrue(workspaces(b).get("centre").router().agents().isEmpty());
  }

  @Test
  void aVersion6Database_itsRouterStateBecomesWorkspaceDefault() throws Exception {
    // an agent's stored bytes, as a version-6 server would have written them
    RoutingLeadership a = server("a", ds);
    workspaces(a).get(Workspaces.DEFAULT).router().createAgent(agent("ann", "billing"));
    byte[] stored;
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("select value from sb_router_agent where workspace = 'default'");
        ResultSet rs = ps.executeQuery()) {
      assertTrue(rs.next());
      stored = rs.getBytes(1);
    }
    a.close();

    String url = TestDatabase.freshDatabase("router_from_v6");
    try (HikariDataSource old = pool(url)) {
      Schema.migrate(old, 6);
      try (Connection c = old.getConnection();
          PreparedStatement ps =
              c.prepareStatement("insert into sb_router_agent (id, value) values ('ann', ?)")) {
        ps.setBytes(1, stored);
        ps.executeUpdate();
        RouterTables.sql(old, "update sb_router_state set agent_serial = 1");
      }
      RoutingLeadership b = server("b", old);
      assertTrue(b.leading());
      assertEquals(
          List.of("ann"),
          workspaces(b).get(Workspaces.DEFAULT).router().agents().stream().map(Agent::id).toList());
      Workspace centre =
          workspaces(b)
              .create(WorkspaceDefinition.create("centre", WorkspaceSettings.DEFAULTS, CENTRE));
      centre.createAgent(agent("ann"), Optional.of("Ready"));
      assertNotEquals(
          workspaces(b).get(Workspaces.DEFAULT).router().agent("ann"),
          centre.router().agent("ann"),
          "one id in two workspaces: two agents");
      b.close();
      opened.remove(b);
    }
  }

  private long count(String query) {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(query);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static HikariDataSource pool(String url) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(url);
    c.setUsername("postgres");
    c.setPassword("postgres");
    c.setMaximumPoolSize(4);
    return new HikariDataSource(c);
  }
}
