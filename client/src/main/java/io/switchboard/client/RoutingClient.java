package io.switchboard.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.client.wire.RoutingWire;
import io.switchboard.client.wire.StatisticsWire;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.routing.Agent;
import io.switchboard.routing.Contact;
import io.switchboard.routing.ContactUpdate;
import io.switchboard.routing.ListPage;
import io.switchboard.routing.ListRequest;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Presence;
import io.switchboard.routing.Reservation;
import io.switchboard.routing.RoutingStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The routing API of a Switchboard server ({@code /v1/routing}), from {@link
 * SwitchboardClient#routing()}. Methods mirror {@code io.switchboard.routing.Router} and return its
 * snapshot types. Errors are {@link SwitchboardException}s; {@link
 * SwitchboardException#routingCode()} gives the router's error code ({@code AGENT_NOT_FOUND},
 * {@code RESERVATION_EXPIRED}, ...).
 *
 * <pre>{@code
 * RoutingClient routing = client.routing();
 * routing.createAgent(NewAgent.builder("chad").attribute("languages", List.of("es"))
 *     .capacity("voice", 1).presence(Presence.available()).build());
 * Contact c = routing.createContact(NewContact.builder("call-1", "voice")
 *     .requirements("languages HAS 'es'").build());
 * routing.accept(c.reservationId().orElseThrow());
 * }</pre>
 */
public final class RoutingClient {

  private final String base;
  private final String agentsPath;
  private final String contactsPath;
  private final String reservationsPath;

  private final SwitchboardClient client;

  RoutingClient(SwitchboardClient client) {
    this(client, "/v1/routing");
  }

  /** The routes under {@code base}: {@code /v1/routing}, or a workspace's. */
  RoutingClient(SwitchboardClient client, String base) {
    this.client = client;
    this.base = base;
    this.agentsPath = base + "/agents";
    this.contactsPath = base + "/contacts";
    this.reservationsPath = base + "/reservations";
  }

  // ---- agents ------------------------------------------------------------------------------

  public Agent createAgent(NewAgent agent) {
    return RoutingWire.agent(client.call("POST", agentsPath, RoutingWire.CreateAgent.of(agent)));
  }

  /** Creates an agent in the workspace's activity {@code activity} (null: its default one). */
  public Agent createAgent(NewAgent agent, String activity) {
    return RoutingWire.agent(
        client.call("POST", agentsPath, RoutingWire.CreateAgent.in(agent, activity)));
  }

  /**
   * Moves an agent to an activity of the workspace ({@link SwitchboardClient#workspace}); not on
   * {@code /v1/routing}, whose agents have a {@link #presence}.
   */
  public Agent activity(String agentId, String activity) {
    var body = new RoutingWire.SetActivity(activity);
    return RoutingWire.agent(client.call("PUT", agentPath(agentId) + "/activity", body));
  }

  public Agent agent(String agentId) {
    return RoutingWire.agent(client.call("GET", agentPath(agentId), null));
  }

  /** All agents, by id (page after page of {@link #agents(String, ListRequest)}). */
  public List<Agent> agents() {
    return all(page -> agents(null, page));
  }

  /** The agents whose attributes match {@code selector}, by id (all pages). */
  public List<Agent> agents(String selector) {
    Objects.requireNonNull(selector, "selector");
    return all(page -> agents(selector, page));
  }

  /** One page of the agents matching {@code selector} (null: all), by id. */
  public ListPage<Agent> agents(@Nullable String selector, ListRequest page) {
    String path = agentsPath + query(page);
    if (selector != null) {
      path += "&selector=" + Paths.encode(selector);
    }
    var answer = client.call("GET", path, null, RoutingWire.Agents.class);
    return new ListPage<>(answer.toAgents(), Optional.ofNullable(answer.nextCursor()));
  }

  private static String query(ListRequest page) {
    return "?limit="
        + page.limit()
        + page.cursor().map(c -> "&cursor=" + Paths.encode(c)).orElse("");
  }

  /** Every entry of a paged list: the pages of the largest size, cursor after cursor. */
  private static <T> List<T> all(Function<ListRequest, ListPage<T>> list) {
    ListRequest request = ListRequest.first(ListRequest.MAX_LIMIT);
    ListPage<T> page = list.apply(request);
    if (page.nextCursor().isEmpty()) {
      return page.items();
    }
    List<T> all = new ArrayList<>(page.items());
    while (page.nextCursor().isPresent()) {
      page = list.apply(request.after(page.nextCursor().get()));
      all.addAll(page.items());
    }
    return List.copyOf(all);
  }

  public Agent updateAttributes(String agentId, Map<String, ?> attributes) {
    ObjectNode body = WireFormat.object();
    body.set("attributes", RoutingWire.attributes(Map.copyOf(attributes)));
    return RoutingWire.agent(client.call("PATCH", agentPath(agentId), body));
  }

  public Agent updateCapacity(String agentId, Map<String, Integer> capacity) {
    ObjectNode body = WireFormat.object();
    ObjectNode c = body.putObject("capacity");
    capacity.forEach(c::put);
    return RoutingWire.agent(client.call("PATCH", agentPath(agentId), body));
  }

  public Agent presence(String agentId, Presence presence) {
    var body = RoutingWire.SetPresence.of(presence);
    return RoutingWire.agent(client.call("PUT", agentPath(agentId) + "/presence", body));
  }

  public void removeAgent(String agentId) {
    client.call("DELETE", agentPath(agentId), null);
  }

  /** An agent's pending offers, oldest first. */
  public List<Reservation> pendingReservations(String agentId) {
    return all(page -> pendingReservations(agentId, page));
  }

  /** One page of an agent's pending offers, oldest first. */
  public ListPage<Reservation> pendingReservations(String agentId, ListRequest page) {
    String path = agentPath(agentId) + "/reservations" + query(page);
    var answer = client.call("GET", path, null, RoutingWire.Reservations.class);
    return new ListPage<>(answer.toReservations(), Optional.ofNullable(answer.nextCursor()));
  }

  // ---- contacts ----------------------------------------------------------------------------

  public Contact createContact(NewContact contact) {
    return RoutingWire.contact(
        client.call("POST", contactsPath, RoutingWire.CreateContact.of(contact)));
  }

  /** Queues a contact through the workspace's task queue {@code queue}. */
  public Contact createContact(NewContact contact, String queue) {
    var body = RoutingWire.CreateContact.of(contact).through(queue);
    return RoutingWire.contact(client.call("POST", contactsPath, body));
  }

  /**
   * Queues a contact routed by the workspace's workflow {@code workflow}: its attributes choose a
   * filter, and it waits in the filter's targets in turn (give no requirements or escalations).
   */
  public Contact createContactByWorkflow(NewContact contact, String workflow) {
    var body = RoutingWire.CreateContact.of(contact).by(workflow);
    return RoutingWire.contact(client.call("POST", contactsPath, body));
  }

  public Contact contact(String contactId) {
    return RoutingWire.contact(client.call("GET", contactPath(contactId), null));
  }

  /** The contacts waiting in line now (all pages; by group, then order of service). */
  public List<Contact> waiting() {
    return all(this::waiting);
  }

  /** One page of the contacts waiting in line now. */
  public ListPage<Contact> waiting(ListRequest page) {
    var answer = client.call("GET", contactsPath + query(page), null, RoutingWire.Contacts.class);
    return new ListPage<>(answer.toContacts(), Optional.ofNullable(answer.nextCursor()));
  }

  public Contact abandon(String contactId) {
    return RoutingWire.contact(client.call("POST", contactPath(contactId) + "/abandon", null));
  }

  /**
   * Changes a waiting (queued or offered) contact: each part of {@code update} given replaces the
   * contact's ({@code PATCH .../contacts/{id}}); it keeps its arrival time.
   */
  public Contact updateContact(String contactId, ContactUpdate update) {
    var body = RoutingWire.UpdateContact.of(update);
    return RoutingWire.contact(client.call("PATCH", contactPath(contactId), body));
  }

  /** Changes a waiting contact's priority (-1000..1000), keeping its arrival time. */
  public Contact priority(String contactId, int priority) {
    return updateContact(contactId, ContactUpdate.none().withPriority(priority));
  }

  /** Cancels a queued or offered contact; it ends {@code CANCELLED}. */
  public Contact cancel(String contactId, String reason) {
    var body = new RoutingWire.Cancel(reason);
    return RoutingWire.contact(client.call("POST", contactPath(contactId) + "/cancel", body));
  }

  /**
   * Transfers an assigned contact to task queue {@code queue}, with extra {@code requirements}
   * (null: none) besides the queue's worker expression.
   */
  public Contact transferToQueue(String contactId, String queue, String requirements) {
    var body = new RoutingWire.Transfer(queue, null, requirements);
    return RoutingWire.contact(client.call("POST", contactPath(contactId) + "/transfer", body));
  }

  /** Transfers an assigned contact to agent {@code agentId}, which must be able to take it now. */
  public Contact transferToAgent(String contactId, String agentId) {
    var body = new RoutingWire.Transfer(null, agentId, null);
    return RoutingWire.contact(client.call("POST", contactPath(contactId) + "/transfer", body));
  }

  /** Completes with the channel's configured wrap-up. */
  public Contact complete(String contactId) {
    return RoutingWire.contact(client.call("POST", contactPath(contactId) + "/complete", null));
  }

  /** Completes with this wrap-up, in whole seconds. */
  public Contact complete(String contactId, Duration wrapUp) {
    var body = new RoutingWire.Complete(WireFormat.wholeSeconds("wrapUp", wrapUp));
    return RoutingWire.contact(client.call("POST", contactPath(contactId) + "/complete", body));
  }

  // ---- reservations ------------------------------------------------------------------------

  public Reservation reservation(String reservationId) {
    return RoutingWire.reservation(client.call("GET", reservationPath(reservationId), null));
  }

  public Contact accept(String reservationId) {
    return RoutingWire.contact(
        client.call("POST", reservationPath(reservationId) + "/accept", null));
  }

  public Contact reject(String reservationId) {
    return RoutingWire.contact(
        client.call("POST", reservationPath(reservationId) + "/reject", null));
  }

  public RoutingStats stats() {
    return RoutingWire.stats(client.call("GET", base + "/stats", null));
  }

  /**
   * The lasting statistics: the 15-minute intervals that start in the query's range, for the
   * workspace, a task queue or an agent, their sum and the cumulative figures ({@code
   * docs/routing.md}, "Statistics that last").
   */
  public io.switchboard.routing.StatisticsReport statistics(
      io.switchboard.routing.StatisticsQuery query) {
    String path =
        base
            + "/statistics?from="
            + Paths.encode(query.from().toString())
            + "&to="
            + Paths.encode(query.to().toString())
            + query.queue().map(q -> "&queue=" + Paths.encode(q)).orElse("")
            + query.agent().map(a -> "&agent=" + Paths.encode(a)).orElse("");
    return client.call("GET", path, null, StatisticsWire.Report.class).toReport();
  }

  private String agentPath(String id) {
    return agentsPath + "/" + Paths.encode(id);
  }

  private String contactPath(String id) {
    return contactsPath + "/" + Paths.encode(id);
  }

  private String reservationPath(String id) {
    return reservationsPath + "/" + Paths.encode(id);
  }
}
