package io.switchboard.bench.routing;

import io.switchboard.routing.Activity;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Reservation;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingEvent;
import io.switchboard.routing.RoutingStats;
import io.switchboard.routing.Workspace;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceRouters;
import io.switchboard.routing.WorkspaceSettings;
import io.switchboard.routing.Workspaces;
import io.switchboard.routing.spi.WorkspaceStore;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Switchboard's in-process routing through a {@link Workspace}, as the server calls it for {@code
 * /v1/workspaces/centre/...}: the center's task queues and workflows, agents created in the
 * activity {@code Offline} and moved to {@code Ready}, contacts created through their family's
 * workflow with attributes {@code product} and {@code language}. The workspace's router is a {@code
 * MemoryRouter} on a {@link ManualClock} (longest idle, offers accepted by the simulation) whose
 * journal does all the router's journaling work and discards the batches ({@link
 * SwitchboardRouting}'s {@code noop}).
 */
final class WorkspaceScaleRouting implements ScaleTarget {

  static final String CHANNEL = "voice";
  static final String WORKSPACE = "centre";
  private static final Optional<String> OFFLINE = Optional.of("Offline");

  private final ScaleCenter center;
  private final ManualClock clock = ManualClock.create();
  private final Router defaultRouter;
  private final Workspaces workspaces;
  private final Workspace workspace;
  private final Router router;
  private final String[] reservationOf;
  private final String[] agentIds;
  private final List<Map<String, Object>> attributeMaps;

  WorkspaceScaleRouting(ScaleCenter center, int maxContacts, RoutingTarget.Decisions decisions) {
    this.center = center;
    this.reservationOf = new String[maxContacts];
    this.agentIds = new String[center.agents()];
    this.defaultRouter = Router.builder().clock(clock).build();
    WorkspaceRouters routers =
        new WorkspaceRouters() {
          @Override
          public Router open(WorkspaceDefinition w) {
            return w.settings()
                .applyTo(Router.builder().clock(clock))
                .journal(new SwitchboardRouting.DiscardingJournal())
                .eventHistory(1_024)
                .contactHistory(1_024)
                .taskQueues(w.queues())
                .build();
          }

          @Override
          public void drop(String name) {}
        };
    this.workspaces =
        new Workspaces(defaultRouter, WorkspaceSettings.DEFAULTS, WorkspaceStore.memory(), routers);
    WorkspaceSettings settings =
        WorkspaceSettings.DEFAULTS
            .withOfferTimeout(Duration.ofMinutes(5))
            .withDefaultActivity("Offline");
    this.workspace =
        workspaces.create(
            new WorkspaceDefinition(
                WORKSPACE,
                settings,
                List.of(new Activity("Ready", true), new Activity("Offline", false)),
                center.queues(),
                center.workflows()));
    this.router = workspace.router();
    int kinds = center.products() * ScaleCenter.LANGUAGES;
    this.attributeMaps = new java.util.ArrayList<>(kinds);
    for (int k = 0; k < kinds; k++) {
      String product = center.product(k / ScaleCenter.LANGUAGES);
      String language = ScaleCenter.language(k % ScaleCenter.LANGUAGES);
      attributeMaps.add(Map.of("product", product, "language", language));
    }
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
  public String describe() {
    return "Workspace 'centre' (Workspaces over a MemoryRouter) on a ManualClock: "
        + (center.products() + center.families() + 1) * ScaleCenter.LANGUAGES
        + " task queues, "
        + center.families()
        + " workflows of 3-target filters; longest idle; journal: every change batched for a"
        + " journal that discards it";
  }

  @Override
  public boolean widens() {
    return true;
  }

  @Override
  public Memory memory() throws InterruptedException {
    return new Memory(
        io.switchboard.bench.HeapPerMessage.usedHeapAfterGc(),
        "JVM heap used after repeated System.gc()");
  }

  @Override
  public void addAgent(int agent) {
    String id = "a" + agent;
    agentIds[agent] = id;
    workspace.createAgent(
        NewAgent.builder(id)
            .attribute("languages", center.languages(agent))
            .attribute("skills", center.skills(agent))
            .capacity(CHANNEL, 1)
            .build(),
        OFFLINE);
  }

  @Override
  public void queue(int contact, int productAndLanguage) {
    arrive(contact, productAndLanguage);
  }

  @Override
  public void ready(int agent) {
    workspace.activity(agentIds[agent], "Ready");
  }

  @Override
  public void arrive(int contact, int productAndLanguage) {
    int product = productAndLanguage / ScaleCenter.LANGUAGES;
    workspace.createContact(
        NewContact.builder("c" + contact, CHANNEL)
            .attributes(attributeMaps.get(productAndLanguage))
            .build(),
        Optional.empty(),
        Optional.of(center.workflow(center.familyOf(product))));
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
        "%,d contacts waiting in %,d requirement groups at the end",
        stats.overall().waiting(), groups);
  }

  @Override
  public void close() {
    workspaces.close();
    defaultRouter.close();
  }
}
