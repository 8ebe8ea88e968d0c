package io.switchboard.routing.spi;

import io.switchboard.routing.Presence;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * An agent as stored. Its load, wrap-up count and pending offers are not stored: recovery derives
 * them from the contacts and reservations that name the agent.
 *
 * @param serial creation order, the last tie-break of every strategy
 * @param idleSince clock millis when the agent last became idle
 * @param idleSeq breaks ties of {@code idleSince}
 * @param misses consecutive offers missed
 * @param activity the agent's activity; null in records written before activities, read as its
 *     presence
 * @param activitySince clock millis it entered the activity
 * @param activityMillis millis spent in each activity before the current one
 */
public record StoredAgent(
    String id,
    long serial,
    Map<String, Object> attributes,
    Map<String, Integer> capacity,
    Presence presence,
    long idleSince,
    long idleSeq,
    int misses,
    @Nullable String activity,
    long activitySince,
    Map<String, Long> activityMillis) {

  public StoredAgent {
    activityMillis = Map.copyOf(activityMillis);
  }

  /** An agent stored before activities: its activity is its presence, since it became idle. */
  public StoredAgent(
      String id,
      long serial,
      Map<String, Object> attributes,
      Map<String, Integer> capacity,
      Presence presence,
      long idleSince,
      long idleSeq,
      int misses) {
    this(
        id,
        serial,
        attributes,
        capacity,
        presence,
        idleSince,
        idleSeq,
        misses,
        null,
        idleSince,
        Map.of());
  }
}
