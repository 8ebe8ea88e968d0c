package io.switchboard.routing;

import java.time.Instant;
import java.util.Optional;

/**
 * A state change of an agent, a contact or a reservation. Ids increase by one per event, across the
 * whole router, so a subscriber that saw event {@code n} resumes with {@link Router#events(long,
 * int) events(n, ...)}. Events are emitted in the order the changes happened, and each describes a
 * change completely: a reservation that ends rejected, timed out or cancelled also puts its contact
 * back in line (or, past its maximum wait, times it out with a {@link ContactTimedOut}).
 */
public sealed interface RoutingEvent {

  /** Position in the router's event sequence, from 1. */
  long id();

  /** When the change happened, on the router's clock. */
  Instant at();

  /** A stable dotted name for the kind of event, e.g. {@code reservation.offered}. */
  String type();

  /** The agent the event concerns, if any; an agent's own stream is the events naming it. */
  default Optional<String> agentConcerned() {
    return switch (this) {
      case AgentCreated e -> Optional.of(e.agent().id());
      case AgentUpdated e -> Optional.of(e.agent().id());
      case AgentPresenceChanged e -> Optional.of(e.agentId());
      case AgentRemoved e -> Optional.of(e.agentId());
      case ReservationOffered e -> Optional.of(e.reservation().agentId());
      case ReservationAccepted e -> Optional.of(e.agentId());
      case ReservationRejected e -> Optional.of(e.agentId());
      case ReservationTimedOut e -> Optional.of(e.agentId());
      case ReservationCancelled e -> Optional.of(e.agentId());
      case ContactWrapUp e -> Optional.of(e.agentId());
      case ContactCompleted e -> Optional.of(e.agentId());
      case ContactQueued e -> Optional.empty();
      case ContactEscalated e -> Optional.empty();
      case ContactAbandoned e -> Optional.empty();
      case ContactTimedOut e -> Optional.empty();
      case ContactUpdated e -> Optional.empty();
      case ContactCancelled e -> Optional.empty();
      case ContactTransferred e -> Optional.of(e.fromAgentId());
    };
  }

  /** An agent was created. */
  record AgentCreated(long id, Instant at, Agent agent) implements RoutingEvent {
    public String type() {
      return "agent.created";
    }
  }

  /** An agent's attributes or capacity changed. */
  record AgentUpdated(long id, Instant at, Agent agent) implements RoutingEvent {
    public String type() {
      return "agent.updated";
    }
  }

  /** An agent's presence changed (also when the router sets it away after missed offers). */
  record AgentPresenceChanged(long id, Instant at, String agentId, Presence presence)
      implements RoutingEvent {
    public String type() {
      return "agent.presence";
    }
  }

  /** An agent was removed. */
  record AgentRemoved(long id, Instant at, String agentId) implements RoutingEvent {
    public String type() {
      return "agent.removed";
    }
  }

  /** A contact arrived and waits in line. */
  record ContactQueued(long id, Instant at, Contact contact) implements RoutingEvent {
    public String type() {
      return "contact.queued";
    }
  }

  /** An escalation step changed a contact's requirements; empty means any agent. */
  record ContactEscalated(
      long id, Instant at, String contactId, int step, Optional<String> requirements)
      implements RoutingEvent {
    public String type() {
      return "contact.escalated";
    }
  }

  /** A contact was offered to an agent: a reservation was made. */
  record ReservationOffered(long id, Instant at, Reservation reservation) implements RoutingEvent {
    public String type() {
      return "reservation.offered";
    }
  }

  /** The agent (or auto-accept) accepted an offer; the contact is assigned. */
  record ReservationAccepted(
      long id, Instant at, String reservationId, String contactId, String agentId)
      implements RoutingEvent {
    public String type() {
      return "reservation.accepted";
    }
  }

  /** The agent rejected an offer; the contact is back in its place in line. */
  record ReservationRejected(
      long id, Instant at, String reservationId, String contactId, String agentId)
      implements RoutingEvent {
    public String type() {
      return "reservation.rejected";
    }
  }

  /** An offer was not answered in time; the contact is back in its place in line. */
  record ReservationTimedOut(
      long id, Instant at, String reservationId, String contactId, String agentId)
      implements RoutingEvent {
    public String type() {
      return "reservation.timed_out";
    }
  }

  /**
   * The router withdrew an offer: the caller abandoned, or the agent went away, offline or was
   * removed (then the contact is back in its place in line).
   */
  record ReservationCancelled(
      long id, Instant at, String reservationId, String contactId, String agentId, String reason)
      implements RoutingEvent {
    public String type() {
      return "reservation.cancelled";
    }
  }

  /** The agent completed a contact and is in wrap-up until {@code until}. */
  record ContactWrapUp(long id, Instant at, String contactId, String agentId, Instant until)
      implements RoutingEvent {
    public String type() {
      return "contact.wrap_up";
    }
  }

  /** A contact is completed (after wrap-up, if any); the agent's slot is free. */
  record ContactCompleted(long id, Instant at, String contactId, String agentId)
      implements RoutingEvent {
    public String type() {
      return "contact.completed";
    }
  }

  /** The caller left before being assigned. */
  record ContactAbandoned(long id, Instant at, String contactId) implements RoutingEvent {
    public String type() {
      return "contact.abandoned";
    }
  }

  /** The contact waited longer than its maximum wait. */
  record ContactTimedOut(long id, Instant at, String contactId) implements RoutingEvent {
    public String type() {
      return "contact.timed_out";
    }
  }

  /**
   * A waiting contact's priority, attributes or requirements changed (it keeps its arrival time);
   * {@code contact} is the contact after the change.
   */
  record ContactUpdated(long id, Instant at, Contact contact) implements RoutingEvent {
    public String type() {
      return "contact.updated";
    }
  }

  /** A queued or offered contact was cancelled (a supervisor removed it); a pending offer ends. */
  record ContactCancelled(long id, Instant at, String contactId, String reason)
      implements RoutingEvent {
    public String type() {
      return "contact.cancelled";
    }
  }

  /**
   * An assigned contact left agent {@code fromAgentId} (its slot is free, no wrap-up) for task
   * queue {@code toQueue} or agent {@code toAgent}; the offer that follows is its own event.
   */
  record ContactTransferred(
      long id,
      Instant at,
      String contactId,
      String fromAgentId,
      Optional<String> toQueue,
      Optional<String> toAgent)
      implements RoutingEvent {
    public String type() {
      return "contact.transferred";
    }
  }
}
