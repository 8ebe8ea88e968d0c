package io.switchboard.storage.dynamodb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.routing.Agent;
import io.switchboard.routing.ContactState;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.ReservationState;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingErrorCode;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.TaskQueue;
import io.switchboard.routing.Workspace;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceSettings;
import io.switchboard.routing.Workspaces;
import io.switchboard.routing.spi.RoutingLeader;
import io.switchboard.tck.routing.ContactCentre;
import io.switchboard.time.ManualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The routing leadership between servers on one DynamoDB table (moto, one request at a time), each
 * server's lease timed by a clock of its own that the test advances: the first server leads and the
 * others know where; a follower never takes a lease that is being renewed; when the leader dies,
 * another takes over once it has seen the lease unchanged for a whole lease, with every workspace's
 * definition, agents, waiting contacts, offers and acknowledged contacts, and reservation ids keep
 * rising; a graceful close hands over at once without a gap in the ids; a deposed leader's writes
 * are refused (the fence) and it steps down; deleting a workspace deletes its items.
 */
@ExtendWith(Moto.class)
class DynamoRoutingLeadershipTest {

  private static final Duration LEASE = Duration.ofSeconds(30);

  private final ManualClock clock = ManualClock.create();
  private final Map<String, AtomicLong> nanos = new HashMap<>();
  private final List<DynamoRoutingLeadership> opened = new ArrayList<>();
  private DynamoDbClient client;
  private String prefix;

  @BeforeEach
  void fresh() {
    client = Moto.client();
    prefix = Moto.prefix();
  }

  @AfterEach
  void close() {
    opened.forEach(DynamoRoutingLeadership::halt);
    client.close();
  }

  private DynamoRoutingLeadership server(String id) {
    AtomicLong own = nanos.computeIfAbsent(id, k -> new AtomicLong(1_000_000_000L));
    DynamoRoutingLeadership l =
        DynamoRoutingLeadership.builder()
            .client(client)
            .tablePrefix(prefix)
            .serverId(id)
            .advertiseUrl(URI.create("http://" + id + ":8080"))
            .lease(LEASE)
            .router(journal -> Router.builder().clock(clock).journal(journal).build())
            .workspaces(
                WorkspaceSettings.DEFAULTS,
                w -> w.settings().applyTo(Router.builder().clock(clock)))
            .manualTicks()
            .nanoClock(own::get)
            .build();
    opened.add(l);
    return l.start();
  }

  /** Advances server {@code id}'s own clock. */
  private void advance(String id, Duration by) {
    nanos.get(id).addAndGet(by.toNanos());
  }

  private static Workspaces workspaces(RoutingLeader l) {
    return l.workspaces().orElseThrow();
  }

  private static Workspace centre(RoutingLeader leader) {
    return ContactCentre.create(workspaces(leader));
  }

  @Test
  void firstServerLeads_secondFollowsAndKnowsWhere_aRenewedLeaseIsNeverTaken() {
    DynamoRoutingLeadership a = server("a");
    DynamoRoutingLeadership b = server("b");
    assertTrue(a.leading());
    assertFalse(b.leading());
    RoutingLeader.Leader leader = b.leader().orElseThrow();
    assertEquals("a", leader.id());
    assertEquals(URI.create("http://a:8080"), leader.url());
    assertTrue(leader.live());

    for (int i = 0; i < 3; i++) {
      a.tick(); // renews: a new record version
      advance("a", LEASE.dividedBy(3));
      advance("b", LEASE.plusSeconds(1)); // b's clock runs far ahead: only the version counts
      b.tick();
      assertFalse(b.leading(), "round " + i);
      assertTrue(a.leading(), "round " + i);
    }
  }

  @Test
  void leaderStopsRenewing_stopsServingByItsOwnClock_beforeAnyoneCanTakeOver() {
    DynamoRoutingLeadership a = server("a");
    DynamoRoutingLeadership b = server("b");
    advance("a", LEASE.minusMillis(1));
    assertTrue(a.leading());
    advance("a", Duration.ofMillis(1));
    assertFalse(a.leading(), "a lease after its last renewal was sent, a serves no more");
    advance("b", LEASE.minusMillis(1));
    b.tick();
    assertFalse(b.leading(), "b has seen the version for less than a lease");
  }

  @Test
  void leaderDies_newLeaderHasTheWorkspacesAgentsContactsAndOffers_reservationIdsKeepRising() {
    DynamoRoutingLeadership a = server("a");
    DynamoRoutingLeadership b = server("b");
    ContactCentre.Before before = ContactCentre.Before.create(workspaces(a));
    List<String> acknowledged = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      before
          .centre()
          .createContact(NewContact.builder("load-" + i, "voice").build(), Optional.of("general"));
      acknowledged.add("load-" + i);
    }

    a.halt(); // dies: no release, nothing more written
    advance("b", LEASE.minusMillis(1));
    b.tick();
    assertFalse(b.leading(), "the lease has not been seen unchanged for a whole lease yet");
    advance("b", Duration.ofMillis(1));
    b.tick();
    assertTrue(b.leading());
    assertEquals("b", b.leader().orElseThrow().id());

    Workspace after = before.assertTakenOver(workspaces(b), DynamoRouterJournal.RESERVATION_BLOCK);
    for (String id : acknowledged) {
      assertEquals(ContactState.QUEUED, after.router().contact(id).state(), id);
    }

    // the workspace keeps routing: bob back from lunch takes g1, and its timers run here
    after.activity("bob", "Ready");
    assertEquals(Optional.of("bob"), after.router().contact("g1").agentId());
    String bobs = after.router().contact("g1").reservationId().orElseThrow();
    clock.advance(WorkspaceSettings.DEFAULTS.offerTimeout());
    assertEquals(ReservationState.TIMED_OUT, after.router().reservation(bobs).state());
  }

  @Test
  void gracefulHandover_takenAtOnce_reservationIdsContinueWithoutAGap() {
    DynamoRoutingLeadership a = server("a");
    DynamoRoutingLeadership b = server("b");
    Workspace before = centre(a);
    String offer = before.router().contact("b1").reservationId().orElseThrow();
    a.close();
    b.tick(); // no lease to wait out: a released it
    assertTrue(b.leading());
    Workspace after = workspaces(b).get("centre");
    after.router().reject(offer);
    String next = after.router().pendingReservations("ann").get(0).id();
    assertEquals(ContactCentre.number(offer) + 1, ContactCentre.number(next));
    assertEquals(2, after.router().agents().size());
  }

  @Test
  void deposedLeader_itsWritesAreRefused_changesNoWorkspace_andStepsDown() {
    DynamoRoutingLeadership a = server("a");
    DynamoRoutingLeadership b = server("b");
    Workspace stale = centre(a);
    // a is paused for longer than the lease: it neither renews nor notices; b takes over
    advance("b", LEASE);
    b.tick();
    assertTrue(b.leading());
    assertTrue(a.leading(), "a's own clock has not run: it still believes it leads");

    RoutingException refused =
        assertThrows(
            RoutingException.class,
            () -> stale.createAgent(ContactCentre.agent("ghost"), Optional.empty()));
    assertEquals(RoutingErrorCode.UNAVAILABLE, refused.code());
    assertTrue(
        refused.getMessage().contains("no longer holds the routing lease")
            && refused.getMessage().contains("is held by b"),
        refused.getMessage());
    RoutingException definition =
        assertThrows(RoutingException.class, () -> stale.putQueue(TaskQueue.named("ghosts")));
    assertEquals(RoutingErrorCode.UNAVAILABLE, definition.code());
    a.tick();
    assertFalse(a.leading());
    assertEquals("b", a.leader().orElseThrow().id());

    Workspace now = workspaces(b).get("centre");
    assertEquals(List.of("ann", "bob"), now.router().agents().stream().map(Agent::id).toList());
    assertEquals(
        List.of("billing", "general"),
        now.definition().queues().stream().map(TaskQueue::name).toList());
  }

  @Test
  void deletedWorkspace_itsItemsAreDeleted_recreatedIsEmpty() {
    DynamoRoutingLeadership a = server("a");
    centre(a);
    Store store = new Store(client, prefix + "switchboard");
    assertFalse(items(store, "centre").isEmpty());

    workspaces(a).delete("centre");
    assertEquals(List.of(), items(store, "centre"));
    assertTrue(store.get(DynamoWorkspaceStore.PARTITION, "centre") == null);
    assertTrue(store.get(DynamoRouterJournal.statePartition("default"), "state") != null);

    Workspace again =
        workspaces(a)
            .create(
                WorkspaceDefinition.create(
                    "centre", WorkspaceSettings.DEFAULTS, ContactCentre.ACTIVITIES));
    assertTrue(again.router().agents().isEmpty());
    a.close();
    DynamoRoutingLeadership b = server("b");
    assertTrue(b.leading());
    assertTrue(workspaces(b).get("centre").router().agents().isEmpty());
    assertNotEquals(Optional.empty(), b.leader());
  }

  /** Every item of workspace {@code name}'s partitions, state item included. */
  private static List<Map<String, AttributeValue>> items(Store store, String name) {
    List<String> partitions = new ArrayList<>(DynamoRouterJournal.recordPartitions(name));
    partitions.add(DynamoRouterJournal.statePartition(name));
    List<Map<String, AttributeValue>> out = new ArrayList<>();
    for (String pk : partitions) {
      out.addAll(
          store
              .call(
                  d ->
                      d.query(
                          b ->
                              b.tableName(store.table())
                                  .consistentRead(true)
                                  .keyConditionExpression("pk = :p")
                                  .expressionAttributeValues(Map.of(":p", Store.s(pk)))))
              .items());
    }
    return out;
  }
}
