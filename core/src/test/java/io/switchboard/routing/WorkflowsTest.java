package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.routing.spi.MemoryRouterJournal;
import io.switchboard.routing.spi.RouterRecordCodec;
import io.switchboard.routing.spi.StoredContact;
import io.switchboard.routing.spi.WorkspaceCodec;
import io.switchboard.routing.spi.WorkspaceStore;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Workflows (docs/routing.md, "Workflows"): filters over the contact's attributes choose ordered
 * targets; a contact waits in each target until matched or its timeout passes, keeping its arrival;
 * skip-if-none, {@code contact.<attr>} references, a preferred agent, re-evaluation on an attribute
 * change, restart, and bad input refused with its code and nothing changed.
 */
class WorkflowsTest {

  private static final List<Activity> ACTIVITIES =
      List.of(new Activity("Ready", true), new Activity("offline", false));

  private final ManualClock clock = ManualClock.create();
  private final WorkspaceStore store = WorkspaceStore.memory();
  private final WorkspaceRouters routers = WorkspaceRouters.memory(clock);
  private final MemoryRouterJournal defaultJournal = new MemoryRouterJournal();
  private Router defaultRouter;
  private Workspaces workspaces;
  private Workspace centre;

  @BeforeEach
  void start() {
    defaultRouter = Router.builder().clock(clock).journal(defaultJournal).build();
    workspaces = new Workspaces(defaultRouter, WorkspaceSettings.DEFAULTS, store, routers);
  }

  private void restart() {
    workspaces.close();
    defaultRouter.close();
    start();
    centre =
        workspaces.list().stream().anyMatch(w -> w.name().equals("centre"))
            ? workspaces.get("centre")
            : null;
  }

  @AfterEach
  void stop() {
    workspaces.close();
    defaultRouter.close();
  }

  /** The seed-004 centre: a billing queue for billing specialists and a general queue. */
  private Workspace centre() {
    centre =
        workspaces.create(
            WorkspaceDefinition.create("centre", WorkspaceSettings.DEFAULTS, ACTIVITIES));
    centre.putQueue(TaskQueue.named("billing").withWorkerExpression("skills HAS 'billing'"));
    centre.putQueue(TaskQueue.named("general"));
    return centre;
  }

  /** Billing contacts wait 30 s for a billing specialist, then anyone; others go to general. */
  private static Workflow support() {
    return new Workflow(
        "support",
        List.of(
            new WorkflowFilter(
                "billing",
                "topic = 'billing'",
                List.of(
                    WorkflowTarget.queue("billing").withTimeout(Duration.ofSeconds(30)),
                    WorkflowTarget.queue("general")))),
        List.of(WorkflowTarget.queue("general")),
        Optional.empty());
  }

  private void agent(String id, String... skills) {
    centre.createAgent(
        NewAgent.builder(id).attribute("skills", List.of(skills)).capacity("voice", 1).build(),
        Optional.of("Ready"));
  }

  private Contact call(String id, String topic) {
    return call(id, Map.of("topic", topic), "support");
  }

  private Contact call(String id, Map<String, Object> attributes, String workflow) {
    return centre.createContact(
        NewContact.builder(id, "voice").attributes(attributes).build(),
        Optional.empty(),
        Optional.of(workflow));
  }

  private Contact contact(String id) {
    return centre.router().contact(id);
  }

  private void answerAndComplete(String id) {
    Contact c = contact(id);
    centre.router().accept(c.reservationId().orElseThrow());
    centre.router().complete(id, Duration.ZERO);
  }

  @Test
  void seed004_billingWidensToEveryoneAfter30Seconds_keepingItsArrival() {
    centre();
    centre.putWorkflow(support());
    agent("gen", "general");
    Contact g0 = call("g0", "other");
    assertEquals(Optional.of("gen"), g0.agentId());
    centre.router().accept(g0.reservationId().orElseThrow());

    Contact b1 = call("b1", "billing");
    assertEquals(ContactState.QUEUED, b1.state());
    assertEquals(Optional.of("billing"), b1.queue());
    assertEquals(Optional.of("support"), b1.workflow());
    assertEquals(Optional.of("skills HAS 'billing'"), b1.requirements());
    clock.advanceSeconds(10);
    call("g1", "other");
    clock.advanceSeconds(19);
    assertEquals(Optional.of("billing"), contact("b1").queue(), "still waiting for billing");
    clock.advanceSeconds(1);
    Contact widened = contact("b1");
    assertEquals(Optional.of("general"), widened.queue());
    assertEquals(1, widened.escalationStep());
    assertEquals(Optional.empty(), widened.requirements(), "anyone may take it now");
    assertEquals(b1.createdAt(), widened.createdAt(), "arrival kept");

    centre.router().complete("g0", Duration.ZERO);
    assertEquals(
        Optional.of("gen"), contact("b1").agentId(), "b1 arrived before g1, so it goes first");
    assertEquals(ContactState.QUEUED, contact("g1").state());
  }

  @Test
  void billingSpecialist_takesTheContactWithinTheFirstTarget() {
    centre();
    centre.putWorkflow(support());
    call("b1", "billing");
    clock.advanceSeconds(5);
    agent("bea", "billing");
    assertEquals(Optional.of("bea"), contact("b1").agentId());
    assertEquals(Optional.of("billing"), contact("b1").queue());
  }

  @Test
  void filters_firstMatchWins_elseTheDefault() {
    centre();
    centre.putQueue(TaskQueue.named("vip"));
    centre.putWorkflow(
        new Workflow(
            "support",
            List.of(
                new WorkflowFilter("vip", "tier = 'gold'", List.of(WorkflowTarget.queue("vip"))),
                new WorkflowFilter(
                    "billing", "topic = 'billing'", List.of(WorkflowTarget.queue("billing")))),
            List.of(WorkflowTarget.queue("general")),
            Optional.empty()));
    assertEquals(
        Optional.of("vip"),
        call("c1", Map.of("tier", "gold", "topic", "billing"), "support").queue(),
        "both match: the first filter wins");
    assertEquals(Optional.of("billing"), call("c2", "billing").queue());
    assertEquals(
        Optional.of("general"), call("c3", Map.of(), "support").queue(), "no match: default");
  }

  @Test
  void targetPriority_overridesTheContacts() {
    centre();
    centre.putWorkflow(
        new Workflow(
            "w",
            List.of(),
            List.of(
                WorkflowTarget.queue("billing").withTimeout(Duration.ofSeconds(10)).withPriority(5),
                WorkflowTarget.queue("general").withPriority(9)),
            Optional.empty()));
    assertEquals(5, call("c", Map.of(), "w").priority());
    clock.advanceSeconds(10);
    assertEquals(9, contact("c").priority());
  }

  @Test
  void skipIfNoneAvailable_movesOnAtOnce_whenNoAgentCanTakeIt() {
    centre();
    centre.putWorkflow(
        new Workflow(
            "w",
            List.of(),
            List.of(
                WorkflowTarget.queue("billing")
                    .withTimeout(Duration.ofSeconds(60))
                    .skippingIfNoneAvailable(),
                WorkflowTarget.queue("general")),
            Optional.empty()));
    Contact skipped = call("c1", Map.of(), "w");
    assertEquals(Optional.of("general"), skipped.queue(), "no billing agent: skipped at once");
    assertEquals(1, skipped.escalationStep());

    agent("bea", "billing");
    assertEquals(Optional.of("bea"), contact("c1").agentId(), "in general anyone may take it");
    agent("bill", "billing");
    Contact kept = call("c2", Map.of(), "w");
    assertEquals(Optional.of("billing"), kept.queue());
    assertEquals(0, kept.escalationStep());
    assertEquals(Optional.of("bill"), kept.agentId(), "a billing agent is free: no skip");
  }

  @Test
  void contactReferences_resolveFromTheContactsAttributes() {
    centre();
    centre.putWorkflow(
        new Workflow(
            "lang",
            List.of(),
            List.of(
                WorkflowTarget.queue("general")
                    .withExpression("skills HAS contact.language")
                    .withTimeout(Duration.ofSeconds(20)),
                WorkflowTarget.queue("general")),
            Optional.empty()));
    agent("en", "en");
    Contact busy = call("busy", Map.of("language", "en"), "lang");
    assertEquals(Optional.of("en"), busy.agentId());
    agent("es", "es");
    Contact es = call("c-es", Map.of("language", "es"), "lang");
    assertEquals(Optional.of("skills HAS 'es'"), es.requirements());
    assertEquals(Optional.of("es"), es.agentId());

    Contact none = call("c-none", Map.of(), "lang");
    assertEquals(
        Optional.of("contact.language IS NULL AND contact.language IS NOT NULL"),
        none.requirements(),
        "a missing attribute matches no agent, and says which");
    agent("any");
    assertEquals(ContactState.QUEUED, contact("c-none").state());
    clock.advanceSeconds(20);
    assertEquals(Optional.of("any"), contact("c-none").agentId(), "the next target takes anyone");
  }

  @Test
  void contactReferences_numbersBooleansQuotesAndQuotedNamesStay() {
    assertEquals(
        "level >= 3 AND vip = TRUE AND name = 'O''Brien' AND \"contact.x\" = 'contact.y'",
        ContactReferences.resolve(
                "level >= contact.level AND vip = contact.vip AND name = contact.name"
                    + " AND \"contact.x\" = 'contact.y'",
                Map.of("level", 3, "vip", true, "name", "O'Brien"))
            .replaceAll(" +", " ")
            .trim());
    assertEquals(
        "\"contact.skills\" IS NULL AND \"contact.skills\" IS NOT NULL",
        ContactReferences.resolve("skills HAS contact.skills", Map.of("skills", List.of("a"))),
        "a list value does not resolve");
  }

  @Test
  void preferredAgent_isTriedFirst_untilItsTimeout() {
    centre();
    centre.putWorkflow(
        new Workflow(
            "sticky",
            List.of(),
            List.of(WorkflowTarget.queue("general")),
            Optional.of(new Workflow.PreferredAgent("lastAgent", Duration.ofSeconds(20)))));
    agent("bob");
    agent("ann");
    Contact first = call("c1", Map.of("lastAgent", "ann"), "sticky");
    assertEquals(Optional.of("ann"), first.agentId(), "ann, though bob was idle longer");
    Contact second = call("c2", Map.of("lastAgent", "ann"), "sticky");
    assertEquals(ContactState.QUEUED, second.state(), "ann is busy; bob waits too");
    clock.advanceSeconds(19);
    assertEquals(ContactState.QUEUED, contact("c2").state());
    clock.advanceSeconds(1);
    assertEquals(Optional.of("bob"), contact("c2").agentId());
    Contact third = call("c3", Map.of(), "sticky");
    assertEquals(Optional.empty(), third.requirements(), "no attribute: straight to the targets");
    assertEquals(0, third.escalationStep());
  }

  @Test
  void attributeChange_reevaluatesTheWorkflow_keepingArrival_andDroppingTheOldTimers() {
    centre();
    centre.putWorkflow(support());
    agent("gen", "general");
    Contact g0 = call("g0", "other");
    centre.router().accept(g0.reservationId().orElseThrow());
    Contact c = call("c1", "other");
    assertEquals(Optional.of("general"), c.queue());
    clock.advanceSeconds(20);
    Contact moved =
        centre.updateContact("c1", ContactUpdate.none().withAttributes(Map.of("topic", "billing")));
    assertEquals(Optional.of("billing"), moved.queue());
    assertEquals(0, moved.escalationStep());
    assertEquals(c.createdAt(), moved.createdAt(), "arrival kept");
    assertEquals(Map.of("topic", "billing"), moved.attributes());
    clock.advanceSeconds(29);
    assertEquals(
        Optional.of("billing"), contact("c1").queue(), "the billing target's 30 s count anew");
    clock.advanceSeconds(1);
    assertEquals(Optional.of("general"), contact("c1").queue());

    // back to billing, then widened by the new route's timer only
    centre.updateContact("c1", ContactUpdate.none().withAttributes(Map.of("topic", "other")));
    centre.updateContact("c1", ContactUpdate.none().withAttributes(Map.of("topic", "billing")));
    clock.advanceSeconds(29);
    assertEquals(Optional.of("billing"), contact("c1").queue());
    assertEquals(0, contact("c1").escalationStep());
    clock.advanceSeconds(1);
    assertEquals(Optional.of("general"), contact("c1").queue());

    RoutingException e =
        assertThrows(
            RoutingException.class,
            () ->
                centre.updateContact(
                    "c1", ContactUpdate.none().withRequirements("skills HAS 'x'")));
    assertEquals(RoutingErrorCode.INVALID_ARGUMENT, e.code());
  }

  @Test
  void restart_keepsWorkflows_andAWaitingContactsTargetAndTimers() {
    centre();
    centre.putWorkflow(support());
    call("b1", "billing");
    Contact before = contact("b1");
    WorkspaceDefinition definition = centre.definition();
    clock.advanceSeconds(10);

    restart();

    assertEquals(definition, centre.definition());
    Contact after = contact("b1");
    assertEquals(before.createdAt(), after.createdAt());
    assertEquals(Optional.of("billing"), after.queue());
    assertEquals(Optional.of("support"), after.workflow());
    clock.advanceSeconds(19);
    assertEquals(Optional.of("billing"), contact("b1").queue());
    clock.advanceSeconds(1);
    assertEquals(Optional.of("general"), contact("b1").queue(), "the recovered timer widened it");
    agent("gen");
    assertEquals(Optional.of("gen"), contact("b1").agentId());
    centre.updateContact("b1", ContactUpdate.none().withPriority(3));
    answerAndComplete("b1");
  }

  @Test
  void defaultWorkspaceWorkflows_surviveARestart() {
    Workspace d = workspaces.get("default");
    d.putQueue(TaskQueue.named("billing"));
    d.putQueue(TaskQueue.named("general"));
    d.putWorkflow(support());
    restart();
    assertEquals(List.of(support()), workspaces.get("default").definition().workflows());
  }

  @Test
  void codecs_roundTripWorkflowsAndRoutedSteps() {
    centre();
    centre.putWorkflow(support());
    centre.putWorkflow(
        new Workflow(
            "sticky",
            List.of(),
            List.of(
                WorkflowTarget.queue("billing")
                    .withExpression("skills HAS contact.language")
                    .withPriority(4)
                    .withTimeout(Duration.ofMillis(1500))
                    .skippingIfNoneAvailable(),
                WorkflowTarget.queue("general")),
            Optional.of(new Workflow.PreferredAgent("lastAgent", Duration.ofSeconds(20)))));
    WorkspaceDefinition d = centre.definition();
    assertEquals(d, WorkspaceCodec.decode(WorkspaceCodec.encode(d)));

    StoredContact c =
        StoredContact.builder("c", "voice")
            .seq(1)
            .steps(
                List.of(
                    new StoredContact.Step(
                        30_000,
                        Optional.of("a = 1"),
                        Optional.of("general"),
                        Optional.of(-3),
                        true),
                    new StoredContact.Step(60_000, Optional.empty())))
            .timerSeq(1)
            .queue(Optional.of("billing"))
            .workflow(Optional.of("support"))
            .build();
    assertEquals(c, RouterRecordCodec.contact(RouterRecordCodec.encode(c)));
  }

  @Test
  void definitionsAndContactsStoredBeforeWorkflows_readWithNone() {
    centre();
    WorkspaceDefinition d = centre.definition().withCallbackSecret(Optional.empty());
    byte[] now = WorkspaceCodec.encode(d);
    // without the workflow count, nor the callbacks' count and (null) secret written after it, nor
    // the settings written after those (32 bytes when the workspace has none of its own)
    byte[] before = java.util.Arrays.copyOf(now, now.length - 4 - 4 - 4 - 32);
    assertEquals(d, WorkspaceCodec.decode(before));

    StoredContact queued =
        StoredContact.builder("c", "voice")
            .seq(1)
            .steps(List.of(new StoredContact.Step(30_000, Optional.of("a = 1"))))
            .timerSeq(1)
            .queue(Optional.of("billing"))
            .build();
    byte[] bytes = RouterRecordCodec.encode(queued);
    assertEquals(queued, RouterRecordCodec.contact(bytes));
    assertEquals(Optional.empty(), RouterRecordCodec.contact(bytes).workflow());
  }

  // ---- bad input ----------------------------------------------------------------------------

  private RoutingException refused(RoutingErrorCode code, Executable call) {
    List<WorkspaceDefinition> stored = store.load();
    WorkspaceDefinition before = centre.definition();
    List<Contact> waiting = centre.router().waiting();
    long lastEvent = centre.router().events(0, 1).lastId();
    RoutingException e = assertThrows(RoutingException.class, call);
    assertEquals(code, e.code(), e.getMessage());
    assertEquals(stored, store.load());
    assertEquals(before, centre.definition());
    assertEquals(waiting, centre.router().waiting());
    assertEquals(lastEvent, centre.router().events(0, 1).lastId(), "no event");
    return e;
  }

  private static Workflow defaults(String name, WorkflowTarget... targets) {
    return new Workflow(name, List.of(), List.of(targets), Optional.empty());
  }

  @Test
  void badWorkflows_refused_withTheirCodes_changingNothing() {
    centre();
    centre.putWorkflow(support());
    RoutingException e =
        refused(
            RoutingErrorCode.INVALID_SELECTOR,
            () ->
                centre.putWorkflow(
                    new Workflow(
                        "w",
                        List.of(
                            new WorkflowFilter(
                                "f", "topic =", List.of(WorkflowTarget.queue("general")))),
                        List.of(WorkflowTarget.queue("general")),
                        Optional.empty())));
    assertTrue(e.getMessage().startsWith("workflow 'w' filters[0].expression: "), e.getMessage());
    e =
        refused(
            RoutingErrorCode.INVALID_SELECTOR,
            () ->
                centre.putWorkflow(
                    defaults("w", WorkflowTarget.queue("general").withExpression("skills HAS"))));
    assertTrue(
        e.getMessage().startsWith("workflow 'w' defaultFilter.targets[0].expression: "),
        e.getMessage());
    e =
        refused(
            RoutingErrorCode.TASK_QUEUE_NOT_FOUND,
            () -> centre.putWorkflow(defaults("w", WorkflowTarget.queue("nope"))));
    assertEquals(
        "workflow 'w' names task queue 'nope', which does not exist in workspace 'centre' (its"
            + " task queues: billing, general)",
        e.getMessage());
    e = refused(RoutingErrorCode.INVALID_ARGUMENT, () -> centre.putWorkflow(defaults("w")));
    assertEquals("workflow 'w' defaultFilter needs 1..16 targets, got 0", e.getMessage());
    refused(
        RoutingErrorCode.INVALID_ARGUMENT,
        () ->
            centre.putWorkflow(
                new Workflow(
                    "w",
                    List.of(new WorkflowFilter("f", "a = 1", List.of())),
                    List.of(WorkflowTarget.queue("general")),
                    Optional.empty())));
    e =
        refused(
            RoutingErrorCode.INVALID_ARGUMENT,
            () ->
                centre.putWorkflow(
                    defaults(
                        "w", WorkflowTarget.queue("billing"), WorkflowTarget.queue("general"))));
    assertTrue(e.getMessage().contains("targets[0].timeout is required"), e.getMessage());
    e =
        refused(
            RoutingErrorCode.INVALID_ARGUMENT,
            () ->
                centre.putWorkflow(
                    defaults(
                        "w", WorkflowTarget.queue("general").withTimeout(Duration.ofSeconds(5)))));
    assertTrue(e.getMessage().contains("the last target waits"), e.getMessage());
    refused(
        RoutingErrorCode.INVALID_ARGUMENT,
        () ->
            centre.putWorkflow(defaults("w", WorkflowTarget.queue("general").withPriority(5000))));
    refused(
        RoutingErrorCode.INVALID_ARGUMENT,
        () -> centre.putWorkflow(defaults("bad name!", WorkflowTarget.queue("general"))));
  }

  @Test
  void deletingAQueueAWorkflowUses_refused_namingTheWorkflow() {
    centre();
    centre.putWorkflow(support());
    RoutingException e =
        refused(RoutingErrorCode.TASK_QUEUE_IN_USE, () -> centre.removeQueue("billing"));
    assertEquals(
        "task queue 'billing' is a target of workflow 'support'; change or remove it first",
        e.getMessage());
    centre.removeWorkflow("support");
    centre.removeQueue("billing");
    refused(RoutingErrorCode.WORKFLOW_NOT_FOUND, () -> centre.removeWorkflow("support"));
  }

  @Test
  void badContacts_refused() {
    centre();
    centre.putWorkflow(support());
    refused(RoutingErrorCode.WORKFLOW_NOT_FOUND, () -> call("c", Map.of(), "nope"));
    refused(
        RoutingErrorCode.INVALID_ARGUMENT,
        () ->
            centre.createContact(
                NewContact.builder("c", "voice").build(),
                Optional.of("general"),
                Optional.of("support")));
    refused(
        RoutingErrorCode.INVALID_ARGUMENT,
        () ->
            centre.createContact(
                NewContact.builder("c", "voice").requirements("a = 1").build(),
                Optional.empty(),
                Optional.of("support")));
    refused(
        RoutingErrorCode.INVALID_ARGUMENT,
        () ->
            centre.createContact(
                NewContact.builder("c", "voice").escalateToAnyAgent(Duration.ofSeconds(1)).build(),
                Optional.empty(),
                Optional.of("support")));
  }
}
