package io.switchboard.routing;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * A snapshot of an agent.
 *
 * @param id the agent id
 * @param attributes what requirements select on
 * @param capacity contacts the agent handles at once, per channel
 * @param load contacts offered to, assigned to or in wrap-up with the agent, per channel (channels
 *     with no load are left out)
 * @param presence offline, available or away
 * @param idleSince when the agent last became idle (available, not in wrap-up, no load), or was
 *     created if it never was; it orders agents for the longest-idle strategy
 * @param inWrapUp whether a completed contact is still in wrap-up; the agent is not offered work
 * @param consecutiveMisses offers timed out since the last accepted one
 * @param activity the agent's activity (in a workspace with custom activities, one of them;
 *     otherwise its presence: {@code available}, {@code away} or {@code offline})
 * @param activitySince when the agent entered {@code activity}
 * @param activityTime time spent in each activity before the current one (the current stint runs
 *     from {@code activitySince})
 */
public record Agent(
    String id,
    Map<String, Object> attributes,
    Map<String, Integer> capacity,
    Map<String, Integer> load,
    Presence presence,
    Instant idleSince,
    boolean inWrapUp,
    int consecutiveMisses,
    String activity,
    Instant activitySince,
    Map<String, Duration> activityTime) {

  public Agent {
    attributes = Map.copyOf(attributes);
    capacity = Map.copyOf(capacity);
    load = Map.copyOf(load);
    activityTime = Map.copyOf(activityTime);
  }

  /** An agent whose activity is its presence, with no time recorded (clients of older servers). */
  public Agent(
      String id,
      Map<String, Object> attributes,
      Map<String, Integer> capacity,
      Map<String, Integer> load,
      Presence presence,
      Instant idleSince,
      boolean inWrapUp,
      int consecutiveMisses) {
    this(
        id,
        attributes,
        capacity,
        load,
        presence,
        idleSince,
        inWrapUp,
        consecutiveMisses,
        Activity.label(presence),
        idleSince,
        Map.of());
  }

  /**
   * Whether the agent may be offered a contact on {@code channel} now: available, below capacity on
   * it, and not in wrap-up.
   */
  public boolean eligibleFor(String channel) {
    return presence.isAvailable()
        && !inWrapUp
        && load.getOrDefault(channel, 0) < capacity.getOrDefault(channel, 0);
  }
}
