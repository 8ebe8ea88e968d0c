package io.switchboard.tck.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.routing.Activity;
import io.switchboard.routing.Agent;
import io.switchboard.routing.Contact;
import io.switchboard.routing.ContactState;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Presence;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.TaskQueue;
import io.switchboard.routing.Workspace;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceSettings;
import io.switchboard.routing.Workspaces;
import java.util.List;
import java.util.Optional;

/**
 * The routing workspace the failover tests of the shared stores (PostgreSQL, DynamoDB) build on a
 * leader and look for on the server that takes over: a contact centre where ann (billing, Ready) is
 * offered b1, b2 waits behind it for billing, and bob (general) is at lunch, so g1 waits in
 * general.
 */
public final class ContactCentre {

  /** The centre's activities: {@code Ready} is available, the others are not. */
  public static final List<Activity> ACTIVITIES =
      List.of(
          new Activity("Ready", true),
          new Activity("Lunch", false),
          new Activity("offline", false));

  private ContactCentre() {}

  /** An agent with one voice slot and the skills {@code skills}. */
  public static NewAgent agent(String id, String... skills) {
    return NewAgent.builder(id).attribute("skills", List.of(skills)).capacity("voice", 1).build();
  }

  /** Creates workspace {@code centre} on the leader's workspaces, as the class comment says. */
  public static Workspace create(Workspaces leader) {
    Workspace centre =
        leader.create(
            WorkspaceDefinition.create(
                "centre", WorkspaceSettings.DEFAULTS.withDefaultActivity("offline"), ACTIVITIES));
    centre.putQueue(TaskQueue.named("billing").withWorkerExpression("skills HAS 'billing'"));
    centre.putQueue(TaskQueue.named("general").withWorkerExpression("skills HAS 'general'"));
    centre.createAgent(agent("ann", "billing"), Optional.of("Ready"));
    centre.createAgent(agent("bob", "general"), Optional.of("Lunch"));
    centre.createContact(NewContact.builder("b1", "voice").build(), Optional.of("billing"));
    centre.createContact(NewContact.builder("b2", "voice").build(), Optional.of("billing"));
    centre.createContact(NewContact.builder("g1", "voice").build(), Optional.of("general"));
    return centre;
  }

  /** The number at the end of a reservation id. */
  public static long number(String reservationId) {
    return Long.parseLong(reservationId.substring(reservationId.lastIndexOf('-') + 1));
  }

  /**
   * The centre as a leader held it before it died, with dora, an agent of workspace {@code
   * default}, beside it.
   */
  public record Before(Workspace centre, Contact b1, Contact b2, Contact g1, String offer) {

    /** Creates the centre and dora on the leader's workspaces, and notes what they hold. */
    public static Before create(Workspaces leader) {
      Workspace centre = ContactCentre.create(leader);
      leader.get(Workspaces.DEFAULT).router().createAgent(agent("dora"));
      Contact b1 = centre.router().contact("b1");
      assertEquals(Optional.of("ann"), b1.agentId());
      return new Before(
          centre,
          b1,
          centre.router().contact("b2"),
          centre.router().contact("g1"),
          b1.reservationId().orElseThrow());
    }

    /**
     * Checks that the workspaces of the server that took over hold the centre as it was: its
     * definition, ann and bob with their activities, dora in {@code default} only, b1 offered under
     * the same reservation, b2 and g1 waiting in their queues with their arrival. Then rejects the
     * offer: the next reservation's id is above every id the dead leader could have shown ({@code
     * reservationBlock}, the store's block of reserved ids). Returns the centre there.
     */
    public Workspace assertTakenOver(Workspaces after, long reservationBlock) {
      Workspace now = after.get("centre");
      assertEquals(centre.definition(), now.definition());
      assertEquals(
          List.of("centre", "default"), after.list().stream().map(Workspace::name).toList());
      Agent ann = now.router().agent("ann");
      assertEquals("Ready", ann.activity());
      assertEquals(Presence.available(), ann.presence());
      assertEquals("Lunch", now.router().agent("bob").activity());
      assertEquals(
          List.of("dora"),
          after.get(Workspaces.DEFAULT).router().agents().stream().map(Agent::id).toList(),
          "default keeps its own agents");
      assertThrows(RoutingException.class, () -> now.router().agent("dora"));

      Contact b1After = now.router().contact("b1");
      assertEquals(ContactState.OFFERED, b1After.state());
      assertEquals(Optional.of(offer), b1After.reservationId());
      for (Contact waiting : List.of(b2, g1)) {
        Contact there = now.router().contact(waiting.id());
        assertEquals(ContactState.QUEUED, there.state(), waiting.id());
        assertEquals(waiting.queue(), there.queue(), waiting.id());
        assertEquals(waiting.createdAt(), there.createdAt(), waiting.id() + " keeps its arrival");
      }

      now.router().reject(offer);
      String next = now.router().pendingReservations("ann").get(0).id();
      assertTrue(number(next) > number(offer), next + " after " + offer);
      assertTrue(
          number(next) >= reservationBlock, "ids reserved by the dead leader are skipped: " + next);
      return now;
    }
  }
}
