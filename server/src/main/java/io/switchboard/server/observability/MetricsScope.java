package io.switchboard.server.observability;

import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import java.util.Set;

/**
 * Which queues and routing workspaces have series of their own on {@code /metrics}: the {@code
 * topQueues} deepest and the {@code queues} named, the {@code topWorkspaces} with the most contacts
 * waiting, the {@code workspaces} named and {@code default} (docs/operations.md, "Metrics of many
 * queues"). Everything else is in the server-wide totals only, so a scrape's size is bounded by
 * these settings, not by how many queues and workspaces there are.
 */
public record MetricsScope(
    int topQueues, Set<String> queues, int topWorkspaces, Set<String> workspaces) {

  public static final MetricsScope DEFAULT = new MetricsScope(100, Set.of(), 100, Set.of());

  public MetricsScope {
    queues = Set.copyOf(queues);
    workspaces = Set.copyOf(workspaces);
  }

  public static MetricsScope of(ServerConfig config) {
    return new MetricsScope(
        config.get(Settings.METRICS_TOP_QUEUES),
        config.get(Settings.METRICS_QUEUES),
        config.get(Settings.METRICS_TOP_WORKSPACES),
        config.get(Settings.METRICS_WORKSPACES));
  }
}
