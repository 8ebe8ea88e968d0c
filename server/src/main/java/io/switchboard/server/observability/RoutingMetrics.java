package io.switchboard.server.observability;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.switchboard.routing.ContactStats;
import io.switchboard.routing.GroupStats;
import io.switchboard.routing.Presence;
import io.switchboard.routing.RoutingStats;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * Routing figures in {@code /metrics}, read from one {@link RoutingStats} snapshot per workspace
 * shown ({@link MetricsScope}) per scrape, like the queue figures: meters for workspaces and
 * requirement groups that appear are registered, those of groups that emptied out of the window and
 * of workspaces no longer shown are removed.
 *
 * <p>Names, each with a {@code workspace} label: {@code
 * switchboard_routing_contacts_waiting{channel,requirements}}, {@code
 * switchboard_routing_longest_wait_seconds}, {@code switchboard_routing_service_level} (0..1,
 * {@code NaN} while nothing left the line in the window), {@code
 * switchboard_routing_abandonment_rate}, {@code switchboard_routing_answer_speed_seconds}
 * (average), per group and with {@code channel="all",requirements="all"} overall; {@code
 * switchboard_routing_agents{presence}} and {@code switchboard_routing_occupancy{channel}} (0..1).
 * A group without requirements is {@code requirements="any"}.
 */
final class RoutingMetrics {

  private final MeterRegistry registry;

  /** Meters by workspace, channel and requirements. */
  private final Map<List<String>, GroupMeters> groups = new HashMap<>();

  private final Map<String, WorkspaceMeters> workspaces = new HashMap<>();

  RoutingMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /** Takes new snapshots, by workspace; called with the scrape lock held. */
  void refresh(Map<String, RoutingStats> byWorkspace) {
    Set<List<String>> seen = new HashSet<>();
    byWorkspace.forEach(
        (workspace, snapshot) -> {
          WorkspaceMeters w = workspaces.computeIfAbsent(workspace, WorkspaceMeters::new);
          w.stats = snapshot;
          for (String channel : snapshot.occupancyByChannel().keySet()) {
            w.occupancy(channel);
          }
          List<String> overall = List.of(workspace, "all", "all");
          seen.add(overall);
          groups.computeIfAbsent(overall, this::register).stats = snapshot.overall();
          for (GroupStats g : snapshot.groups()) {
            List<String> key = List.of(workspace, g.channel(), g.requirements().orElse("any"));
            seen.add(key);
            groups.computeIfAbsent(key, this::register).stats = g.contacts();
          }
        });
    groups.entrySet().removeIf(e -> !seen.contains(e.getKey()) && e.getValue().remove());
    workspaces
        .entrySet()
        .removeIf(e -> !byWorkspace.containsKey(e.getKey()) && e.getValue().remove());
  }

  private GroupMeters register(List<String> key) {
    GroupMeters g = new GroupMeters();
    gauge(g, key, "switchboard.routing.contacts.waiting", "contacts queued now", s -> s.waiting());
    gauge(
        g,
        key,
        "switchboard.routing.longest.wait.seconds",
        "age of the oldest queued contact",
        s -> s.longestWait().toMillis() / 1000.0);
    gauge(
        g,
        key,
        "switchboard.routing.service.level",
        "share answered within the threshold, over the window",
        s -> s.serviceLevel().orElse(Double.NaN));
    gauge(
        g,
        key,
        "switchboard.routing.abandonment.rate",
        "share abandoned, over the window",
        s -> s.abandonmentRate().orElse(Double.NaN));
    gauge(
        g,
        key,
        "switchboard.routing.answer.speed.seconds",
        "average speed of answer, over the window",
        s -> s.averageSpeedOfAnswer().map(d -> d.toMillis() / 1000.0).orElse(Double.NaN));
    return g;
  }

  private void gauge(
      GroupMeters g,
      List<String> key,
      String name,
      String description,
      ToDoubleFunction<ContactStats> f) {
    g.meters.add(
        Gauge.builder(name, g, m -> f.applyAsDouble(m.stats))
            .description(description)
            .tags("workspace", key.get(0), "channel", key.get(1), "requirements", key.get(2))
            .register(registry));
  }

  /** Meters that read a list of meters' latest figures, and can remove them. */
  private abstract class Meters {
    final List<Meter> meters = new ArrayList<>();

    /** Removes the meters from the registry; true, for {@code removeIf}. */
    boolean remove() {
      meters.forEach(registry::remove);
      return true;
    }
  }

  /** The latest figures of one group and the meters that read them. */
  private final class GroupMeters extends Meters {
    // set by refresh right after register makes it, before a scrape can read it
    @SuppressWarnings("NullAway.Init")
    volatile ContactStats stats;
  }

  /** One workspace's latest snapshot and its agent and occupancy meters. */
  private final class WorkspaceMeters extends Meters {
    private final String workspace;
    private final Set<String> channels = new HashSet<>();

    // set by refresh right after it makes this, before a scrape can read it
    @SuppressWarnings("NullAway.Init")
    volatile RoutingStats stats;

    WorkspaceMeters(String workspace) {
      this.workspace = workspace;
      for (Presence.Kind kind : Presence.Kind.values()) {
        meters.add(
            Gauge.builder(
                    "switchboard.routing.agents",
                    this,
                    m -> m.stats.agentsByPresence().getOrDefault(kind, 0))
                .description("agents by presence")
                .tags("workspace", workspace, "presence", kind.name().toLowerCase(Locale.ROOT))
                .register(registry));
      }
    }

    void occupancy(String channel) {
      if (channels.add(channel)) {
        meters.add(
            Gauge.builder(
                    "switchboard.routing.occupancy",
                    this,
                    m -> m.stats.occupancyByChannel().getOrDefault(channel, 0.0))
                .description("share of the capacity of agents not offline in use, per channel")
                .tags("workspace", workspace, "channel", channel)
                .register(registry));
      }
    }
  }
}
