package io.switchboard.routing.spi;

import io.switchboard.internal.Bytes.Reader;
import io.switchboard.internal.Bytes.Writer;
import io.switchboard.routing.ContactState;
import io.switchboard.routing.IntervalFigures;
import io.switchboard.routing.Presence;
import io.switchboard.routing.ReservationState;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The binary form of a router's stored records, shared by the stores that keep records as bytes
 * (RocksDB values, PostgreSQL {@code bytea} columns). Attribute values keep their Java type (a tag
 * byte each), so an agent recovered from a store has exactly the attributes it was given. Integers
 * are big-endian; a string is its UTF-8 length (-1 for none) and bytes.
 *
 * <p>The layout is {@link #FORMAT} 1; a store records the format it was written in and refuses
 * another, so a change here needs a new format number and a migration. Fields added at the end of a
 * record since (an agent's activity and its times, a contact's task queue, its workflow and the
 * queue, priority and skip flag of each of its steps, a refused reservation's rest) are optional: a
 * record written without them reads with their defaults, so format 1 stays readable both ways.
 */
public final class RouterRecordCodec {

  /** The records' format; a store of another format is refused at open. */
  public static final int FORMAT = 1;

  private RouterRecordCodec() {}

  /** An agent's stored bytes. */
  public static byte[] encode(StoredAgent a) {
    Writer w = new Writer(128).s(a.id()).l(a.serial());
    attributes(w, a.attributes());
    w.i(a.capacity().size());
    a.capacity().forEach((channel, n) -> w.s(channel).i(n));
    w.b(a.presence().kind().ordinal())
        .s(a.presence().reason())
        .l(a.idleSince())
        .l(a.idleSeq())
        .i(a.misses())
        .s(a.activity())
        .l(a.activitySince());
    w.i(a.activityMillis().size());
    a.activityMillis().forEach((name, ms) -> w.s(name).l(ms));
    return w.toArray();
  }

  /** The agent {@link #encode(StoredAgent)} wrote. */
  public static StoredAgent agent(byte[] value) {
    Reader r = new Reader(value);
    String id = r.text();
    long serial = r.l();
    Map<String, Object> attributes = attributes(r);
    int channels = r.i();
    Map<String, Integer> capacity = new LinkedHashMap<>();
    for (int i = 0; i < channels; i++) {
      capacity.put(r.s(), r.i());
    }
    Presence.Kind kind = Presence.Kind.values()[r.b()];
    String reason = r.text();
    long idleSince = r.l();
    long idleSeq = r.l();
    int misses = r.i();
    String activity = null;
    long activitySince = idleSince;
    Map<String, Long> activityMillis = new LinkedHashMap<>();
    if (!r.done()) {
      activity = r.s();
      activitySince = r.l();
      int n = r.i();
      for (int i = 0; i < n; i++) {
        activityMillis.put(r.s(), r.l());
      }
    }
    return new StoredAgent(
        id,
        serial,
        attributes,
        Map.copyOf(capacity),
        new Presence(kind, reason),
        idleSince,
        idleSeq,
        misses,
        activity,
        activitySince,
        activityMillis);
  }

  /** A contact's stored bytes. */
  public static byte[] encode(StoredContact c) {
    Writer w = new Writer(160).s(c.id()).s(c.channel());
    attributes(w, c.attributes());
    w.i(c.priority()).l(c.seq()).l(c.createdAt()).i(c.steps().size());
    for (StoredContact.Step step : c.steps()) {
      w.l(step.afterMillis()).s(step.requirement().orElse(null));
    }
    w.l(c.deadline())
        .s(c.requirement().orElse(null))
        .i(c.step())
        .b(c.state().ordinal())
        .s(c.agentId().orElse(null))
        .s(c.reservationId().orElse(null))
        .l(c.answeredAt())
        .l(c.endedAt())
        .l(c.wrapUpUntil())
        .l(c.timerSeq())
        .l(c.wrapUpTimerSeq())
        .l(c.retireSeq())
        .s(c.queue().orElse(null));
    if (c.workflow().isPresent() || c.steps().stream().anyMatch(RouterRecordCodec::routed)) {
      w.s(c.workflow().orElse(null));
      for (StoredContact.Step step : c.steps()) {
        w.s(step.queue().orElse(null))
            .i(step.priority().orElse(Integer.MIN_VALUE))
            .b(step.skipIfNoneAvailable() ? 1 : 0);
      }
    }
    return w.toArray();
  }

  /** The contact {@link #encode(StoredContact)} wrote. */
  public static StoredContact contact(byte[] value) {
    Reader r = new Reader(value);
    StoredContact.Builder c =
        StoredContact.builder(r.text(), r.text())
            .attributes(attributes(r))
            .priority(r.i())
            .seq(r.l())
            .createdAt(r.l());
    int n = r.i();
    List<StoredContact.Step> steps = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      steps.add(new StoredContact.Step(r.l(), Optional.ofNullable(r.s())));
    }
    c.deadline(r.l())
        .requirement(Optional.ofNullable(r.s()))
        .step(r.i())
        .state(ContactState.values()[r.b()])
        .agentId(Optional.ofNullable(r.s()))
        .reservationId(Optional.ofNullable(r.s()))
        .answeredAt(r.l())
        .endedAt(r.l())
        .wrapUpUntil(r.l())
        .timerSeq(r.l())
        .wrapUpTimerSeq(r.l())
        .retireSeq(r.l());
    if (!r.done()) {
      c.queue(Optional.ofNullable(r.s()));
    }
    if (!r.done()) {
      c.workflow(Optional.ofNullable(r.s()));
      for (int i = 0; i < n; i++) {
        StoredContact.Step s = steps.get(i);
        Optional<String> stepQueue = Optional.ofNullable(r.s());
        int p = r.i();
        boolean skip = r.b() == 1;
        steps.set(
            i,
            new StoredContact.Step(
                s.afterMillis(),
                s.requirement(),
                stepQueue,
                p == Integer.MIN_VALUE ? Optional.empty() : Optional.of(p),
                skip));
      }
    }
    return c.steps(List.copyOf(steps)).build();
  }

  private static boolean routed(StoredContact.Step s) {
    return s.queue().isPresent() || s.priority().isPresent() || s.skipIfNoneAvailable();
  }

  /** A reservation's stored bytes. */
  public static byte[] encode(StoredReservation v) {
    Writer w =
        new Writer(80)
            .s(v.id())
            .l(v.seq())
            .s(v.contactId())
            .s(v.agentId())
            .l(v.offeredAt())
            .l(v.expiresAt())
            .b(v.state().ordinal())
            .l(v.timerSeq());
    if (v.restTimerSeq() != 0) {
      w.l(v.restUntil()).l(v.restTimerSeq());
    }
    return w.toArray();
  }

  /** The reservation {@link #encode(StoredReservation)} wrote. */
  public static StoredReservation reservation(byte[] value) {
    Reader r = new Reader(value);
    String id = r.text();
    long seq = r.l();
    String contact = r.text();
    String agent = r.text();
    long offeredAt = r.l();
    long expiresAt = r.l();
    ReservationState state = ReservationState.values()[r.b()];
    long timerSeq = r.l();
    long restUntil = 0;
    long restTimerSeq = 0;
    if (!r.done()) {
      restUntil = r.l();
      restTimerSeq = r.l();
    }
    return new StoredReservation(
        id, seq, contact, agent, offeredAt, expiresAt, state, timerSeq, restUntil, restTimerSeq);
  }

  /** The counters' stored bytes. */
  public static byte[] encode(RouterCounters c) {
    return new Writer(56)
        .l(c.agentSerial())
        .l(c.contactSeq())
        .l(c.idleSeq())
        .l(c.reservationSeq())
        .l(c.timerSeq())
        .l(c.retireSeq())
        .l(c.eventIdLimit())
        .toArray();
  }

  /** The counters {@link #encode(RouterCounters)} wrote. */
  public static RouterCounters counters(byte[] value) {
    Reader r = new Reader(value);
    return new RouterCounters(r.l(), r.l(), r.l(), r.l(), r.l(), r.l(), r.l());
  }

  /**
   * A statistics interval's stored bytes: start, scope, name, then the counts in {@link
   * IntervalFigures}' order, and the activity times.
   */
  public static byte[] encode(StoredInterval v) {
    IntervalFigures f = v.figures();
    Writer w =
        new Writer(160)
            .l(v.start())
            .b(v.scope().ordinal())
            .s(v.name())
            .l(f.arrived())
            .l(f.offered())
            .l(f.accepted())
            .l(f.rejected())
            .l(f.timedOut())
            .l(f.answered())
            .l(f.answeredWithinThreshold())
            .l(f.abandoned())
            .l(f.maxWaitExceeded())
            .l(f.handled())
            .l(f.handleMillis())
            .l(f.wrapUps())
            .l(f.wrapUpMillis());
    w.i(f.activityMillis().size());
    f.activityMillis().forEach((name, ms) -> w.s(name).l(ms));
    return w.toArray();
  }

  /** The interval {@link #encode(StoredInterval)} wrote. */
  public static StoredInterval interval(byte[] value) {
    Reader r = new Reader(value);
    long start = r.l();
    StoredInterval.Scope scope = StoredInterval.Scope.values()[r.b()];
    String name = r.text();
    long[] n = new long[13];
    for (int i = 0; i < n.length; i++) {
      n[i] = r.l();
    }
    int activities = r.i();
    Map<String, Long> activity = new LinkedHashMap<>();
    for (int i = 0; i < activities; i++) {
      activity.put(r.s(), r.l());
    }
    return new StoredInterval(
        start,
        scope,
        name,
        new IntervalFigures(
            n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8], n[9], n[10], n[11], n[12],
            activity));
  }

  private static void attributes(Writer w, Map<String, Object> attributes) {
    w.i(attributes.size());
    attributes.forEach(
        (name, value) -> {
          w.s(name);
          switch (value) {
            case String s -> w.b('S').s(s);
            case Boolean b -> w.b(b ? 'T' : 'F');
            case Integer i -> w.b('I').i(i);
            case Long l -> w.b('J').l(l);
            case Short s -> w.b('H').i(s);
            case Byte b -> w.b('Y').i(b);
            case Double d -> w.b('D').l(Double.doubleToLongBits(d));
            case Float f -> w.b('R').i(Float.floatToIntBits(f));
            case BigDecimal d -> w.b('M').s(d.toString());
            case BigInteger i -> w.b('G').s(i.toString());
            case List<?> list -> {
              w.b('L').i(list.size());
              list.forEach(item -> w.s((String) item));
            }
            default ->
                throw new IllegalArgumentException(
                    "attribute '" + name + "' has a type the router does not accept: " + value);
          }
        });
  }

  private static Map<String, Object> attributes(Reader r) {
    int n = r.i();
    Map<String, Object> attributes = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      String name = r.s();
      int tag = r.b();
      Object value =
          switch (tag) {
            case 'S' -> r.s();
            case 'T' -> Boolean.TRUE;
            case 'F' -> Boolean.FALSE;
            case 'I' -> r.i();
            case 'J' -> r.l();
            case 'H' -> (short) r.i();
            case 'Y' -> (byte) r.i();
            case 'D' -> Double.longBitsToDouble(r.l());
            case 'R' -> Float.intBitsToFloat(r.i());
            case 'M' -> new BigDecimal(r.s());
            case 'G' -> new BigInteger(r.s());
            case 'L' -> {
              int size = r.i();
              List<String> items = new ArrayList<>(size);
              for (int k = 0; k < size; k++) {
                items.add(r.s());
              }
              yield List.copyOf(items);
            }
            default -> throw new IllegalStateException("unknown attribute tag " + tag);
          };
      attributes.put(name, value);
    }
    return Map.copyOf(attributes);
  }
}
