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
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * Routing figures in {@code /metrics}, read from one {@link RoutingStats} snapshot per scrape, like
 * the queue figures: meters for requirement groups that appear are registered, those of groups that
 * emptied out of the window are removed.
 *
 * <p>Names: {@code switchboard_routing_contacts_waiting{channel,requirements}}, {@code
 * switchboard_routing_longest_wait_seconds}, {@code switchboard_routing_service_level} (0..1,
 * {@code NaN} while nothing left the line in the window), {@code
 * switchboard_routing_abandonment_rate}, {@code switchboard_routing_answer_speed_seconds}
 * (average), per group and with {@code channel="all",requirements="all"} overall; {@code
 * switchboard_routing_agents{presence}} and {@code switchboard_routing_occupancy{channel}} (0..1).
 * A group without requirements is {@code requirements="any"}.
 */
final class RoutingMetrics {

  private final MeterRegistry registry;
  private final Map<List<String>, GroupMeters> groups = new HashMap<>();
  private final Map<String, Meter> occupancy = new HashMap<>();

  /** The latest snapshot; null until the first. */
  private volatile @Nullable RoutingStats stats;

  RoutingMetrics(MeterRegistry registry) {
    this.registry = registry;
    for (Presence.Kind kind : Presence.Kind.values()) {
      Gauge.builder(
              "switchboard.routing.agents",
              this,
              m -> m.stats == null ? 0 : m.stats.agentsByPresence().getOrDefault(kind, 0))
          .description("agents by presence")
          .tags("presence", kind.name().toLowerCase(java.util.Locale.ROOT))
          .register(registry);
    }
  }

  /** Takes a new snapshot; called with the scrape lock held. */
  void refresh(RoutingStats snapshot) {
    stats = snapshot;
    Set<List<String>> seen = new HashSet<>();
    seen.add(List.of("all", "all"));
    groups.computeIfAbsent(List.of("all", "all"), this::register).stats = snapshot.overall();
    for (GroupStats g : snapshot.groups()) {
      List<String> key = List.of(g.channel(), g.requirements().orElse("any"));
      seen.add(key);
      groups.computeIfAbsent(key, this::register).stats = g.contacts();
    }
    groups
        .entrySet()
        .removeIf(
            e -> {
              if (seen.contains(e.getKey())) {
                return false;
              }
              e.getValue().meters.forEach(registry::remove);
              return true;
            });
    for (String channel : snapshot.occupancyByChannel().keySet()) {
      occupancy.computeIfAbsent(
          channel,
          c ->
              Gauge.builder(
                      "switchboard.routing.occupancy",
                      this,
                      m -> {
                        RoutingStats s = m.stats; // set before this gauge is registered
                        return s == null ? 0.0 : s.occupancyByChannel().getOrDefault(c, 0.0);
                      })
                  .description("share of the capacity of agents not offline in use, per channel")
                  .tags("channel", c)
                  .register(registry));
    }
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
            .tags("channel", key.get(0), "requirements", key.get(1))
            .register(registry));
  }

  /** The latest figures of one group and the meters that read them. */
  private static final class GroupMeters {
    // set by refresh right after register makes it, before a scrape can read it
    @SuppressWarnings("NullAway.Init")
    volatile ContactStats stats;

    final List<Meter> meters = new ArrayList<>();
  }
}
