package io.switchboard.server;

import io.switchboard.client.JsonFields;
import io.switchboard.client.RoutingWire;
import io.switchboard.client.RoutingWire.Agents;
import io.switchboard.client.RoutingWire.Complete;
import io.switchboard.client.RoutingWire.Contacts;
import io.switchboard.client.RoutingWire.CreateAgent;
import io.switchboard.client.RoutingWire.CreateContact;
import io.switchboard.client.RoutingWire.Reservations;
import io.switchboard.client.RoutingWire.SetPresence;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import io.switchboard.routing.Agent;
import io.switchboard.routing.Contact;
import io.switchboard.routing.ListRequest;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingErrorCode;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.RoutingStats;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The routing API under {@code /v1/routing} ({@code docs/api.md}, "Routing"): agents, contacts,
 * reservations, statistics and event streams over one {@link Router}. Each handler reads its
 * request strictly, makes one router call and writes the answer; a {@link RoutingException} it
 * throws becomes the API's {@code {"code", "message"}} with the status {@link #status} gives it
 * ({@link ErrorAnswers}).
 */
final class RoutingApi implements AutoCloseable {

  private final RoutingEventStreams streams = new RoutingEventStreams(this::router);
  private volatile Supplier<Router> source = RoutingApi::starting;
  private volatile Router owned;

  /** Starts serving {@code router}, which this API closes on {@link #close()}. */
  void open(Router router) {
    this.owned = router;
    this.source = () -> router;
  }

  /**
   * Serves whichever router {@code source} gives at each call (the routing leader's, which changes
   * with the leadership and is closed by its owner); {@code source} throws when there is none.
   */
  void follow(Supplier<Router> source) {
    this.source = source;
  }

  Router router() {
    return source.get();
  }

  private static Router starting() {
    throw new QueueException(ErrorCode.UNAVAILABLE, "the server is starting");
  }

  /** The router's statistics, if it is open. */
  Optional<RoutingStats> stats() {
    try {
      return Optional.of(router().stats());
    } catch (RoutingException | QueueException | HttpError none) {
      return Optional.empty();
    }
  }

  /** Ends the event streams (a stopping server does not wait for them). */
  void endStreams() {
    streams.close();
  }

  /**
   * Ends the event streams open now, whose router stopped serving (the leadership moved); clients
   * reconnect with {@code Last-Event-ID} and are served by whoever routes now.
   */
  void endOpenStreams() {
    streams.endOpen();
  }

  /** Ends the event streams, then closes the router this API was opened with. */
  @Override
  public void close() {
    streams.close();
    Router r = owned;
    if (r != null) {
      r.close();
    }
  }

  List<Route> routes() {
    String a = "/v1/routing/agents/{agent}";
    String c = "/v1/routing/contacts/{contact}";
    String r = "/v1/routing/reservations/{reservation}";
    Guard sup = Guard.supervisor();
    Guard self = Guard.agent(call -> Optional.of(call.routeParameter("agent")));
    Guard offered = Guard.agent(this::reservationAgent);
    Guard assigned = Guard.agent(this::contactAgent);
    return List.of(
        api("POST", "/v1/routing/agents", "createAgent", sup, this::createAgent),
        api("GET", "/v1/routing/agents", "listAgents", sup, this::listAgents),
        api("GET", a, "getAgent", self, this::getAgent),
        api("PATCH", a, "updateAgent", sup, this::updateAgent),
        api("DELETE", a, "deleteAgent", sup, this::deleteAgent),
        api("PUT", a + "/presence", "setPresence", self, this::setPresence),
        api("GET", a + "/reservations", "pendingReservations", self, this::pendingReservations),
        stream(a + "/events", "agentEvents", self, call -> streams.agent(call, call.path("agent"))),
        api("POST", "/v1/routing/contacts", "createContact", sup, this::createContact),
        api("GET", "/v1/routing/contacts", "waitingContacts", sup, this::waitingContacts),
        api("GET", c, "getContact", assigned, this::getContact),
        api("POST", c + "/abandon", "abandonContact", sup, this::abandon),
        api("POST", c + "/complete", "completeContact", assigned, this::complete),
        api("GET", r, "getReservation", offered, this::getReservation),
        api("POST", r + "/accept", "acceptReservation", offered, this::accept),
        api("POST", r + "/reject", "rejectReservation", offered, this::reject),
        api("GET", "/v1/routing/stats", "routingStats", sup, this::stats),
        stream("/v1/routing/events", "routingEvents", sup, streams::all));
  }

  private static Route api(
      String method, String path, String operation, Guard guard, Route.Endpoint e) {
    return new Route(method, path, operation, true, e, guard);
  }

  /** Whether {@code route} is an event stream (capped by {@link EventStreamLimits}). */
  static boolean isStream(Route route) {
    return route.operation().equals("agentEvents") || route.operation().equals("routingEvents");
  }

  /** Streams do not hold a stop back: the server ends them when it stops. */
  private static Route stream(String path, String operation, Guard guard, Route.Endpoint e) {
    return new Route("GET", path, operation, false, e, guard);
  }

  /**
   * The agent the path's reservation is offered to; empty when this server cannot tell (no such
   * reservation, which the handler answers 404, or no router here: a follower forwards the call to
   * the routing leader, which checks again).
   */
  private Optional<String> reservationAgent(Call call) {
    try {
      return Optional.of(router().reservation(call.routeParameter("reservation")).agentId());
    } catch (RuntimeException unknown) {
      return Optional.empty();
    }
  }

  /** The agent the path's contact is offered or assigned to; empty as {@link #reservationAgent}. */
  private Optional<String> contactAgent(Call call) {
    try {
      return router().contact(call.routeParameter("contact")).agentId().or(() -> Optional.of(""));
    } catch (RuntimeException unknown) {
      return Optional.empty();
    }
  }

  /**
   * Bad input is 400, unknown ids 404, a state that forbids the call (an expired offer, an id
   * taken) 409, a closed router 503.
   */
  static int status(RoutingErrorCode code) {
    return switch (code) {
      case INVALID_ARGUMENT, INVALID_SELECTOR -> 400;
      case AGENT_NOT_FOUND, CONTACT_NOT_FOUND, RESERVATION_NOT_FOUND -> 404;
      case AGENT_ALREADY_EXISTS, CONTACT_ALREADY_EXISTS, RESERVATION_EXPIRED, INVALID_STATE -> 409;
      case UNAVAILABLE -> 503;
    };
  }

  // ---- agents ------------------------------------------------------------------------------

  private void createAgent(Call c) {
    c.queryOnly();
    Agent agent = router().createAgent(c.body(CreateAgent.class).toNewAgent());
    c.json(201, RoutingWire.agent(agent));
  }

  private void listAgents(Call c) {
    c.queryOnly("selector", "limit", "cursor");
    c.noBody();
    ListRequest page = page(c);
    String selector = c.query("selector").map(c::selector).orElse(null);
    c.json(Agents.of(router().agents(selector, page)));
  }

  /**
   * The page a list call asks for: {@code limit} (1..1000, default 100) entries after {@code
   * cursor} ({@code docs/routing.md}, "Lists come in pages").
   */
  private static ListRequest page(Call c) {
    ListRequest page = ListRequest.first(c.queryInt("limit").orElse(ListRequest.DEFAULT_LIMIT));
    Optional<String> cursor = c.query("cursor");
    return cursor.isPresent() ? page.after(cursor.get()) : page;
  }

  private void getAgent(Call c) {
    c.queryOnly();
    c.noBody();
    c.json(RoutingWire.agent(router().agent(c.path("agent"))));
  }

  /** Replaces the attributes, the capacity, or both; at least one must be given. */
  private void updateAgent(Call c) {
    c.queryOnly();
    String id = c.path("agent");
    JsonFields f = c.body();
    boolean hasAttributes = f.has("attributes");
    boolean hasCapacity = f.has("capacity");
    Map<String, Object> attributes = RoutingWire.attributes(f, "attributes");
    Map<String, Integer> capacity = RoutingWire.capacity(f, "capacity");
    f.finish();
    if (!hasAttributes && !hasCapacity) {
      throw new HttpError(
          400, "INVALID_ARGUMENT", "give 'attributes', 'capacity' or both to update agent " + id);
    }
    Router r = router();
    r.agent(id);
    Agent agent = hasAttributes ? r.updateAttributes(id, attributes) : r.agent(id);
    if (hasCapacity) {
      agent = r.updateCapacity(id, capacity);
    }
    c.json(RoutingWire.agent(agent));
  }

  private void deleteAgent(Call c) {
    c.queryOnly();
    c.noBody();
    router().removeAgent(c.path("agent"));
    c.noContent();
  }

  private void setPresence(Call c) {
    c.queryOnly();
    SetPresence body = c.body(SetPresence.class);
    if (body.presence() == null) {
      throw new HttpError(
          400, "INVALID_ARGUMENT", "field 'presence' is required: available, away or offline");
    }
    c.json(RoutingWire.agent(router().presence(c.path("agent"), body.toPresence())));
  }

  private void pendingReservations(Call c) {
    c.queryOnly("limit", "cursor");
    c.noBody();
    c.json(Reservations.of(router().pendingReservations(c.path("agent"), page(c))));
  }

  // ---- contacts ----------------------------------------------------------------------------

  private void createContact(Call c) {
    c.queryOnly();
    Contact contact = router().createContact(c.body(CreateContact.class).toNewContact());
    c.json(201, RoutingWire.contact(contact));
  }

  private void waitingContacts(Call c) {
    c.queryOnly("limit", "cursor");
    c.noBody();
    c.json(Contacts.of(router().waiting(page(c))));
  }

  private void getContact(Call c) {
    c.queryOnly();
    c.noBody();
    c.json(RoutingWire.contact(router().contact(c.path("contact"))));
  }

  private void abandon(Call c) {
    c.queryOnly();
    c.noBody();
    c.json(RoutingWire.contact(router().abandon(c.path("contact"))));
  }

  private void complete(Call c) {
    c.queryOnly();
    Optional<Duration> wrapUp = c.body(Complete.class).wrapUp();
    String id = c.path("contact");
    Contact done = wrapUp.isPresent() ? router().complete(id, wrapUp.get()) : router().complete(id);
    c.json(RoutingWire.contact(done));
  }

  // ---- reservations ------------------------------------------------------------------------

  private void getReservation(Call c) {
    c.queryOnly();
    c.noBody();
    c.json(RoutingWire.reservation(router().reservation(c.path("reservation"))));
  }

  private void accept(Call c) {
    c.queryOnly();
    c.noBody();
    c.json(RoutingWire.contact(router().accept(c.path("reservation"))));
  }

  private void reject(Call c) {
    c.queryOnly();
    c.noBody();
    c.json(RoutingWire.contact(router().reject(c.path("reservation"))));
  }

  // ---- statistics --------------------------------------------------------------------------

  private void stats(Call c) {
    c.queryOnly();
    c.noBody();
    c.json(RoutingWire.stats(router().stats()));
  }
}
