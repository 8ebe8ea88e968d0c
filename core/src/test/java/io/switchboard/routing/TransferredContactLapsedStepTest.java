package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.routing.spi.MemoryRouterJournal;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Regression (found by {@link WorkflowDifferentialTest}'s restart variant): a contact transferred
 * to an agent kept its unreached escalation steps. One falling due while the contact was assigned
 * lapsed in the running router, but a restart restored its timer and, the contact waiting again,
 * applied it: the restarted router routed the contact differently from one that never restarted.
 * The steps are now dropped on a transfer to an agent, as on a transfer to a queue.
 */
class TransferredContactLapsedStepTest {

  private final ManualClock clock = ManualClock.create();
  private final MemoryRouterJournal journal = new MemoryRouterJournal();
  private Router router = build();

  private Router build() {
    return Router.builder().clock(clock).journal(journal).build();
  }

  @AfterEach
  void stop() {
    router.close();
  }

  @Test
  void stepLapsedWhileAssigned_notAppliedAfterATransferToAnAgentAndARestart() {
    for (String id : List.of("ann", "bob")) {
      router.createAgent(
          NewAgent.builder(id)
              .attribute("skills", List.of("a"))
              .capacity("voice", 1)
              .presence(Presence.available())
              .build());
    }
    router.createContact(
        NewContact.builder("c1", "voice")
            .requirements("skills HAS 'a'")
            .escalate(Duration.ofSeconds(10), "skills HAS 'z'")
            .build());
    router.accept(router.contact("c1").reservationId().orElseThrow());
    clock.advanceSeconds(15); // the step falls due while c1 is assigned: it lapses
    String assignedTo = router.contact("c1").agentId().orElseThrow();
    String other = assignedTo.equals("ann") ? "bob" : "ann";
    router.transferToAgent("c1", other);

    router.close();
    router = build();

    router.reject(router.contact("c1").reservationId().orElseThrow());
    Contact c1 = router.contact("c1");
    assertEquals(Optional.of("skills HAS 'a'"), c1.requirements());
    assertEquals(1, c1.escalationStep(), "the unreached step was dropped by the transfer");
    assertEquals(Optional.of(assignedTo), c1.agentId(), "offered again to the agent now free");
  }
}
