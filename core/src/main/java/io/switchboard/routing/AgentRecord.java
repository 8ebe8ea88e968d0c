package io.switchboard.routing;

import io.switchboard.selector.Attributes;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The router's mutable state of one agent. Fields that order the agent in {@link EligibleAgents}
 * (load, idle-since, rank, presence, wrap-up) change only in {@link AgentBook#change}, which takes
 * the agent out of the index first ({@link EligibleAgents#takeOut}).
 */
final class AgentRecord {

  final String id;
  Map<String, Object> attributes;
  Attributes view;

  /** The attribute terms the indexes file the agent under ({@link RequiredTerms#ofAgent}). */
  String[] terms;

  Map<String, Integer> capacity;
  final Map<String, Integer> load = new HashMap<>();
  int totalLoad;

  /** Offered, assigned and wrap-up contacts per task queue ({@link QueueRules#admits}). */
  final Map<String, Integer> queueLoad = new HashMap<>(2);

  /** Numeric attribute values, as {@link #rank(String)} read them; reset with the attributes. */
  private Map<String, @Nullable BigDecimal> ranks = Map.of();

  Presence presence;
  int wrapUps;

  /** Creation order: the last tie-break of every strategy. */
  final long serial;

  /** Clock millis when the agent last became idle, or was created. */
  long idleSince;

  /** Breaks ties of {@link #idleSince}: a counter bumped each time any agent becomes idle. */
  long idleSeq;

  int misses;

  /** The activity the agent is in ({@link Activity}); its presence kind unless set as one. */
  @SuppressWarnings("NullAway.Init") // set by whoever makes the record, right after
  String activity;

  /** Clock millis the agent entered {@link #activity}. */
  long activitySince;

  /** Millis spent in each activity before the current one (only those with time). */
  final Map<String, Long> activityMillis = new HashMap<>();

  /** Filed in {@link EligibleAgents}' sets. */
  boolean filed;

  /** Taken out of {@link EligibleAgents} to be changed, not yet put back. */
  boolean out;

  /** Removed from the router: never filed again. */
  boolean removed;

  /** {@link RouterStore}'s mark: whether the call in progress changed the record. */
  byte storeMark;

  /** Pending offers, oldest first (a handful: at most the agent's capacity). */
  final List<ReservationRecord> pending = new ArrayList<>(2);

  /** Assigned and wrap-up contacts. */
  final List<ContactRecord> active = new ArrayList<>(2);

  AgentRecord(
      String id,
      long serial,
      Map<String, Object> attributes,
      Map<String, Integer> capacity,
      Presence presence) {
    this.id = id;
    this.serial = serial;
    attributes(attributes);
    this.capacity = capacity;
    this.presence = presence;
  }

  void attributes(Map<String, Object> attributes) {
    this.attributes = attributes;
    // the reserved sys.agentId names the agent itself (a workflow's preferred agent); sys. names
    // give no index terms (RequiredTerms), so such a requirement is decided by evaluation
    this.view = name -> name.equals(WorkflowRoute.AGENT_ID) ? id : attributes.get(name);
    this.terms = RequiredTerms.ofAgent(attributes);
    this.ranks = Map.of();
  }

  /** The numeric value of {@code attribute} ({@link Strategy#highest}), or null. */
  @Nullable BigDecimal rank(String attribute) {
    BigDecimal r = ranks.get(attribute);
    if (r == null && !ranks.containsKey(attribute)) {
      r = Checks.number(attributes.get(attribute));
      if (!(ranks instanceof HashMap)) {
        ranks = new HashMap<>(2);
      }
      ranks.put(attribute, r);
    }
    return r;
  }

  int load(String channel) {
    return load.getOrDefault(channel, 0);
  }

  int capacity(String channel) {
    return capacity.getOrDefault(channel, 0);
  }

  int queueLoad(String queue) {
    return queueLoad.getOrDefault(queue, 0);
  }

  /** Takes a slot for {@code contact}: its channel's load, and its task queue's. */
  void hold(ContactRecord contact) {
    addLoad(contact.channel, 1);
    if (contact.queue != null) {
      queueLoad.merge(contact.queue, 1, Integer::sum);
    }
  }

  /**
   * Gives back the slot {@link #hold} took for a contact on {@code channel} routed through {@code
   * queue} (null for none) when it was held.
   */
  void release(String channel, @Nullable String queue) {
    addLoad(channel, -1);
    if (queue != null && queueLoad.merge(queue, -1, Integer::sum) == 0) {
      queueLoad.remove(queue);
    }
  }

  void addLoad(String channel, int delta) {
    load.merge(channel, delta, Integer::sum);
    if (load(channel) == 0) {
      load.remove(channel);
    }
    totalLoad += delta;
  }

  boolean eligible(String channel) {
    return presence.isAvailable() && wrapUps == 0 && load(channel) < capacity(channel);
  }

  boolean idle() {
    return presence.isAvailable() && wrapUps == 0 && totalLoad == 0;
  }

  /**
   * Moves the agent to {@code name} at {@code now}, adding the time of the stint that ends to its
   * activity; nothing when it is in {@code name} already.
   */
  void enterActivity(String name, long now) {
    if (name.equals(activity)) {
      return;
    }
    if (activity != null && now > activitySince) {
      activityMillis.merge(activity, now - activitySince, Long::sum);
    }
    activity = name;
    activitySince = now;
  }

  Agent view() {
    Map<String, java.time.Duration> time = new HashMap<>();
    activityMillis.forEach((a, ms) -> time.put(a, java.time.Duration.ofMillis(ms)));
    return new Agent(
        id,
        attributes,
        capacity,
        load,
        presence,
        Instant.ofEpochMilli(idleSince),
        wrapUps > 0,
        misses,
        activity,
        Instant.ofEpochMilli(activitySince),
        time);
  }
}
