package io.switchboard.client.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.client.wire.Json.Required;
import io.switchboard.routing.Agent;
import io.switchboard.routing.Contact;
import io.switchboard.routing.ContactState;
import io.switchboard.routing.ContactStats;
import io.switchboard.routing.ContactUpdate;
import io.switchboard.routing.GroupStats;
import io.switchboard.routing.ListPage;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Presence;
import io.switchboard.routing.Reservation;
import io.switchboard.routing.ReservationState;
import io.switchboard.routing.RoutingEvent;
import io.switchboard.routing.RoutingStats;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The JSON of the routing API ({@code /v1/routing}, see {@code docs/api.md}), both directions, for
 * the server and the client. Agent attributes are plain JSON: strings, numbers, booleans and arrays
 * of strings. Durations a caller sets are whole seconds ({@code ...Seconds}); durations the router
 * measures are milliseconds ({@code ...Millis}). Public for the server; not part of the client API.
 */
public final class RoutingWire {

  private RoutingWire() {}

  // ---- attributes --------------------------------------------------------------------------

  /** Agent and contact attributes as a JSON object, names sorted. */
  public static ObjectNode attributes(Map<String, Object> attributes) {
    ObjectNode o = WireFormat.object();
    new TreeMap<>(attributes).forEach((name, value) -> o.set(name, value(value)));
    return o;
  }

  private static JsonNode value(Object value) {
    var f = Json.STRICT.getNodeFactory();
    return switch (value) {
      case String s -> f.textNode(s);
      case Boolean b -> f.booleanNode(b);
      case BigDecimal d -> f.numberNode(d);
      case BigInteger i -> f.numberNode(i);
      case Double d -> f.numberNode(d);
      case Float d -> f.numberNode(d);
      case Number n -> f.numberNode(n.longValue());
      case List<?> list -> {
        ArrayNode a = WireFormat.array();
        list.forEach(item -> a.add(String.valueOf(item)));
        yield a;
      }
      default -> f.textNode(String.valueOf(value));
    };
  }

  /** Reads attributes; the router checks names and sizes. */
  public static Map<String, Object> attributes(JsonFields f, String field) {
    return attributes(f.raw(field).orElse(null), field);
  }

  /** Reads attributes from a field's node (absent or {@code null}: none). */
  public static Map<String, Object> attributes(@Nullable JsonNode node, String field) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (node == null || Json.present(node).isEmpty()) {
      return out;
    }
    if (!node.isObject()) {
      throw invalid(field + " must be an object, got " + JsonFields.typeName(node));
    }
    node.properties()
        .forEach(e -> out.put(e.getKey(), attribute(field + "." + e.getKey(), e.getValue())));
    return out;
  }

  private static Object attribute(String field, JsonNode v) {
    if (v.isTextual()) {
      return v.textValue();
    }
    if (v.isBoolean()) {
      return v.booleanValue();
    }
    if (v.isIntegralNumber() && v.canConvertToLong()) {
      return v.longValue();
    }
    if (v.isNumber()) {
      return v.decimalValue();
    }
    if (v.isArray()) {
      List<String> items = new ArrayList<>(v.size());
      for (JsonNode item : v) {
        if (!item.isTextual()) {
          throw invalid(field + " must be an array of strings, got an item that is " + kind(item));
        }
        items.add(item.textValue());
      }
      return items;
    }
    throw invalid(
        field + " must be a string, a number, a boolean or an array of strings, got " + kind(v));
  }

  private static String kind(JsonNode v) {
    return JsonFields.typeName(v);
  }

  /** Capacity per channel: {@code {"voice": 1, "chat": 3}}. */
  public static Map<String, Integer> capacity(JsonFields f, String field) {
    Map<String, Integer> out = new LinkedHashMap<>();
    Optional<JsonFields> node = f.object(field);
    if (node.isEmpty()) {
      return out;
    }
    JsonNode raw = f.raw(field).orElseThrow();
    raw.fieldNames()
        .forEachRemaining(channel -> out.put(channel, node.get().requiredInt32(channel)));
    return out;
  }

  // ---- presence ----------------------------------------------------------------------------

  /**
   * {@code presence} ({@code available|away|offline}) and, for away, an optional {@code reason};
   * {@code absent} when neither is given.
   */
  private static Presence presence(
      Optional<String> kind, Optional<String> reason, Presence absent) {
    if (kind.isEmpty()) {
      if (reason.isPresent()) {
        throw invalid("field 'reason' needs presence 'away'");
      }
      return absent;
    }
    return switch (WireFormat.enumValue(Presence.Kind.class, "presence", kind.get())) {
      case AVAILABLE -> reasonless(Presence.available(), reason);
      case OFFLINE -> reasonless(Presence.offline(), reason);
      case AWAY -> Presence.away(reason.orElse(""));
    };
  }

  private static Presence reasonless(Presence p, Optional<String> reason) {
    if (reason.isPresent()) {
      throw invalid("field 'reason' is only for presence 'away', got presence '" + p + "'");
    }
    return p;
  }

  // ---- agents, contacts, reservations, statistics, events ---------------------------------

  /** An agent as answers carry it ({@link AgentView}). */
  public static ObjectNode agent(Agent a) {
    return Json.tree(AgentView.of(a));
  }

  /** An agent of an answer, read leniently ({@link AgentView}). */
  public static Agent agent(JsonFields f) {
    return Json.lenient(f.node(), AgentView.class).toAgent();
  }

  /** A contact as answers carry it ({@link ContactView}). */
  public static ObjectNode contact(Contact c) {
    return Json.tree(ContactView.of(c));
  }

  /** A contact of an answer, read leniently ({@link ContactView}). */
  public static Contact contact(JsonFields f) {
    return Json.lenient(f.node(), ContactView.class).toContact();
  }

  /** A reservation as answers carry it ({@link ReservationView}). */
  public static ObjectNode reservation(Reservation r) {
    return Json.tree(ReservationView.of(r));
  }

  /** A reservation of an answer, read leniently ({@link ReservationView}). */
  public static Reservation reservation(JsonFields f) {
    return Json.lenient(f.node(), ReservationView.class).toReservation();
  }

  /** The router's statistics as answers carry them ({@link StatsView}). */
  public static ObjectNode stats(RoutingStats s) {
    return Json.tree(StatsView.of(s));
  }

  /** Statistics of an answer, read leniently ({@link StatsView}). */
  public static RoutingStats stats(JsonFields f) {
    return Json.lenient(f.node(), StatsView.class).toStats();
  }

  /**
   * One event as the {@code data:} of a server-sent event: {@code id}, {@code type}, {@code at},
   * and the fields of the change ({@link EventView}).
   */
  public static ObjectNode event(RoutingEvent e) {
    return Json.tree(EventView.of(e));
  }

  /**
   * An agent in an answer: attributes as {@link #attributes(Map)} writes them, capacity and load
   * per channel (sorted), {@code reason} only for away, instants as ISO-8601 text, the time spent
   * in each activity in milliseconds.
   */
  public record AgentView(
      @Required String id,
      @Nullable JsonNode attributes,
      @Nullable Map<String, Integer> capacity,
      @Nullable Map<String, Integer> load,
      @Nullable String presence,
      @Nullable String reason,
      @Nullable String idleSince,
      boolean inWrapUp,
      int consecutiveMisses,
      @Nullable String activity,
      @Nullable String activitySince,
      @Nullable Map<String, Long> activityTimeMillis) {

    public static AgentView of(Agent a) {
      Map<String, Long> time = new TreeMap<>();
      a.activityTime().forEach((name, d) -> time.put(name, d.toMillis()));
      return new AgentView(
          a.id(),
          RoutingWire.attributes(a.attributes()),
          new TreeMap<>(a.capacity()),
          new TreeMap<>(a.load()),
          WireFormat.wireName(a.presence().kind()),
          a.presence().kind() == Presence.Kind.AWAY ? a.presence().reason() : null,
          a.idleSince().toString(),
          a.inWrapUp(),
          a.consecutiveMisses(),
          a.activity(),
          a.activitySince().toString(),
          time);
    }

    public Agent toAgent() {
      Presence p =
          RoutingWire.presence(
              Optional.ofNullable(presence), Optional.ofNullable(reason), Presence.offline());
      Instant idle = WireFormat.instant("idleSince", idleSince).orElse(Instant.EPOCH);
      Map<String, Duration> time = new LinkedHashMap<>();
      orEmpty(activityTimeMillis).forEach((name, ms) -> time.put(name, Duration.ofMillis(ms)));
      return new Agent(
          id,
          RoutingWire.attributes(attributes, "attributes"),
          new LinkedHashMap<>(orEmpty(capacity)),
          new LinkedHashMap<>(orEmpty(load)),
          p,
          idle,
          inWrapUp,
          consecutiveMisses,
          activity != null ? activity : p.kind().name().toLowerCase(java.util.Locale.ROOT),
          WireFormat.instant("activitySince", activitySince).orElse(idle),
          time);
    }
  }

  /** A contact in an answer: its state by wire name, instants as ISO-8601 text. */
  public record ContactView(
      @Required String id,
      @Required String channel,
      @Nullable JsonNode attributes,
      @Nullable String requirements,
      int escalationStep,
      int priority,
      @Required String state,
      @Nullable String createdAt,
      @Nullable String agentId,
      @Nullable String reservationId,
      @Nullable String answeredAt,
      @Nullable String endedAt,
      @Nullable String queue,
      @Nullable String workflow) {

    public static ContactView of(Contact c) {
      return new ContactView(
          c.id(),
          c.channel(),
          RoutingWire.attributes(c.attributes()),
          c.requirements().orElse(null),
          c.escalationStep(),
          c.priority(),
          WireFormat.wireName(c.state()),
          c.createdAt().toString(),
          c.agentId().orElse(null),
          c.reservationId().orElse(null),
          c.answeredAt().map(Instant::toString).orElse(null),
          c.endedAt().map(Instant::toString).orElse(null),
          c.queue().orElse(null),
          c.workflow().orElse(null));
    }

    public Contact toContact() {
      return new Contact(
          id,
          channel,
          RoutingWire.attributes(attributes, "attributes"),
          Optional.ofNullable(requirements),
          escalationStep,
          priority,
          WireFormat.enumValue(ContactState.class, "state", state),
          WireFormat.instant("createdAt", createdAt).orElse(Instant.EPOCH),
          Optional.ofNullable(agentId),
          Optional.ofNullable(reservationId),
          WireFormat.instant("answeredAt", answeredAt),
          WireFormat.instant("endedAt", endedAt),
          Optional.ofNullable(queue),
          Optional.ofNullable(workflow));
    }
  }

  /** A reservation (an offer of a contact to an agent) in an answer. */
  public record ReservationView(
      @Required String id,
      @Required String contactId,
      @Required String agentId,
      @Required String channel,
      @Nullable String offeredAt,
      @Nullable String expiresAt,
      @Required String state) {

    public static ReservationView of(Reservation r) {
      return new ReservationView(
          r.id(),
          r.contactId(),
          r.agentId(),
          r.channel(),
          r.offeredAt().toString(),
          r.expiresAt().toString(),
          WireFormat.wireName(r.state()));
    }

    public Reservation toReservation() {
      return new Reservation(
          id,
          contactId,
          agentId,
          channel,
          WireFormat.instant("offeredAt", offeredAt).orElse(Instant.EPOCH),
          WireFormat.instant("expiresAt", expiresAt).orElse(Instant.EPOCH),
          WireFormat.enumValue(ReservationState.class, "state", state));
    }
  }

  /**
   * The router's statistics: overall and per group (channel and requirements), agents per presence
   * (every presence, in its order), occupancy per channel (sorted).
   */
  public record StatsView(
      @Nullable String at,
      @Required ContactStatsView overall,
      @Nullable List<GroupView> groups,
      @Required Map<String, Integer> agentsByPresence,
      @Nullable Map<String, Double> occupancyByChannel) {

    public static StatsView of(RoutingStats s) {
      Map<String, Integer> presence = new LinkedHashMap<>();
      for (Presence.Kind kind : Presence.Kind.values()) {
        presence.put(WireFormat.wireName(kind), s.agentsByPresence().getOrDefault(kind, 0));
      }
      return new StatsView(
          s.at().toString(),
          ContactStatsView.of(s.overall()),
          s.groups().stream()
              .map(
                  g ->
                      new GroupView(
                          g.channel(),
                          g.requirements().orElse(null),
                          ContactStatsView.of(g.contacts())))
              .toList(),
          presence,
          new TreeMap<>(s.occupancyByChannel()));
    }

    public RoutingStats toStats() {
      Map<Presence.Kind, Integer> presence = new LinkedHashMap<>();
      for (Presence.Kind kind : Presence.Kind.values()) {
        presence.put(kind, agentsByPresence.getOrDefault(WireFormat.wireName(kind), 0));
      }
      return new RoutingStats(
          WireFormat.instant("at", at).orElse(Instant.EPOCH),
          overall.toStats(),
          Json.items(groups).stream()
              .map(
                  g ->
                      new GroupStats(
                          g.channel(),
                          Optional.ofNullable(g.requirements()),
                          g.contacts().toStats()))
              .toList(),
          presence,
          new LinkedHashMap<>(orEmpty(occupancyByChannel)));
    }
  }

  /** The statistics of one group of contacts. */
  public record GroupView(
      @Required String channel,
      @Nullable String requirements,
      @Required ContactStatsView contacts) {}

  /** Contact counts and times; the fractions and the average are left out until measured. */
  public record ContactStatsView(
      int waiting,
      long longestWaitMillis,
      long answered,
      long abandoned,
      long timedOut,
      @Nullable Double serviceLevel,
      @Nullable Long averageSpeedOfAnswerMillis,
      @Nullable Double abandonmentRate) {

    public static ContactStatsView of(ContactStats c) {
      return new ContactStatsView(
          c.waiting(),
          c.longestWait().toMillis(),
          c.answered(),
          c.abandoned(),
          c.timedOut(),
          c.serviceLevel().isPresent() ? c.serviceLevel().getAsDouble() : null,
          c.averageSpeedOfAnswer().map(Duration::toMillis).orElse(null),
          c.abandonmentRate().isPresent() ? c.abandonmentRate().getAsDouble() : null);
    }

    public ContactStats toStats() {
      return new ContactStats(
          waiting,
          Duration.ofMillis(longestWaitMillis),
          answered,
          abandoned,
          timedOut,
          fraction(serviceLevel),
          Optional.ofNullable(averageSpeedOfAnswerMillis).map(Duration::ofMillis),
          fraction(abandonmentRate));
    }

    private static OptionalDouble fraction(@Nullable Double value) {
      return value == null ? OptionalDouble.empty() : OptionalDouble.of(value);
    }
  }

  /**
   * A routing event as the {@code data:} of a server-sent event: {@code id}, {@code type}, {@code
   * at}, and the fields of its kind (the others are left out).
   */
  public record EventView(
      long id,
      @Nullable String type,
      @Nullable String at,
      @Nullable AgentView agent,
      @Nullable ContactView contact,
      @Nullable ReservationView reservation,
      @Nullable String reservationId,
      @Nullable String contactId,
      @Nullable String agentId,
      @Nullable String presence,
      @Nullable Integer step,
      @Nullable String requirements,
      @Nullable String fromAgentId,
      @Nullable String toQueue,
      @Nullable String toAgentId,
      @Nullable String until,
      @Nullable String reason) {

    public static EventView of(RoutingEvent e) {
      Fields f = new Fields();
      switch (e) {
        case RoutingEvent.AgentCreated c -> f.agent = AgentView.of(c.agent());
        case RoutingEvent.AgentUpdated c -> f.agent = AgentView.of(c.agent());
        case RoutingEvent.AgentPresenceChanged c -> {
          f.agentId = c.agentId();
          f.presence = WireFormat.wireName(c.presence().kind());
          f.reason = c.presence().kind() == Presence.Kind.AWAY ? c.presence().reason() : null;
        }
        case RoutingEvent.AgentRemoved c -> f.agentId = c.agentId();
        case RoutingEvent.ContactQueued c -> f.contact = ContactView.of(c.contact());
        case RoutingEvent.ContactEscalated c -> {
          f.contactId = c.contactId();
          f.step = c.step();
          f.requirements = c.requirements().orElse(null);
        }
        case RoutingEvent.ReservationOffered c ->
            f.reservation = ReservationView.of(c.reservation());
        case RoutingEvent.ReservationAccepted c ->
            f.ids(c.reservationId(), c.contactId(), c.agentId());
        case RoutingEvent.ReservationRejected c ->
            f.ids(c.reservationId(), c.contactId(), c.agentId());
        case RoutingEvent.ReservationTimedOut c ->
            f.ids(c.reservationId(), c.contactId(), c.agentId());
        case RoutingEvent.ReservationCancelled c -> {
          f.ids(c.reservationId(), c.contactId(), c.agentId());
          f.reason = c.reason();
        }
        case RoutingEvent.ContactWrapUp c -> {
          f.ids(null, c.contactId(), c.agentId());
          f.until = c.until().toString();
        }
        case RoutingEvent.ContactCompleted c -> f.ids(null, c.contactId(), c.agentId());
        case RoutingEvent.ContactAbandoned c -> f.contactId = c.contactId();
        case RoutingEvent.ContactTimedOut c -> f.contactId = c.contactId();
        case RoutingEvent.ContactUpdated c -> f.contact = ContactView.of(c.contact());
        case RoutingEvent.ContactCancelled c -> {
          f.contactId = c.contactId();
          f.reason = c.reason();
        }
        case RoutingEvent.ContactTransferred c -> {
          f.contactId = c.contactId();
          f.fromAgentId = c.fromAgentId();
          f.toQueue = c.toQueue().orElse(null);
          f.toAgentId = c.toAgent().orElse(null);
        }
      }
      return new EventView(
          e.id(),
          e.type(),
          e.at().toString(),
          f.agent,
          f.contact,
          f.reservation,
          f.reservationId,
          f.contactId,
          f.agentId,
          f.presence,
          f.step,
          f.requirements,
          f.fromAgentId,
          f.toQueue,
          f.toAgentId,
          f.until,
          f.reason);
    }

    /** The fields of one event's kind, gathered before the record is made. */
    private static final class Fields {
      @Nullable AgentView agent;
      @Nullable ContactView contact;
      @Nullable ReservationView reservation;
      @Nullable String reservationId;
      @Nullable String contactId;
      @Nullable String agentId;
      @Nullable String presence;
      @Nullable Integer step;
      @Nullable String requirements;
      @Nullable String fromAgentId;
      @Nullable String toQueue;
      @Nullable String toAgentId;
      @Nullable String until;
      @Nullable String reason;

      void ids(@Nullable String reservation, String contact, String agent) {
        reservationId = reservation;
        contactId = contact;
        agentId = agent;
      }
    }
  }

  // ---- requests and lists ------------------------------------------------------------------

  /** {@code POST /v1/routing/agents}; {@code presence} is a wire name, {@code reason} for away. */
  public record CreateAgent(
      @Required String id,
      @Nullable JsonNode attributes,
      @Nullable Map<String, Integer> capacity,
      @Nullable String presence,
      @Nullable String reason,
      @Nullable String activity) {

    public static CreateAgent of(NewAgent a) {
      Presence p = a.presence();
      return new CreateAgent(
          a.id(),
          RoutingWire.attributes(a.attributes()),
          new TreeMap<>(a.capacity()),
          WireFormat.wireName(p.kind()),
          p.kind() == Presence.Kind.AWAY ? p.reason() : null,
          null);
    }

    /** An agent to create in a workspace, in {@code activity} (null: the workspace's default). */
    public static CreateAgent in(NewAgent a, @Nullable String activity) {
      return new CreateAgent(
          a.id(),
          RoutingWire.attributes(a.attributes()),
          new TreeMap<>(a.capacity()),
          null,
          null,
          activity);
    }

    public NewAgent toNewAgent() {
      return new NewAgent(
          id,
          RoutingWire.attributes(attributes, "attributes"),
          capacity == null ? Map.of() : capacity,
          RoutingWire.presence(
              Optional.ofNullable(presence), Optional.ofNullable(reason), Presence.offline()));
    }
  }

  /** {@code PUT /v1/routing/agents/{agent}/presence}. */
  public record SetPresence(@Nullable String presence, @Nullable String reason) {

    public static SetPresence of(Presence p) {
      return new SetPresence(
          WireFormat.wireName(p.kind()),
          p.kind() == Presence.Kind.AWAY && !p.reason().isEmpty() ? p.reason() : null);
    }

    /** The presence; {@code presence} must be given (checked by the caller, which words it). */
    public Presence toPresence() {
      return RoutingWire.presence(
          Optional.of(Objects.requireNonNull(presence, "presence")),
          Optional.ofNullable(reason),
          Presence.offline());
    }
  }

  /** {@code POST /v1/routing/contacts}. */
  public record CreateContact(
      @Required String id,
      @Required String channel,
      @Nullable JsonNode attributes,
      @Nullable String requirements,
      @Nullable Integer priority,
      @Nullable List<Step> escalations,
      @Nullable Long maxWaitSeconds,
      @Nullable String queue,
      @Nullable String workflow) {

    /** One escalation: after so long waiting, these requirements (none: any agent). */
    public record Step(@Required Long afterSeconds, @Nullable String requirements) {}

    public static CreateContact of(NewContact c) {
      List<Step> steps =
          c.escalations().stream()
              .map(
                  e ->
                      new Step(
                          WireFormat.wholeSeconds("after", e.after()),
                          e.requirements().orElse(null)))
              .toList();
      return new CreateContact(
          c.id(),
          c.channel(),
          RoutingWire.attributes(c.attributes()),
          c.requirements().orElse(null),
          c.priority(),
          steps.isEmpty() ? null : steps,
          c.maxWait().map(w -> WireFormat.wholeSeconds("maxWait", w)).orElse(null),
          c.queue().orElse(null),
          c.workflow().orElse(null));
    }

    /** This contact through task queue {@code queue}. */
    public CreateContact through(String queue) {
      return new CreateContact(
          id,
          channel,
          attributes,
          requirements,
          priority,
          escalations,
          maxWaitSeconds,
          queue,
          workflow);
    }

    /** This contact routed by workflow {@code workflow}. */
    public CreateContact by(String workflow) {
      return new CreateContact(
          id,
          channel,
          attributes,
          requirements,
          priority,
          escalations,
          maxWaitSeconds,
          queue,
          workflow);
    }

    public NewContact toNewContact() {
      NewContact.Builder b =
          NewContact.builder(id, channel)
              .attributes(RoutingWire.attributes(attributes, "attributes"));
      Optional.ofNullable(requirements).ifPresent(b::requirements);
      Optional.ofNullable(priority).ifPresent(b::priority);
      for (Step step : escalations == null ? List.<Step>of() : escalations) {
        Duration after = Json.seconds("afterSeconds", step.afterSeconds()).orElseThrow();
        if (step.requirements() != null) {
          b.escalate(after, step.requirements());
        } else {
          b.escalateToAnyAgent(after);
        }
      }
      Json.seconds("maxWaitSeconds", maxWaitSeconds).ifPresent(b::maxWait);
      return b.build();
    }
  }

  /** {@code POST /v1/routing/contacts/{contact}/complete}: no wrap-up, the channel's. */
  public record Complete(@Nullable Long wrapUpSeconds) {

    public Optional<Duration> wrapUp() {
      return Json.seconds("wrapUpSeconds", wrapUpSeconds);
    }
  }

  /** {@code PUT /v1/workspaces/{workspace}/agents/{agent}/activity}. */
  public record SetActivity(@Nullable String activity) {}

  /**
   * {@code PATCH /v1/routing/contacts/{contact}}: what is given replaces the contact's; {@code
   * attributes} stays a tree, since {@code null} (none) and absent (keep) differ.
   */
  public record UpdateContact(
      @Nullable JsonNode attributes, @Nullable Integer priority, @Nullable String requirements) {

    public static UpdateContact of(ContactUpdate u) {
      return new UpdateContact(
          u.attributes().map(RoutingWire::attributes).orElse(null),
          u.priority().isPresent() ? u.priority().getAsInt() : null,
          u.requirements().orElse(null));
    }

    /** The change, in the router's terms; {@code attributes: null} clears them. */
    public ContactUpdate toUpdate() {
      ContactUpdate update = ContactUpdate.none();
      if (priority != null) {
        update = update.withPriority(priority);
      }
      if (attributes != null) {
        update = update.withAttributes(RoutingWire.attributes(attributes, "attributes"));
      }
      if (requirements != null) {
        update = update.withRequirements(requirements);
      }
      return update;
    }
  }

  /** {@code POST /v1/routing/contacts/{contact}/cancel}; no reason: {@code cancelled}. */
  public record Cancel(@Nullable String reason) {}

  /**
   * {@code POST .../contacts/{contact}/transfer}: to a task {@code queue} or to an {@code agent}.
   */
  public record Transfer(
      @Nullable String queue, @Nullable String agent, @Nullable String requirements) {}

  /** A page of agents; {@code nextCursor} (null on the last page) asks for the next. */
  public record Agents(@Nullable List<AgentView> agents, @Nullable String nextCursor) {

    public static Agents of(ListPage<Agent> page) {
      return new Agents(
          page.items().stream().map(AgentView::of).toList(), page.nextCursor().orElse(null));
    }

    public List<Agent> toAgents() {
      return Json.items(agents).stream().map(AgentView::toAgent).toList();
    }
  }

  /** A page of waiting contacts; {@code nextCursor} as {@link Agents}. */
  public record Contacts(@Nullable List<ContactView> contacts, @Nullable String nextCursor) {

    public static Contacts of(ListPage<Contact> page) {
      return new Contacts(
          page.items().stream().map(ContactView::of).toList(), page.nextCursor().orElse(null));
    }

    public List<Contact> toContacts() {
      return Json.items(contacts).stream().map(ContactView::toContact).toList();
    }
  }

  /** A page of an agent's pending offers; {@code nextCursor} as {@link Agents}. */
  public record Reservations(
      @Nullable List<ReservationView> reservations, @Nullable String nextCursor) {

    public static Reservations of(ListPage<Reservation> page) {
      return new Reservations(
          page.items().stream().map(ReservationView::of).toList(), page.nextCursor().orElse(null));
    }

    public List<Reservation> toReservations() {
      return Json.items(reservations).stream().map(ReservationView::toReservation).toList();
    }
  }

  // ---- helpers -----------------------------------------------------------------------------

  private static <K, V> Map<K, V> orEmpty(@Nullable Map<K, V> map) {
    return map == null ? Map.of() : map;
  }

  private static WireFormatException invalid(String message) {
    return new WireFormatException(WireCode.INVALID_ARGUMENT, message);
  }
}
