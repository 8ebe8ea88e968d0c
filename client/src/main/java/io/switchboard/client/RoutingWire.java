package io.switchboard.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.client.Json.Required;
import io.switchboard.routing.Agent;
import io.switchboard.routing.Contact;
import io.switchboard.routing.ContactState;
import io.switchboard.routing.ContactStats;
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
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;

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
  public static Map<String, Object> attributes(JsonNode node, String field) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (Json.present(node).isEmpty()) {
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

  private static ObjectNode counts(Map<String, Integer> counts) {
    ObjectNode o = WireFormat.object();
    new TreeMap<>(counts).forEach(o::put);
    return o;
  }

  // ---- presence ----------------------------------------------------------------------------

  /**
   * {@code presence} ({@code available|away|offline}) and, for away, an optional {@code reason}.
   */
  public static Presence presence(JsonFields f, Presence absent) {
    return presence(f.string("presence"), f.string("reason"), absent);
  }

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

  private static void presence(ObjectNode o, Presence p) {
    o.put("presence", WireFormat.wireName(p.kind()));
    if (p.kind() == Presence.Kind.AWAY) {
      o.put("reason", p.reason());
    }
  }

  private static Presence presence(JsonFields f) {
    return presence(f, Presence.offline());
  }

  // ---- agents ------------------------------------------------------------------------------

  public static ObjectNode agent(Agent a) {
    ObjectNode o = WireFormat.object().put("id", a.id());
    o.set("attributes", attributes(a.attributes()));
    o.set("capacity", counts(a.capacity()));
    o.set("load", counts(a.load()));
    presence(o, a.presence());
    o.put("idleSince", a.idleSince().toString());
    o.put("inWrapUp", a.inWrapUp());
    o.put("consecutiveMisses", a.consecutiveMisses());
    o.put("activity", a.activity());
    o.put("activitySince", a.activitySince().toString());
    ObjectNode time = o.putObject("activityTimeMillis");
    new TreeMap<>(a.activityTime()).forEach((name, d) -> time.put(name, d.toMillis()));
    return o;
  }

  public static Agent agent(JsonFields f) {
    Presence presence = presence(f);
    Instant idleSince = instant(f, "idleSince").orElse(Instant.EPOCH);
    Map<String, Duration> time = new LinkedHashMap<>();
    f.raw("activityTimeMillis")
        .ifPresent(
            n ->
                n.properties()
                    .forEach(
                        e -> time.put(e.getKey(), Duration.ofMillis(e.getValue().longValue()))));
    return new Agent(
        f.requiredString("id"),
        attributes(f, "attributes"),
        capacity(f, "capacity"),
        capacity(f, "load"),
        presence,
        idleSince,
        f.bool("inWrapUp").orElse(false),
        f.int32("consecutiveMisses").orElse(0),
        f.string("activity").orElse(presence.kind().name().toLowerCase(java.util.Locale.ROOT)),
        instant(f, "activitySince").orElse(idleSince),
        time);
  }

  // ---- contacts ----------------------------------------------------------------------------

  public static ObjectNode contact(Contact c) {
    ObjectNode o = WireFormat.object().put("id", c.id()).put("channel", c.channel());
    o.set("attributes", attributes(c.attributes()));
    c.requirements().ifPresent(r -> o.put("requirements", r));
    o.put("escalationStep", c.escalationStep());
    o.put("priority", c.priority());
    o.put("state", WireFormat.wireName(c.state()));
    o.put("createdAt", c.createdAt().toString());
    c.agentId().ifPresent(a -> o.put("agentId", a));
    c.reservationId().ifPresent(r -> o.put("reservationId", r));
    c.answeredAt().ifPresent(t -> o.put("answeredAt", t.toString()));
    c.endedAt().ifPresent(t -> o.put("endedAt", t.toString()));
    c.queue().ifPresent(q -> o.put("queue", q));
    c.workflow().ifPresent(w -> o.put("workflow", w));
    return o;
  }

  public static Contact contact(JsonFields f) {
    return new Contact(
        f.requiredString("id"),
        f.requiredString("channel"),
        attributes(f, "attributes"),
        f.string("requirements"),
        f.int32("escalationStep").orElse(0),
        f.int32("priority").orElse(0),
        WireFormat.enumValue(ContactState.class, "state", f.requiredString("state")),
        instant(f, "createdAt").orElse(Instant.EPOCH),
        f.string("agentId"),
        f.string("reservationId"),
        instant(f, "answeredAt"),
        instant(f, "endedAt"),
        f.string("queue"),
        f.string("workflow"));
  }

  // ---- reservations ------------------------------------------------------------------------

  public static ObjectNode reservation(Reservation r) {
    return WireFormat.object()
        .put("id", r.id())
        .put("contactId", r.contactId())
        .put("agentId", r.agentId())
        .put("channel", r.channel())
        .put("offeredAt", r.offeredAt().toString())
        .put("expiresAt", r.expiresAt().toString())
        .put("state", WireFormat.wireName(r.state()));
  }

  public static Reservation reservation(JsonFields f) {
    return new Reservation(
        f.requiredString("id"),
        f.requiredString("contactId"),
        f.requiredString("agentId"),
        f.requiredString("channel"),
        instant(f, "offeredAt").orElse(Instant.EPOCH),
        instant(f, "expiresAt").orElse(Instant.EPOCH),
        WireFormat.enumValue(ReservationState.class, "state", f.requiredString("state")));
  }

  // ---- statistics --------------------------------------------------------------------------

  public static ObjectNode stats(RoutingStats s) {
    ObjectNode o = WireFormat.object().put("at", s.at().toString());
    o.set("overall", contactStats(s.overall()));
    ArrayNode groups = o.putArray("groups");
    for (GroupStats g : s.groups()) {
      ObjectNode group = groups.addObject().put("channel", g.channel());
      g.requirements().ifPresent(r -> group.put("requirements", r));
      group.set("contacts", contactStats(g.contacts()));
    }
    ObjectNode presence = o.putObject("agentsByPresence");
    for (Presence.Kind kind : Presence.Kind.values()) {
      presence.put(WireFormat.wireName(kind), s.agentsByPresence().getOrDefault(kind, 0));
    }
    ObjectNode occupancy = o.putObject("occupancyByChannel");
    new TreeMap<>(s.occupancyByChannel()).forEach(occupancy::put);
    return o;
  }

  private static ObjectNode contactStats(ContactStats c) {
    ObjectNode o =
        WireFormat.object()
            .put("waiting", c.waiting())
            .put("longestWaitMillis", c.longestWait().toMillis())
            .put("answered", c.answered())
            .put("abandoned", c.abandoned())
            .put("timedOut", c.timedOut());
    c.serviceLevel().ifPresent(v -> o.put("serviceLevel", v));
    c.averageSpeedOfAnswer().ifPresent(d -> o.put("averageSpeedOfAnswerMillis", d.toMillis()));
    c.abandonmentRate().ifPresent(v -> o.put("abandonmentRate", v));
    return o;
  }

  public static RoutingStats stats(JsonFields f) {
    List<GroupStats> groups = new ArrayList<>();
    for (JsonNode n : f.array("groups").orElse(List.of())) {
      JsonFields g = JsonFields.lenient(n);
      groups.add(
          new GroupStats(
              g.requiredString("channel"),
              g.string("requirements"),
              contactStats(g.object("contacts").orElseThrow(() -> missing("contacts")))));
    }
    Map<Presence.Kind, Integer> presence = new LinkedHashMap<>();
    JsonFields byPresence = f.object("agentsByPresence").orElseThrow(() -> missing("presence"));
    for (Presence.Kind kind : Presence.Kind.values()) {
      presence.put(kind, byPresence.int32(WireFormat.wireName(kind)).orElse(0));
    }
    Map<String, Double> occupancy = new LinkedHashMap<>();
    f.raw("occupancyByChannel")
        .ifPresent(
            n ->
                n.properties().forEach(e -> occupancy.put(e.getKey(), e.getValue().doubleValue())));
    return new RoutingStats(
        instant(f, "at").orElse(Instant.EPOCH),
        contactStats(f.object("overall").orElseThrow(() -> missing("overall"))),
        groups,
        presence,
        occupancy);
  }

  private static ContactStats contactStats(JsonFields f) {
    return new ContactStats(
        f.int32("waiting").orElse(0),
        Duration.ofMillis(f.int64("longestWaitMillis").orElse(0)),
        f.int64("answered").orElse(0),
        f.int64("abandoned").orElse(0),
        f.int64("timedOut").orElse(0),
        fraction(f, "serviceLevel"),
        f.int64("averageSpeedOfAnswerMillis").stream().mapToObj(Duration::ofMillis).findFirst(),
        fraction(f, "abandonmentRate"));
  }

  private static OptionalDouble fraction(JsonFields f, String field) {
    return f.raw(field).map(n -> OptionalDouble.of(n.doubleValue())).orElse(OptionalDouble.empty());
  }

  // ---- events ------------------------------------------------------------------------------

  /**
   * One event as the {@code data:} of a server-sent event: {@code id}, {@code type}, {@code at},
   * and the fields of the change.
   */
  public static ObjectNode event(RoutingEvent e) {
    ObjectNode o =
        WireFormat.object().put("id", e.id()).put("type", e.type()).put("at", e.at().toString());
    switch (e) {
      case RoutingEvent.AgentCreated c -> o.set("agent", agent(c.agent()));
      case RoutingEvent.AgentUpdated c -> o.set("agent", agent(c.agent()));
      case RoutingEvent.AgentPresenceChanged c -> {
        o.put("agentId", c.agentId());
        presence(o, c.presence());
      }
      case RoutingEvent.AgentRemoved c -> o.put("agentId", c.agentId());
      case RoutingEvent.ContactQueued c -> o.set("contact", contact(c.contact()));
      case RoutingEvent.ContactEscalated c -> {
        o.put("contactId", c.contactId()).put("step", c.step());
        c.requirements().ifPresent(r -> o.put("requirements", r));
      }
      case RoutingEvent.ReservationOffered c -> o.set("reservation", reservation(c.reservation()));
      case RoutingEvent.ReservationAccepted c ->
          ids(o, c.reservationId(), c.contactId(), c.agentId());
      case RoutingEvent.ReservationRejected c ->
          ids(o, c.reservationId(), c.contactId(), c.agentId());
      case RoutingEvent.ReservationTimedOut c ->
          ids(o, c.reservationId(), c.contactId(), c.agentId());
      case RoutingEvent.ReservationCancelled c ->
          ids(o, c.reservationId(), c.contactId(), c.agentId()).put("reason", c.reason());
      case RoutingEvent.ContactWrapUp c ->
          o.put("contactId", c.contactId())
              .put("agentId", c.agentId())
              .put("until", c.until().toString());
      case RoutingEvent.ContactCompleted c ->
          o.put("contactId", c.contactId()).put("agentId", c.agentId());
      case RoutingEvent.ContactAbandoned c -> o.put("contactId", c.contactId());
      case RoutingEvent.ContactTimedOut c -> o.put("contactId", c.contactId());
      case RoutingEvent.ContactUpdated c -> o.set("contact", contact(c.contact()));
      case RoutingEvent.ContactCancelled c ->
          o.put("contactId", c.contactId()).put("reason", c.reason());
      case RoutingEvent.ContactTransferred c -> {
        o.put("contactId", c.contactId()).put("fromAgentId", c.fromAgentId());
        c.toQueue().ifPresent(q -> o.put("toQueue", q));
        c.toAgent().ifPresent(a -> o.put("toAgentId", a));
      }
    }
    return o;
  }

  private static ObjectNode ids(ObjectNode o, String reservation, String contact, String agent) {
    return o.put("reservationId", reservation).put("contactId", contact).put("agentId", agent);
  }

  // ---- requests and lists ------------------------------------------------------------------

  /** {@code POST /v1/routing/agents}; {@code presence} is a wire name, {@code reason} for away. */
  public record CreateAgent(
      @Required String id,
      JsonNode attributes,
      Map<String, Integer> capacity,
      String presence,
      String reason,
      String activity) {

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
    public static CreateAgent in(NewAgent a, String activity) {
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
  public record SetPresence(String presence, String reason) {

    public static SetPresence of(Presence p) {
      return new SetPresence(
          WireFormat.wireName(p.kind()),
          p.kind() == Presence.Kind.AWAY && !p.reason().isEmpty() ? p.reason() : null);
    }

    /** The presence; {@code presence} must be given (checked by the caller, which words it). */
    public Presence toPresence() {
      return RoutingWire.presence(
          Optional.of(presence), Optional.ofNullable(reason), Presence.offline());
    }
  }

  /** {@code POST /v1/routing/contacts}. */
  public record CreateContact(
      @Required String id,
      @Required String channel,
      JsonNode attributes,
      String requirements,
      Integer priority,
      List<Step> escalations,
      Long maxWaitSeconds,
      String queue,
      String workflow) {

    /** One escalation: after so long waiting, these requirements (none: any agent). */
    public record Step(@Required Long afterSeconds, String requirements) {}

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
  public record Complete(Long wrapUpSeconds) {

    public Optional<Duration> wrapUp() {
      return Json.seconds("wrapUpSeconds", wrapUpSeconds);
    }
  }

  /** A page of agents; {@code nextCursor} (null on the last page) asks for the next. */
  public record Agents(List<JsonNode> agents, String nextCursor) {

    public static Agents of(ListPage<Agent> page) {
      return new Agents(
          Json.trees(page.items(), RoutingWire::agent), page.nextCursor().orElse(null));
    }

    public List<Agent> toAgents() {
      return Json.read(agents, RoutingWire::agent);
    }
  }

  /** A page of waiting contacts; {@code nextCursor} as {@link Agents}. */
  public record Contacts(List<JsonNode> contacts, String nextCursor) {

    public static Contacts of(ListPage<Contact> page) {
      return new Contacts(
          Json.trees(page.items(), RoutingWire::contact), page.nextCursor().orElse(null));
    }

    public List<Contact> toContacts() {
      return Json.read(contacts, RoutingWire::contact);
    }
  }

  /** A page of an agent's pending offers; {@code nextCursor} as {@link Agents}. */
  public record Reservations(List<JsonNode> reservations, String nextCursor) {

    public static Reservations of(ListPage<Reservation> page) {
      return new Reservations(
          Json.trees(page.items(), RoutingWire::reservation), page.nextCursor().orElse(null));
    }

    public List<Reservation> toReservations() {
      return Json.read(reservations, RoutingWire::reservation);
    }
  }

  // ---- helpers -----------------------------------------------------------------------------

  private static Optional<Instant> instant(JsonFields f, String field) {
    return WireFormat.instant(field, f.string(field).orElse(null));
  }

  private static WireFormatException missing(String field) {
    return invalid("field '" + field + "' is required");
  }

  private static WireFormatException invalid(String message) {
    return new WireFormatException(WireCode.INVALID_ARGUMENT, message);
  }
}
