package io.switchboard.server.api.routing;

import io.switchboard.client.wire.JsonFields;
import io.switchboard.client.wire.RoutingWire;
import io.switchboard.client.wire.RoutingWire.AgentView;
import io.switchboard.client.wire.RoutingWire.Agents;
import io.switchboard.client.wire.RoutingWire.Cancel;
import io.switchboard.client.wire.RoutingWire.Complete;
import io.switchboard.client.wire.RoutingWire.ContactView;
import io.switchboard.client.wire.RoutingWire.Contacts;
import io.switchboard.client.wire.RoutingWire.CreateAgent;
import io.switchboard.client.wire.RoutingWire.CreateContact;
import io.switchboard.client.wire.RoutingWire.ReservationView;
import io.switchboard.client.wire.RoutingWire.Reservations;
import io.switchboard.client.wire.RoutingWire.SetActivity;
import io.switchboard.client.wire.RoutingWire.SetPresence;
import io.switchboard.client.wire.RoutingWire.StatsView;
import io.switchboard.client.wire.RoutingWire.Transfer;
import io.switchboard.client.wire.RoutingWire.UpdateContact;
import io.switchboard.client.wire.StatisticsWire;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import io.switchboard.routing.Agent;
import io.switchboard.routing.Contact;
import io.switchboard.routing.ContactUpdate;
import io.switchboard.routing.ListRequest;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.RoutingStats;
import io.switchboard.routing.StatisticsQuery;
import io.switchboard.routing.Workspace;
import io.switchboard.routing.Workspaces;
import io.switchboard.server.auth.Access;
import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.Audit;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.http.Call;
import io.switchboard.server.http.ErrorAnswers;
import io.switchboard.server.http.EventStreamLimits;
import io.switchboard.server.http.Guard;
import io.switchboard.server.http.HttpError;
import io.switchboard.server.http.Route;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The routing API under {@code /v1/routing} ({@code docs/api.md}, "Routing"): agents, contacts,
 * reservations, statistics and event streams over one {@link Router}. Each handler reads its
 * request strictly, makes one router call and writes the answer; a {@link RoutingException} it
 * throws becomes the API's {@code {"code", "message"}} with the status {@link #status} gives it
 * ({@link ErrorAnswers}).
 */
public final class RoutingApi implements AutoCloseable {

  private final RoutingEventStreams streams = new RoutingEventStreams();
  private volatile Supplier<Router> source = RoutingApi::starting;
  private volatile @Nullable Router owned;
  private volatile Supplier<Workspaces> registry =
      () -> {
        throw new QueueException(ErrorCode.UNAVAILABLE, "the server is starting");
      };

  /** Starts serving {@code router}, which this API closes on {@link #close()}. */
  public void open(Router router) {
    this.owned = router;
    this.source = () -> router;
  }

  /**
   * Serves whichever router {@code source} gives at each call (the routing leader's, which changes
   * with the leadership and is closed by its owner); {@code source} throws when there is none.
   */
  public void follow(Supplier<Router> source) {
    this.source = source;
  }

  Router router() {
    return source.get();
  }

  /**
   * Feeds {@code feed} the routing events of {@code workspace} ({@link Workspaces#DEFAULT}: the
   * router {@code /v1/routing} serves), only those concerning {@code agent} if one is given (which
   * must exist), as the HTTP event streams do ({@link RoutingEventStreams}): the gRPC API's {@code
   * Routing.Events}. Returns when the stream ends.
   */
  public void events(
      String workspace,
      Optional<String> agent,
      long after,
      boolean fromNow,
      RoutingEventStreams.Feed feed)
      throws java.io.IOException {
    Supplier<Router> in =
        workspace.equals(Workspaces.DEFAULT)
            ? this::router
            : () -> workspaces().get(workspace).router();
    if (agent.isPresent()) {
      in.get().agent(agent.get());
    }
    streams.feed(
        in, e -> agent.isEmpty() || e.agentConcerned().equals(agent), after, fromNow, feed);
  }

  /** Serves workspaces from {@code registry}, which its owner closes. */
  public void workspaces(Supplier<Workspaces> registry) {
    this.registry = registry;
  }

  public Workspaces workspaces() {
    return registry.get();
  }

  private static Router starting() {
    throw new QueueException(ErrorCode.UNAVAILABLE, "the server is starting");
  }

  /** The router's statistics, if it is open. */
  public Optional<RoutingStats> stats() {
    try {
      return Optional.of(router().stats());
    } catch (RoutingException | QueueException | HttpError none) {
      return Optional.empty();
    }
  }

  /**
   * The statistics of the workspaces {@code /metrics} shows, by name: {@code default}, the {@code
   * named} ones that exist and the {@code top} busiest ({@link Workspaces#busiest}). Only the
   * default workspace's while the workspaces are not served here (a server starting); none while no
   * router is open here.
   */
  public Map<String, RoutingStats> workspaceStats(int top, Set<String> named) {
    Workspaces all;
    try {
      all = workspaces();
    } catch (RoutingException | QueueException | HttpError none) {
      return stats().map(s -> Map.of(Workspaces.DEFAULT, s)).orElse(Map.of());
    }
    Set<String> shown = new LinkedHashSet<>();
    shown.add(Workspaces.DEFAULT);
    shown.addAll(named);
    shown.addAll(all.busiest(top));
    Map<String, RoutingStats> out = new LinkedHashMap<>();
    for (String name : shown) {
      try {
        out.put(name, all.get(name).router().stats());
      } catch (RoutingException | QueueException | HttpError absent) {
        // not created, deleted meanwhile, or its router is not served here
      }
    }
    return out;
  }

  /** Ends the event streams (a stopping server does not wait for them). */
  public void endStreams() {
    streams.close();
  }

  /**
   * Ends the event streams open now, whose router stopped serving (the leadership moved); clients
   * reconnect with {@code Last-Event-ID} and are served by whoever routes now.
   */
  public void endOpenStreams() {
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

  /** The routes of the default workspace's router, under {@code /v1/routing}. */
  public List<Route> routes() {
    Function<Call, Router> in = c -> router();
    Function<Call, Workspace> ws = c -> workspaces().get(Workspaces.DEFAULT);
    Guards g = guards(in, c -> Workspaces.DEFAULT);
    return List.of(
        Route.declare("POST", "/v1/routing/agents", "createAgent")
            .guard(g.sup())
            .body(CreateAgent.class)
            .to(h(in, (call, router) -> createAgent(call, router, ws, false))),
        Route.declare("GET", "/v1/routing/agents", "listAgents")
            .guard(g.sup())
            .query("selector", "limit", "cursor")
            .noBody()
            .to(h(in, this::listAgents)),
        Route.declare("GET", "/v1/routing/agents/{agent}", "getAgent")
            .guard(g.self())
            .noBody()
            .to(h(in, this::getAgent)),
        Route.declare("PATCH", "/v1/routing/agents/{agent}", "updateAgent")
            .guard(g.sup())
            .body(JsonFields.class)
            .to(h(in, this::updateAgent)),
        Route.declare("DELETE", "/v1/routing/agents/{agent}", "deleteAgent")
            .guard(g.sup())
            .noBody()
            .to(h(in, this::deleteAgent)),
        Route.declare("PUT", "/v1/routing/agents/{agent}/presence", "setPresence")
            .guard(g.self())
            .body(SetPresence.class)
            .to(h(in, this::setPresence)),
        Route.declare("GET", "/v1/routing/agents/{agent}/reservations", "pendingReservations")
            .guard(g.self())
            .query("limit", "cursor")
            .noBody()
            .to(h(in, this::pendingReservations)),
        Route.declare("GET", "/v1/routing/agents/{agent}/events", "agentEvents")
            .guard(g.self())
            .query("after", "from")
            .discardsBody()
            .withoutEngine() // a stream does not hold a stop back: the server ends it
            .to(call -> streams.agent(call, () -> in.apply(call), call.path("agent"))),
        Route.declare("POST", "/v1/routing/contacts", "createContact")
            .guard(g.sup())
            .body(CreateContact.class)
            .to(call -> createContact(call, ws.apply(call))),
        Route.declare("GET", "/v1/routing/contacts", "waitingContacts")
            .guard(g.sup())
            .query("limit", "cursor")
            .noBody()
            .to(h(in, this::waitingContacts)),
        Route.declare("GET", "/v1/routing/contacts/{contact}", "getContact")
            .guard(g.assigned())
            .noBody()
            .to(h(in, this::getContact)),
        Route.declare("PATCH", "/v1/routing/contacts/{contact}", "updateContact")
            .guard(g.sup())
            .body(UpdateContact.class)
            .to(call -> updateContact(call, ws.apply(call))),
        Route.declare("POST", "/v1/routing/contacts/{contact}/abandon", "abandonContact")
            .guard(g.sup())
            .noBody()
            .to(h(in, this::abandon)),
        Route.declare("POST", "/v1/routing/contacts/{contact}/cancel", "cancelContact")
            .guard(g.sup())
            .body(Cancel.class)
            .to(h(in, this::cancel)),
        Route.declare("POST", "/v1/routing/contacts/{contact}/transfer", "transferContact")
            .guard(g.sup())
            .body(Transfer.class)
            .to(call -> transfer(call, ws.apply(call))),
        Route.declare("POST", "/v1/routing/contacts/{contact}/complete", "completeContact")
            .guard(g.assigned())
            .body(Complete.class)
            .to(h(in, this::complete)),
        Route.declare("GET", "/v1/routing/reservations/{reservation}", "getReservation")
            .guard(g.offered())
            .noBody()
            .to(h(in, this::getReservation)),
        Route.declare("POST", "/v1/routing/reservations/{reservation}/accept", "acceptReservation")
            .guard(g.offered())
            .noBody()
            .to(h(in, this::accept)),
        Route.declare("POST", "/v1/routing/reservations/{reservation}/reject", "rejectReservation")
            .guard(g.offered())
            .noBody()
            .to(h(in, this::reject)),
        Route.declare("GET", "/v1/routing/stats", "routingStats")
            .guard(g.sup())
            .noBody()
            .to(h(in, this::stats)),
        Route.declare("GET", "/v1/routing/statistics", "routingStatistics")
            .guard(g.sup())
            .query("from", "to", "queue", "agent")
            .noBody()
            .to(h(in, this::statistics)),
        Route.declare("GET", "/v1/routing/events", "routingEvents")
            .guard(g.sup())
            .query("after", "from")
            .discardsBody()
            .withoutEngine() // a stream does not hold a stop back: the server ends it
            .to(call -> streams.all(call, () -> in.apply(call))));
  }

  /**
   * The same routes within a workspace, under {@code /v1/workspaces/{workspace}}: agents, contacts,
   * reservations, statistics and event streams of that workspace's router; an agent's activity
   * instead of its presence.
   */
  List<Route> workspaceRoutes() {
    Function<Call, Workspace> ws = c -> workspaces().get(c.routeParameter("workspace"));
    Function<Call, Router> in = c -> ws.apply(c).router();
    Guards g = guards(in, c -> c.routeParameter("workspace"));
    return List.of(
        Route.declare("POST", "/v1/workspaces/{workspace}/agents", "wsCreateAgent")
            .guard(g.sup())
            .body(CreateAgent.class)
            .to(h(in, (call, router) -> createAgent(call, router, ws, true))),
        Route.declare("GET", "/v1/workspaces/{workspace}/agents", "wsListAgents")
            .guard(g.sup())
            .query("selector", "limit", "cursor")
            .noBody()
            .to(h(in, this::listAgents)),
        Route.declare("GET", "/v1/workspaces/{workspace}/agents/{agent}", "wsGetAgent")
            .guard(g.self())
            .noBody()
            .to(h(in, this::getAgent)),
        Route.declare("PATCH", "/v1/workspaces/{workspace}/agents/{agent}", "wsUpdateAgent")
            .guard(g.sup())
            .body(JsonFields.class)
            .to(h(in, this::updateAgent)),
        Route.declare("DELETE", "/v1/workspaces/{workspace}/agents/{agent}", "wsDeleteAgent")
            .guard(g.sup())
            .noBody()
            .to(h(in, this::deleteAgent)),
        Route.declare("PUT", "/v1/workspaces/{workspace}/agents/{agent}/activity", "wsSetActivity")
            .guard(g.self())
            .body(SetActivity.class)
            .to(call -> setActivity(call, ws.apply(call))),
        Route.declare(
                "GET",
                "/v1/workspaces/{workspace}/agents/{agent}/reservations",
                "wsPendingReservations")
            .guard(g.self())
            .query("limit", "cursor")
            .noBody()
            .to(h(in, this::pendingReservations)),
        Route.declare("GET", "/v1/workspaces/{workspace}/agents/{agent}/events", "wsAgentEvents")
            .guard(g.self())
            .query("after", "from")
            .discardsBody()
            .withoutEngine() // a stream does not hold a stop back: the server ends it
            .to(call -> streams.agent(call, () -> in.apply(call), call.path("agent"))),
        Route.declare("POST", "/v1/workspaces/{workspace}/contacts", "wsCreateContact")
            .guard(g.sup())
            .body(CreateContact.class)
            .to(call -> createContact(call, ws.apply(call))),
        Route.declare("GET", "/v1/workspaces/{workspace}/contacts", "wsWaitingContacts")
            .guard(g.sup())
            .query("limit", "cursor")
            .noBody()
            .to(h(in, this::waitingContacts)),
        Route.declare("GET", "/v1/workspaces/{workspace}/contacts/{contact}", "wsGetContact")
            .guard(g.assigned())
            .noBody()
            .to(h(in, this::getContact)),
        Route.declare("PATCH", "/v1/workspaces/{workspace}/contacts/{contact}", "wsUpdateContact")
            .guard(g.sup())
            .body(UpdateContact.class)
            .to(call -> updateContact(call, ws.apply(call))),
        Route.declare(
                "POST", "/v1/workspaces/{workspace}/contacts/{contact}/abandon", "wsAbandonContact")
            .guard(g.sup())
            .noBody()
            .to(h(in, this::abandon)),
        Route.declare(
                "POST", "/v1/workspaces/{workspace}/contacts/{contact}/cancel", "wsCancelContact")
            .guard(g.sup())
            .body(Cancel.class)
            .to(h(in, this::cancel)),
        Route.declare(
                "POST",
                "/v1/workspaces/{workspace}/contacts/{contact}/transfer",
                "wsTransferContact")
            .guard(g.sup())
            .body(Transfer.class)
            .to(call -> transfer(call, ws.apply(call))),
        Route.declare(
                "POST",
                "/v1/workspaces/{workspace}/contacts/{contact}/complete",
                "wsCompleteContact")
            .guard(g.assigned())
            .body(Complete.class)
            .to(h(in, this::complete)),
        Route.declare(
                "GET", "/v1/workspaces/{workspace}/reservations/{reservation}", "wsGetReservation")
            .guard(g.offered())
            .noBody()
            .to(h(in, this::getReservation)),
        Route.declare(
                "POST",
                "/v1/workspaces/{workspace}/reservations/{reservation}/accept",
                "wsAcceptReservation")
            .guard(g.offered())
            .noBody()
            .to(h(in, this::accept)),
        Route.declare(
                "POST",
                "/v1/workspaces/{workspace}/reservations/{reservation}/reject",
                "wsRejectReservation")
            .guard(g.offered())
            .noBody()
            .to(h(in, this::reject)),
        Route.declare("GET", "/v1/workspaces/{workspace}/stats", "wsRoutingStats")
            .guard(g.sup())
            .noBody()
            .to(h(in, this::stats)),
        Route.declare("GET", "/v1/workspaces/{workspace}/statistics", "wsRoutingStatistics")
            .guard(g.sup())
            .query("from", "to", "queue", "agent")
            .noBody()
            .to(h(in, this::statistics)),
        Route.declare("GET", "/v1/workspaces/{workspace}/events", "wsRoutingEvents")
            .guard(g.sup())
            .query("after", "from")
            .discardsBody()
            .withoutEngine() // a stream does not hold a stop back: the server ends it
            .to(call -> streams.all(call, () -> in.apply(call))));
  }

  /**
   * What the routes of one router need: {@code routing:supervisor} on the workspace; {@code
   * routing:agent} as the path's agent, as the agent the path's reservation is offered to, or as
   * the agent the path's contact is assigned to.
   */
  private record Guards(Guard sup, Guard self, Guard offered, Guard assigned) {}

  private static Guards guards(Function<Call, Router> in, Function<Call, String> space) {
    return new Guards(
        Guard.supervisor(space),
        Guard.agent(space, call -> Optional.of(call.routeParameter("agent"))),
        Guard.agent(space, call -> reservationAgent(call, in, space)),
        Guard.agent(space, call -> contactAgent(call, in, space)));
  }

  /** A handler on the router {@code in} gives for the call. */
  private interface OnRouter {
    void handle(Call call, Router router);
  }

  private static Route.Endpoint h(Function<Call, Router> in, OnRouter handler) {
    return call -> handler.handle(call, in.apply(call));
  }

  /** Whether {@code route} is an event stream (capped by {@link EventStreamLimits}). */
  public static boolean isStream(Route route) {
    return switch (route.operation()) {
      case "agentEvents", "routingEvents", "wsAgentEvents", "wsRoutingEvents" -> true;
      default -> false;
    };
  }

  /**
   * The agent the path's reservation is offered to; empty when this server cannot tell (no such
   * reservation, which the handler answers 404, or no router here: a follower forwards the call to
   * the routing leader, which checks again). To an agent's key, another agent's reservation does
   * not exist ({@link #hiddenFromAgentKey}).
   */
  private static Optional<String> reservationAgent(
      Call call, Function<Call, Router> in, Function<Call, String> workspace) {
    String id = call.routeParameter("reservation");
    String owner;
    try {
      owner = in.apply(call).reservation(id).agentId();
    } catch (RuntimeException unknown) {
      return Optional.empty();
    }
    if (hiddenFromAgentKey(call, workspace.apply(call), owner, "reservation " + id)) {
      throw RoutingException.reservationNotFound(id);
    }
    return Optional.of(owner);
  }

  /**
   * The agent the path's contact is offered or assigned to ({@code ""} while it waits); empty as
   * {@link #reservationAgent}. To an agent's key, a contact not offered or assigned to its agent
   * does not exist ({@link #hiddenFromAgentKey}).
   */
  private static Optional<String> contactAgent(
      Call call, Function<Call, Router> in, Function<Call, String> workspace) {
    String id = call.routeParameter("contact");
    String owner;
    try {
      owner = in.apply(call).contact(id).agentId().orElse("");
    } catch (RuntimeException unknown) {
      return Optional.empty();
    }
    if (hiddenFromAgentKey(call, workspace.apply(call), owner, "contact " + id)) {
      throw RoutingException.contactNotFound(id);
    }
    return Optional.of(owner);
  }

  /**
   * Whether the path's contact or reservation, which {@code owner} holds ({@code ""}: no agent
   * yet), is to be hidden from the call's key: a key with {@code routing:agent} in {@code
   * workspace} that may not act as {@code owner} (another agent's key). Such a key is answered as
   * if the id did not exist (404, the router's own code and text), exactly as for one that does
   * not, so that it learns neither whether the id exists nor whose it is; the attempt is one audit
   * line (status 404) naming the owner. A supervisor's key is not hidden from; a key without {@code
   * routing:agent} is refused 403 by the guard, with the same text whatever the path names.
   */
  private static boolean hiddenFromAgentKey(
      Call call, String workspace, String owner, String what) {
    Optional<Principal> principal = call.principal();
    if (principal.isEmpty()) {
      return false; // keyless
    }
    Principal p = principal.get();
    Access asOwner = new Access(Action.ROUTING_AGENT, Optional.of(workspace), Optional.of(owner));
    boolean actsAsAnAgent =
        p.may(new Access(Action.ROUTING_AGENT, Optional.of(workspace), Optional.empty()));
    if (!actsAsAnAgent || p.may(asOwner)) {
      return false;
    }
    Audit.refused(
        p.keyId(),
        asOwner,
        404,
        call.requestId(),
        "access key "
            + p.describe()
            + " asked for "
            + what
            + ", which is "
            + (owner.isEmpty() ? "offered to no agent" : "agent '" + owner + "''s")
            + "; answered as not found");
    return true;
  }

  // ---- agents ------------------------------------------------------------------------------

  /**
   * Creates an agent: in {@code activity} if the body names one (in a workspace other than {@code
   * default} always: its default activity when none is named, and {@code presence} is refused);
   * otherwise with the body's {@code presence}, as before workspaces.
   */
  private static void createAgent(
      Call c, Router router, Function<Call, Workspace> ws, boolean scoped) {
    CreateAgent body = c.body(CreateAgent.class);
    Workspace w = ws.apply(c);
    boolean custom = !w.name().equals(Workspaces.DEFAULT);
    if (body.activity() != null && body.presence() != null) {
      throw new HttpError(
          400,
          "INVALID_ARGUMENT",
          "give 'activity' or 'presence', not both, for agent " + body.id());
    }
    if (custom && body.presence() != null) {
      throw new HttpError(
          400,
          "INVALID_ARGUMENT",
          "workspace '"
              + w.name()
              + "' sets agents' presence through its activities: give 'activity' (one of "
              + String.join(", ", w.definition().activities().stream().map(a -> a.name()).toList())
              + ") instead of 'presence'");
    }
    Agent agent =
        custom || body.activity() != null
            ? w.createAgent(body.toNewAgent(), Optional.ofNullable(body.activity()))
            : router.createAgent(body.toNewAgent());
    c.json(201, AgentView.of(agent));
  }

  private static void setActivity(Call c, Workspace w) {
    Optional<String> activity = Optional.ofNullable(c.body(SetActivity.class).activity());
    if (activity.isEmpty()) {
      throw new HttpError(
          400,
          "INVALID_ARGUMENT",
          "field 'activity' is required: one of "
              + String.join(
                  ", ", w.definition().activities().stream().map(a -> a.name()).toList()));
    }
    c.json(AgentView.of(w.activity(c.path("agent"), activity.get())));
  }

  private void listAgents(Call c, Router router) {
    ListRequest page = page(c);
    String selector = c.query("selector").map(c::selector).orElse(null);
    c.json(Agents.of(router.agents(selector, page)));
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

  private void getAgent(Call c, Router router) {
    c.json(AgentView.of(router.agent(c.path("agent"))));
  }

  /** Replaces the attributes, the capacity, or both; at least one must be given. */
  private void updateAgent(Call c, Router router) {
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
    Router r = router;
    r.agent(id);
    Agent agent = hasAttributes ? r.updateAttributes(id, attributes) : r.agent(id);
    if (hasCapacity) {
      agent = r.updateCapacity(id, capacity);
    }
    c.json(AgentView.of(agent));
  }

  private void deleteAgent(Call c, Router router) {
    router.removeAgent(c.path("agent"));
    c.noContent();
  }

  private void setPresence(Call c, Router router) {
    SetPresence body = c.body(SetPresence.class);
    if (body.presence() == null) {
      throw new HttpError(
          400, "INVALID_ARGUMENT", "field 'presence' is required: available, away or offline");
    }
    c.json(AgentView.of(router.presence(c.path("agent"), body.toPresence())));
  }

  private void pendingReservations(Call c, Router router) {
    c.json(Reservations.of(router.pendingReservations(c.path("agent"), page(c))));
  }

  // ---- contacts ----------------------------------------------------------------------------

  /**
   * Queues a contact, through the body's task {@code queue} or {@code workflow} if it names one.
   */
  private static void createContact(Call c, Workspace w) {
    CreateContact body = c.body(CreateContact.class);
    Contact contact =
        w.createContact(
            body.toNewContact(),
            Optional.ofNullable(body.queue()),
            Optional.ofNullable(body.workflow()));
    c.json(201, ContactView.of(contact));
  }

  private void waitingContacts(Call c, Router router) {
    c.json(Contacts.of(router.waiting(page(c))));
  }

  private void getContact(Call c, Router router) {
    c.json(ContactView.of(router.contact(c.path("contact"))));
  }

  private void abandon(Call c, Router router) {
    c.json(ContactView.of(router.abandon(c.path("contact"))));
  }

  /**
   * Changes a waiting contact: {@code priority}, {@code attributes}, {@code requirements} (empty:
   * any agent), at least one; requirements of a contact routed through a task queue are combined
   * with the queue's worker expression.
   */
  private static void updateContact(Call c, Workspace w) {
    String id = c.path("contact");
    ContactUpdate update = c.body(UpdateContact.class).toUpdate();
    if (update.isEmpty()) {
      throw new HttpError(
          400,
          "INVALID_ARGUMENT",
          "give 'priority', 'attributes', 'requirements' or several to change contact " + id);
    }
    c.json(ContactView.of(w.updateContact(id, update)));
  }

  private void cancel(Call c, Router router) {
    String reason = Optional.ofNullable(c.body(Cancel.class).reason()).orElse("cancelled");
    c.json(ContactView.of(router.cancel(c.path("contact"), reason)));
  }

  /**
   * Transfers an assigned contact: to task {@code queue} (with extra {@code requirements}) or to
   * {@code agent}, exactly one of the two.
   */
  private static void transfer(Call c, Workspace w) {
    String id = c.path("contact");
    Transfer body = c.body(Transfer.class);
    Optional<String> queue = Optional.ofNullable(body.queue());
    Optional<String> agent = Optional.ofNullable(body.agent());
    Optional<String> requirements = Optional.ofNullable(body.requirements());
    if (queue.isPresent() == agent.isPresent()) {
      throw new HttpError(
          400,
          "INVALID_ARGUMENT",
          "give 'queue' or 'agent', exactly one, to transfer contact " + id);
    }
    if (agent.isPresent() && requirements.isPresent()) {
      throw new HttpError(
          400,
          "INVALID_ARGUMENT",
          "'requirements' go with a transfer to a 'queue', not to an 'agent' (contact " + id + ")");
    }
    Contact moved =
        queue.isPresent()
            ? w.transfer(id, queue.get(), requirements)
            : w.router().transferToAgent(id, agent.get());
    c.json(ContactView.of(moved));
  }

  private void complete(Call c, Router router) {
    Optional<Duration> wrapUp = c.body(Complete.class).wrapUp();
    String id = c.path("contact");
    Contact done = wrapUp.isPresent() ? router.complete(id, wrapUp.get()) : router.complete(id);
    c.json(ContactView.of(done));
  }

  // ---- reservations ------------------------------------------------------------------------

  private void getReservation(Call c, Router router) {
    c.json(ReservationView.of(router.reservation(c.path("reservation"))));
  }

  private void accept(Call c, Router router) {
    c.json(ContactView.of(router.accept(c.path("reservation"))));
  }

  private void reject(Call c, Router router) {
    c.json(ContactView.of(router.reject(c.path("reservation"))));
  }

  // ---- statistics --------------------------------------------------------------------------

  private void stats(Call c, Router router) {
    c.json(StatsView.of(router.stats()));
  }

  /**
   * The lasting statistics: {@code from} and {@code to} required, {@code queue} or {@code agent}.
   */
  private void statistics(Call c, Router router) {
    StatisticsQuery query =
        new StatisticsQuery(
            instant(c, "from"), instant(c, "to"), c.query("queue"), c.query("agent"));
    c.json(StatisticsWire.Report.of(router.statistics(query)));
  }

  private static Instant instant(Call c, String name) {
    String text =
        c.query(name)
            .orElseThrow(
                () ->
                    new HttpError(
                        400,
                        "INVALID_ARGUMENT",
                        "query parameter '"
                            + name
                            + "' is required: an ISO-8601 instant such as 2030-01-01T00:00:00Z"));
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw new HttpError(
          400,
          "INVALID_ARGUMENT",
          "query parameter '"
              + name
              + "' must be an ISO-8601 instant such as 2030-01-01T00:00:00Z, got '"
              + text
              + "'");
    }
  }
}
