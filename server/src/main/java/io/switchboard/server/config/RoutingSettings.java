package io.switchboard.server.config;

import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.Strategy;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The router's settings in the server configuration (keys {@code routing-*}, see {@link
 * ServerConfig}), parsed and checked against the router's own ranges at startup, so a bad value
 * stops the server with a message naming the key, the allowed values, the value and its source.
 *
 * @param strategy {@code longest-idle}, {@code least-occupied} or {@code highest:<attribute>}
 * @param offerTimeout how long an offer waits for accept or reject
 * @param missLimit consecutive missed offers that set an agent away; 0 never
 * @param restPeriod after a reject or a missed offer, how long that contact is not offered to that
 *     agent again, in the workspace {@code default} (other workspaces set their own)
 * @param autoAccept channels whose offers are accepted at once
 * @param wrapUp default wrap-up time per channel
 * @param serviceLevel "answered within" of the service level
 * @param statsWindow sliding window of the statistics
 * @param statsRetention how long the lasting statistics keep each 15-minute interval
 * @param eventHistory events kept for resuming clients
 * @param contactHistory finished contacts kept readable
 */
public record RoutingSettings(
    String strategy,
    Duration offerTimeout,
    int missLimit,
    Duration restPeriod,
    Set<String> autoAccept,
    Map<String, Duration> wrapUp,
    Duration serviceLevel,
    Duration statsWindow,
    Duration statsRetention,
    int eventHistory,
    int contactHistory) {

  public RoutingSettings {
    autoAccept = Set.copyOf(autoAccept);
    wrapUp = Map.copyOf(wrapUp);
  }

  /** The router's defaults. */
  public static RoutingSettings defaults() {
    return ServerConfig.defaults().routing();
  }

  /**
   * The routing settings of a configuration, checked against the router's own ranges too.
   *
   * @throws StartupException naming the setting, the value and its source
   */
  static RoutingSettings of(ServerConfig config) {
    RoutingSettings settings =
        new RoutingSettings(
            config.get(Settings.ROUTING_STRATEGY),
            config.get(Settings.ROUTING_OFFER_TIMEOUT),
            config.get(Settings.ROUTING_MISS_LIMIT),
            config.get(Settings.ROUTING_REST_PERIOD),
            config.get(Settings.ROUTING_AUTO_ACCEPT),
            config.get(Settings.ROUTING_WRAP_UP),
            config.get(Settings.ROUTING_SERVICE_LEVEL),
            config.get(Settings.ROUTING_STATS_WINDOW),
            config.get(Settings.ROUTING_STATS_RETENTION),
            config.get(Settings.ROUTING_EVENT_HISTORY),
            config.get(Settings.ROUTING_CONTACT_HISTORY));
    try {
      settings.builder();
    } catch (RoutingException e) {
      throw new StartupException(inConfigTerms(String.valueOf(e.getMessage()), config));
    }
    return settings;
  }

  /** The router's names of its settings, and the configuration keys they come from. */
  private static final List<List<String>> NAMES =
      List.of(
          List.of("offerTimeout", "routing-offer-timeout"),
          List.of("missLimit", "routing-miss-limit"),
          List.of("restPeriod", "routing-rest-period"),
          List.of("autoAccept channel", "routing-auto-accept channel"),
          List.of("wrapUp", "routing-wrap-up"),
          List.of("serviceLevelThreshold", "routing-service-level"),
          List.of("statsWindow", "routing-stats-window"),
          List.of("statsRetention", "routing-stats-retention"),
          List.of("eventHistory", "routing-event-history"),
          List.of("contactHistory", "routing-contact-history"),
          List.of("strategy attribute", "routing-strategy attribute"));

  /** The router's message about a setting, with the configuration key and the value's source. */
  private static String inConfigTerms(String message, ServerConfig config) {
    for (List<String> name : NAMES) {
      if (message.startsWith(name.get(0))) {
        String key = name.get(1).split(" ")[0];
        String from =
            config
                .source(Objects.requireNonNull(Settings.byKey(key), "NAMES names settings' keys"))
                .map(source -> " (from " + source + ")")
                .orElse("");
        return name.get(1) + message.substring(name.get(0).length()) + from;
      }
    }
    return "routing settings: " + message;
  }

  /** These settings as the workspace {@code default} shows them. */
  public WorkspaceSettings defaultWorkspace() {
    return new WorkspaceSettings(strategy(strategy), offerTimeout, wrapUp, serviceLevel, "offline")
        .withRestPeriod(restPeriod);
  }

  /**
   * A router builder for a workspace other than {@code default}: the server's histories and
   * retention, the server's miss limit, auto-accept channels and statistics window unless the
   * workspace has its own, and the workspace's own settings and refusal activities.
   */
  public Router.Builder builder(WorkspaceDefinition workspace) {
    Router.Builder b =
        Router.builder()
            .missLimit(missLimit)
            .statsWindow(statsWindow)
            .statsRetention(statsRetention)
            .eventHistory(eventHistory)
            .contactHistory(contactHistory);
    autoAccept.forEach(b::autoAccept);
    return workspace.applyTo(b);
  }

  /** A router builder with these settings (clock and journal are the caller's). */
  public Router.Builder builder() {
    Router.Builder b =
        Router.builder()
            .strategy(strategy(strategy))
            .offerTimeout(offerTimeout)
            .missLimit(missLimit)
            .restPeriod(restPeriod)
            .serviceLevelThreshold(serviceLevel)
            .statsWindow(statsWindow)
            .statsRetention(statsRetention)
            .eventHistory(eventHistory)
            .contactHistory(contactHistory);
    autoAccept.forEach(b::autoAccept);
    wrapUp.forEach(b::wrapUp);
    return b.check();
  }

  /**
   * The strategy {@code text} names.
   *
   * @throws IllegalArgumentException naming {@code routing-strategy}, what is allowed and the text
   */
  static Strategy strategy(String text) {
    try {
      return Strategy.parse("routing-strategy", text);
    } catch (RoutingException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }
}
