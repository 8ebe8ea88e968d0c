package io.switchboard.cli;

import io.switchboard.queue.ExpiryAction;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.Overflow;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.routing.Activity;
import io.switchboard.routing.Contact;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Presence;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingStats;
import io.switchboard.routing.TaskQueue;
import io.switchboard.routing.Workflow;
import io.switchboard.routing.WorkflowFilter;
import io.switchboard.routing.WorkflowTarget;
import io.switchboard.routing.Workspace;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceRouters;
import io.switchboard.routing.WorkspaceSettings;
import io.switchboard.routing.Workspaces;
import io.switchboard.routing.spi.WorkspaceStore;
import io.switchboard.time.ManualClock;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A narrated walk through the five seed patterns on an in-memory engine and router, then the
 * routing centre again as a workspace with a workflow (the README's tour, in-process). The clock is
 * simulated, so the tour takes no time and prints the same every run.
 */
final class Tour {

  private final PrintStream out;
  private final ManualClock clock = ManualClock.create();

  Tour(PrintStream out) {
    this.out = out;
  }

  int run(String[] args) {
    try (QueueEngine engine = QueueEngine.builder().clock(clock).build()) {
      agentQueue(engine);
      priorityQueue(engine);
      lifoWithTtl(engine);
      groupedFifo(engine);
    }
    skillsRouting();
    workspaceWithWorkflow();
    return Main.OK;
  }

  /** Seed 000: the earliest available agent matching language and gender. */
  private void agentQueue(QueueEngine engine) {
    title("Seed 000: filtered agent queue");
    engine.createQueue("agents", QueueConfig.defaults());
    agent(engine, "ana", "es", "F");
    agent(engine, "luis", "es", "M");
    agent(engine, "jean", "fr", "M");
    agent(engine, "pablo", "es", "M");
    List<Message> got =
        engine.receive(
            "agents",
            ReceiveRequest.builder()
                .filter(
                    m ->
                        "es".equals(text(m.attributeOrNull("language")))
                            && "M".equals(text(m.attributeOrNull("gender"))))
                .build());
    say("a caller wants a Spanish-speaking male agent: " + got.get(0).body());
    say("the earliest such agent wins; pablo stays available for the next caller");
    engine.ack("agents", got.get(0).receipt().orElseThrow());
  }

  private void agent(QueueEngine engine, String name, String language, String gender) {
    engine.send(
        "agents",
        NewMessage.builder(name)
            .attribute("language", language)
            .attribute("gender", gender)
            .build());
    clock.advanceSeconds(1);
  }

  /** Seed 001: priorities, change of priority while queued, dead letters and restore. */
  private void priorityQueue(QueueEngine engine) {
    title("Seed 001: priority queue with change-priority and dead letters");
    engine.createQueue("shipments-dlq", QueueConfig.defaults());
    engine.createQueue(
        "shipments",
        QueueConfig.builder()
            .visibilityTimeout(Duration.ofSeconds(30))
            .deadLetter("shipments-dlq", 2)
            .build());
    String a = engine.send("shipments", NewMessage.of("shipment-A")).id();
    engine.send("shipments", NewMessage.of("shipment-B"));
    String c = engine.send("shipments", NewMessage.of("shipment-C")).id();
    engine.update("shipments", c, MessageUpdate.priority(10));
    say("C raised to priority 10 while queued; next out: " + next(engine, "shipments"));
    engine.touch("shipments", a);
    say("A touched to the back; next out: " + next(engine, "shipments"));
    for (int attempt = 1; attempt <= 2; attempt++) {
      Message m = engine.receive("shipments", ReceiveRequest.one()).get(0);
      say("attempt " + attempt + " on " + m.body() + " fails; its lease runs out");
      clock.advanceSeconds(30);
    }
    say(
        "after 2 receives A went to the dead-letter queue: "
            + engine.get("shipments-dlq", a).state().wireName());
    engine.restore("shipments-dlq", a);
    say("restored, A is back: " + engine.get("shipments", a).state().wireName());
    stats(engine, "shipments");
  }

  private String next(QueueEngine engine, String queue) {
    Message m = engine.receive(queue, ReceiveRequest.one()).get(0);
    engine.ack(queue, m.receipt().orElseThrow());
    return m.body();
  }

  /** Seed 002: LIFO, old tasks shed by TTL and by a depth limit. */
  private void lifoWithTtl(QueueEngine engine) {
    title("Seed 002: LIFO task queue with TTL and load shedding");
    engine.createQueue(
        "validations",
        QueueConfig.builder()
            .order(Order.LIFO)
            .retention(Duration.ofSeconds(60))
            .onExpire(ExpiryAction.DELETE)
            .maxDepth(3, Overflow.DROP_OLDEST)
            .build());
    for (int i = 1; i <= 5; i++) {
      engine.send("validations", NewMessage.of("connection-" + i));
      clock.advanceSeconds(5);
    }
    say("5 tasks sent 5 s apart into a queue of depth 3 with 60 s retention");
    say("shed (oldest first): " + engine.stats("validations").counters().shed());
    clock.advanceSeconds(50);
    QueueStats s = engine.stats("validations");
    say(
        "50 s later: expired "
            + s.counters().expired()
            + ", left "
            + s.depth()
            + "; newest first: "
            + next(engine, "validations"));
  }

  /** Seed 003: SQS FIFO message groups and their batch rules. */
  private void groupedFifo(QueueEngine engine) {
    title("Seed 003: grouped FIFO (SQS FIFO rules)");
    engine.createQueue("bids.fifo", QueueConfig.builder().contentBasedDeduplication(true).build());
    List<NewMessage> bids = new ArrayList<>();
    for (int i = 1; i <= 11; i++) {
      bids.add(NewMessage.builder("A" + i).groupId("A").build());
      bids.add(NewMessage.builder("B" + i).groupId("B").build());
    }
    engine.sendBatch("bids.fifo", bids);
    say("11 bids each for auctions A and B, interleaved");
    List<Message> one = engine.receive("bids.fifo", ReceiveRequest.max(10));
    List<Message> two = engine.receive("bids.fifo", ReceiveRequest.max(10));
    say("consumer 1 gets " + bodies(one));
    say("consumer 2 gets " + bodies(two));
    one.forEach(m -> engine.ack("bids.fifo", m.receipt().orElseThrow()));
    say(
        "consumer 1 acks and asks again while B is in flight: "
            + bodies(engine.receive("bids.fifo", ReceiveRequest.max(10))));
  }

  /** Seed 004: a contact goes to the longest-available agent with all its skills, or waits. */
  private void skillsRouting() {
    title("Seed 004: skills-based routing");
    try (Router router = Router.builder().clock(clock).build()) {
      router.createAgent(
          routingAgent("a1", "english", "billing").presence(Presence.available()).build());
      clock.advanceSeconds(1);
      router.createAgent(routingAgent("a2", "english").presence(Presence.available()).build());
      clock.advanceSeconds(1);
      say("agents a1 (english, billing) and a2 (english) are available, a1 the longest");
      Contact c1 =
          router.createContact(
              NewContact.builder("c1", "voice")
                  .requirements("skills HAS ALL ('english', 'billing')")
                  .build());
      say("c1 needs english and billing: " + where(c1));
      Contact c2 =
          router.createContact(
              NewContact.builder("c2", "voice").requirements("skills HAS 'billing'").build());
      say("c2 needs billing: " + where(c2) + " (a1 is busy, a2 has no billing)");
      router.accept(c1.reservationId().orElseThrow());
      say("a1 accepts c1: " + where(router.contact("c1")));
      clock.advanceSeconds(60);
      router.complete("c1", Duration.ZERO);
      say("a1 completes c1 after 60 s: c2 " + where(router.contact("c2")));
      RoutingStats s = router.stats();
      say(
          "routing stats: waiting "
              + s.overall().waiting()
              + ", answered "
              + s.overall().answered()
              + ", speed of answer "
              + s.overall().averageSpeedOfAnswer().map(d -> d.toSeconds() + " s").orElse("-"));
    }
  }

  /** Seed 004 as a workspace: billing waits 30 s for a billing specialist, then widens. */
  private void workspaceWithWorkflow() {
    title("Seed 004 as a workspace: task queues and a workflow");
    try (Router defaultRouter = Router.builder().clock(clock).build();
        Workspaces workspaces =
            new Workspaces(
                defaultRouter,
                WorkspaceSettings.DEFAULTS,
                WorkspaceStore.memory(),
                WorkspaceRouters.memory(clock))) {
      Workspace centre =
          workspaces.create(
              WorkspaceDefinition.create(
                  "centre",
                  WorkspaceSettings.DEFAULTS,
                  List.of(new Activity("Ready", true), new Activity("offline", false))));
      centre.putQueue(TaskQueue.named("billing").withWorkerExpression("skills HAS 'billing'"));
      centre.putQueue(TaskQueue.named("general"));
      centre.putWorkflow(
          new Workflow(
              "support",
              List.of(
                  new WorkflowFilter(
                      "billing",
                      "topic = 'billing'",
                      List.of(
                          WorkflowTarget.queue("billing").withTimeout(Duration.ofSeconds(30)),
                          WorkflowTarget.queue("general")))),
              List.of(WorkflowTarget.queue("general")),
              Optional.empty()));
      say("workspace centre: task queues billing (skills HAS 'billing') and general;");
      say("workflow support: topic = 'billing' waits 30 s in billing, then general");
      centre.createAgent(routingAgent("g1", "english").build(), Optional.of("Ready"));
      Contact b1 =
          centre.createContact(
              NewContact.builder("b1", "voice").attributes(Map.of("topic", "billing")).build(),
              Optional.empty(),
              Optional.of("support"));
      say(
          "agent g1 (english) is Ready; billing contact b1 is "
              + where(b1)
              + " in queue "
              + b1.queue().orElse("-")
              + ": g1 is no billing specialist");
      clock.advanceSeconds(30);
      Contact widened = centre.router().contact("b1");
      say(
          "30 s later b1 moved to queue "
              + widened.queue().orElse("-")
              + " (step "
              + widened.escalationStep()
              + ") and is "
              + where(widened));
    }
  }

  private static NewAgent.Builder routingAgent(String id, String... skills) {
    return NewAgent.builder(id).attribute("skills", List.of(skills)).capacity("voice", 1);
  }

  private static String where(Contact c) {
    String state = c.state().name().toLowerCase(java.util.Locale.ROOT);
    return c.agentId().map(a -> state + " to " + a).orElse(state);
  }

  private static String bodies(List<Message> messages) {
    return messages.stream().map(Message::body).toList().toString();
  }

  private static @Nullable String text(@Nullable Object value) {
    return value instanceof io.switchboard.queue.AttributeValue.StringValue s ? s.value() : null;
  }

  private void stats(QueueEngine engine, String queue) {
    QueueStats s = engine.stats(queue);
    say(
        "stats: available "
            + s.available()
            + ", in flight "
            + s.inFlight()
            + ", sent "
            + s.counters().sent()
            + ", acked "
            + s.counters().acked()
            + ", dead-lettered "
            + s.counters().deadLettered());
  }

  private void title(String text) {
    out.println();
    out.println("== " + text);
  }

  private void say(String text) {
    out.println("   " + text);
  }
}
