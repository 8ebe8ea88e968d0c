package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.routing.Activity;
import io.switchboard.routing.Contact;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Router;
import io.switchboard.routing.TaskQueue;
import io.switchboard.routing.Workflow;
import io.switchboard.routing.WorkflowFilter;
import io.switchboard.routing.WorkflowTarget;
import io.switchboard.routing.Workspace;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceSettings;
import io.switchboard.routing.Workspaces;
import io.switchboard.time.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workflows on the real store, as the server opens it: the definition in the default journal's
 * workspace store, each workspace's router on its own journal. After a restart the workflow is
 * there, and a contact waiting in its first target keeps that target, its arrival and the timer
 * that widens it.
 */
class RocksWorkflowRestartTest {

  @TempDir Path dir;
  private final ManualClock clock = ManualClock.create();
  private RocksRouterJournal journal;
  private Router router;
  private Workspaces workspaces;

  private void open() {
    journal = RocksRouterJournal.open(dir.resolve("routing"), Durability.sync());
    router = Router.builder().clock(clock).journal(journal).build();
    workspaces =
        new Workspaces(
            router,
            WorkspaceSettings.DEFAULTS,
            journal.workspaceStore(),
            new RocksWorkspaceRouters(
                dir.resolve("workspaces"), Durability.sync(), d -> Router.builder().clock(clock)));
  }

  private void restart() {
    close();
    open();
  }

  @AfterEach
  void close() {
    workspaces.close();
    router.close();
    journal.close();
  }

  @Test
  void waitingContact_keepsItsTargetArrivalAndTimer_acrossARestart() {
    open();
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
                        WorkflowTarget.queue("billing")
                            .withTimeout(Duration.ofSeconds(30))
                            .withPriority(1),
                        WorkflowTarget.queue("general").withPriority(2)))),
            List.of(WorkflowTarget.queue("general")),
            Optional.empty()));
    WorkspaceDefinition definition = centre.definition();
    Contact b1 =
        centre.createContact(
            NewContact.builder("b1", "voice").attributes(Map.of("topic", "billing")).build(),
            Optional.empty(),
            Optional.of("support"));
    clock.advanceSeconds(10);

    restart();

    Workspace again = workspaces.get("centre");
    assertEquals(definition, again.definition());
    Contact recovered = again.router().contact("b1");
    assertEquals(Optional.of("billing"), recovered.queue());
    assertEquals(Optional.of("support"), recovered.workflow());
    assertEquals(b1.createdAt(), recovered.createdAt());
    assertEquals(1, recovered.priority());
    clock.advanceSeconds(19);
    assertEquals(Optional.of("billing"), again.router().contact("b1").queue());
    clock.advanceSeconds(1);
    Contact widened = again.router().contact("b1");
    assertEquals(Optional.of("general"), widened.queue());
    assertEquals(2, widened.priority(), "the second target's priority, recovered with its step");
    again.createAgent(NewAgent.builder("gen").capacity("voice", 1).build(), Optional.of("Ready"));
    assertEquals(Optional.of("gen"), again.router().contact("b1").agentId());
  }
}
