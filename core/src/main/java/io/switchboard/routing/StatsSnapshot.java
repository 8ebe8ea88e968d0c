package io.switchboard.routing;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * {@link Router#stats()}: the waiting line's groups with their sliding-window outcomes ({@link
 * LiveStats}), agents by presence and occupancy by channel. It scans the groups and the agents,
 * which suits a dashboard's rate of calls, not a hot path.
 */
final class StatsSnapshot {

  private StatsSnapshot() {}

  /** The oldest contact of a group in the line (a group leaves the line when it empties). */
  private static ContactRecord oldest(WaitingGroup g) {
    return Objects.requireNonNull(g.oldest(), "a group in the line has contacts");
  }

  static RoutingStats take(CallContext call, AgentBook agents, ContactBook contacts) {
    long now = call.now;
    LiveStats stats = call.stats;
    stats.trim(now);
    // groups of several task queues may share channel and requirement: one figure for them all
    Map<String, long[]> live = new HashMap<>();
    for (WaitingGroup g : contacts.line.groups()) {
      long[] figures = live.computeIfAbsent(g.key, k -> new long[2]);
      figures[0] += g.size();
      figures[1] = Math.max(figures[1], now - oldest(g).createdAt);
    }
    TreeSet<String> keys = new TreeSet<>(live.keySet());
    keys.addAll(stats.byGroup().keySet());
    List<GroupStats> groups = new ArrayList<>();
    long longestOverall = 0;
    LiveStats.Window empty = new LiveStats.Window();
    for (String key : keys) {
      long[] group = live.get(key);
      int waiting = group == null ? 0 : (int) group[0];
      long longest = group == null ? 0 : group[1];
      longestOverall = Math.max(longestOverall, longest);
      int split = key.indexOf('\u0000');
      String requirements = key.substring(split + 1);
      groups.add(
          new GroupStats(
              key.substring(0, split),
              requirements.isEmpty() ? Optional.empty() : Optional.of(requirements),
              stats.byGroup().getOrDefault(key, empty).stats(waiting, longest)));
    }
    return new RoutingStats(
        CallContext.at(now),
        stats.overall().stats(contacts.line.size(), longestOverall),
        groups,
        byPresence(agents),
        occupancy(agents));
  }

  /** The live figures of task queue {@code rules}: its counters and its contacts waiting now. */
  static TaskQueueStats queue(CallContext call, ContactBook contacts, QueueRules rules) {
    long now = call.now;
    int waiting = 0;
    long longest = 0;
    for (WaitingGroup g : contacts.line.groups()) {
      if (rules.name.equals(g.queue)) {
        waiting += g.size();
        longest = Math.max(longest, now - oldest(g).createdAt);
      }
    }
    return rules.counters.snapshot(rules, now, waiting, longest);
  }

  private static Map<Presence.Kind, Integer> byPresence(AgentBook agents) {
    Map<Presence.Kind, Integer> byPresence = new EnumMap<>(Presence.Kind.class);
    for (Presence.Kind kind : Presence.Kind.values()) {
      byPresence.put(kind, 0);
    }
    for (AgentRecord agent : agents.all()) {
      byPresence.merge(agent.presence.kind(), 1, Integer::sum);
    }
    return byPresence;
  }

  /** Load / capacity per channel over the agents that are not offline. */
  private static Map<String, Double> occupancy(AgentBook agents) {
    Map<String, long[]> use = new HashMap<>();
    for (AgentRecord agent : agents.all()) {
      if (agent.presence.kind() != Presence.Kind.OFFLINE) {
        agent.capacity.forEach(
            (channel, capacity) -> {
              long[] sums = use.computeIfAbsent(channel, c -> new long[2]);
              sums[0] += agent.load(channel);
              sums[1] += capacity;
            });
      }
    }
    Map<String, Double> occupancy = new HashMap<>();
    use.forEach(
        (channel, sums) -> {
          if (sums[1] > 0) {
            occupancy.put(channel, Math.min(1.0, (double) sums[0] / sums[1]));
          }
        });
    return occupancy;
  }
}
