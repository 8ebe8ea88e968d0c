package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.routing.spi.WorkspaceStore;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Regression (found while building {@link WorkflowDifferentialTest}, which also catches it): a
 * contact whose offer was pending when it moved to another task queue (its workflow's next target,
 * or the workflow routing it again) left the agent's count of the old queue's contacts one too high
 * and the new queue's one too low, for good: the agent was held at the old queue's cap by a contact
 * no longer in it, and went past the new queue's cap. The count now follows the contact, and the
 * agent takes the old queue's waiting work at once.
 */
class OfferedContactChangingQueueTest {

  private final ManualClock clock = ManualClock.create();
  private final Router defaultRouter = Router.builder().clock(clock).build();
  private final Workspaces workspaces =
      new Workspaces(
          defaultRouter,
          WorkspaceSettings.DEFAULTS,
          WorkspaceStore.memory(),
          WorkspaceRouters.memory(clock));
  private final Workspace centre =
      workspaces.create(
          WorkspaceDefinition.create(
              "centre",
              WorkspaceSettings.DEFAULTS.withOfferTimeout(Duration.ofSeconds(60)),
              List.of(new Activity("Ready", true), new Activity("offline", false))));

  @AfterEach
  void stop() {
    workspaces.close();
    defaultRouter.close();
  }

  private void setUp() {
    centre.putQueue(
        new TaskQueue(
            "first",
            Optional.empty(),
            TaskQueue.Order.FIFO,
            Optional.empty(),
            Optional.of(1),
            Optional.empty()));
    centre.putQueue(
        new TaskQueue(
            "second",
            Optional.empty(),
            TaskQueue.Order.FIFO,
            Optional.empty(),
            Optional.of(1),
            Optional.empty()));
    centre.putWorkflow(
        new Workflow(
            "widen",
            List.of(),
            List.of(
                WorkflowTarget.queue("first").withTimeout(Duration.ofSeconds(5)),
                WorkflowTarget.queue("second")),
            Optional.empty()));
    centre.createAgent(NewAgent.builder("ann").capacity("chat", 3).build(), Optional.of("Ready"));
  }

  private Contact contact(String id) {
    return centre.router().contact(id);
  }

  @Test
  void offeredContactMovingToNextTarget_agentTakesOldQueuesWorkAndCapOfNewHolds() {
    setUp();
    centre.createContact(
        NewContact.builder("c1", "chat").build(), Optional.empty(), Optional.of("widen"));
    assertEquals(Optional.of("ann"), contact("c1").agentId());
    centre.createContact(NewContact.builder("c2", "chat").build(), Optional.of("first"));
    assertEquals(ContactState.QUEUED, contact("c2").state(), "ann is at first's cap");

    clock.advanceSeconds(5); // c1 moves to "second" while its offer stands
    assertEquals(Optional.of("second"), contact("c1").queue());
    assertEquals(ContactState.OFFERED, contact("c1").state());
    assertEquals(Optional.of("ann"), contact("c2").agentId(), "ann no longer holds one of first's");

    centre.createContact(NewContact.builder("c3", "chat").build(), Optional.of("second"));
    assertEquals(ContactState.QUEUED, contact("c3").state(), "ann is at second's cap");

    centre.router().reject(contact("c1").reservationId().orElseThrow());
    // c1 waits in second again, and the slot it gave back is second's: c3 or c1 goes to ann
    assertEquals(
        1,
        centre.router().pendingReservations("ann").stream()
            .filter(r -> List.of("c1", "c3").contains(r.contactId()))
            .count());
  }

  @Test
  void offeredContactRoutedAgain_agentSlotFollowsIt() {
    setUp();
    centre.putWorkflow(
        new Workflow(
            "widen",
            List.of(
                new WorkflowFilter("late", "late = TRUE", List.of(WorkflowTarget.queue("second")))),
            List.of(
                WorkflowTarget.queue("first").withTimeout(Duration.ofSeconds(5)),
                WorkflowTarget.queue("second")),
            Optional.empty()));
    centre.createContact(
        NewContact.builder("c1", "chat").build(), Optional.empty(), Optional.of("widen"));
    centre.createContact(NewContact.builder("c2", "chat").build(), Optional.of("first"));
    assertEquals(ContactState.QUEUED, contact("c2").state());

    centre.updateContact("c1", ContactUpdate.none().withAttributes(Map.of("late", true)));

    assertEquals(Optional.of("second"), contact("c1").queue());
    assertEquals(Optional.of("ann"), contact("c2").agentId(), "ann no longer holds one of first's");
  }
}
