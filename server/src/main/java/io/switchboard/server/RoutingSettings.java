package io.switchboard.server;

import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.Strategy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The router's settings in the server configuration (keys {@code routing-*}, see {@link
 * ServerConfig}), parsed and checked against the router's own ranges at startup, so a bad value
 * stops the server with a message naming the key, the allowed values, the value and its source.
 *
 * @param strategy {@code longest-idle}, {@code least-occupied} or {@code highest:<attribute>}
 * @param offerTimeout how long an offer waits for accept or reject
 * @param missLimit consecutive missed offers that set an agent away; 0 never
 * @param autoAccept channels whose offers are accepted at once
 * @param wrapUp default wrap-up time per channel
 * @param serviceLevel "answered within" of the service level
 * @param statsWindow sliding window of the statistics
 * @param eventHistory events kept for resuming clients
 * @param contactHistory finished contacts kept readable
 */
public record RoutingSettings(
    String strategy,
    Duration offerTimeout,
    int missLimit,
    Set<String> autoAccept,
    Map<String, Duration> wrapUp,
    Duration serviceLevel,
    Duration statsWindow,
    int eventHistory,
    int contactHistory) {

  /** The configuration keys, each also a flag {@code --key} and a variable. */
  public static final List<String> KEYS =
      List.of(
          "routing-strategy",
          "routing-offer-timeout",
          "routing-miss-limit",
          "routing-auto-accept",
          "routing-wrap-up",
          "routing-service-level",
          "routing-stats-window",
          "routing-event-history",
          "routing-contact-history");

  public RoutingSettings {
    autoAccept = Set.copyOf(autoAccept);
    wrapUp = Map.copyOf(wrapUp);
  }

  /** The router's defaults. */
  public static RoutingSettings defaults() {
    return parse(Map.of(), Function.identity());
  }

  /**
   * Parses the settings from their texts by key; {@code source} names where a key's value came
   * from, for error messages.
   */
  static RoutingSettings parse(Map<String, String> values, Function<String, String> source) {
    Parser p = new Parser(values, source);
    RoutingSettings settings =
        new RoutingSettings(
            p.text("routing-strategy", "longest-idle"),
            p.duration("routing-offer-timeout", "30s"),
            p.integer("routing-miss-limit", 3),
            new LinkedHashSet<>(p.list("routing-auto-accept")),
            p.wrapUp(),
            p.duration("routing-service-level", "20s"),
            p.duration("routing-stats-window", "15m"),
            p.integer("routing-event-history", 10_000),
            p.integer("routing-contact-history", 10_000));
    try {
      settings.builder();
    } catch (RoutingException e) {
      throw new StartupException(inConfigTerms(e.getMessage(), values, source));
    }
    return settings;
  }

  /** The router's names of its settings, and the configuration keys they come from. */
  private static final List<List<String>> NAMES =
      List.of(
          List.of("offerTimeout", "routing-offer-timeout"),
          List.of("missLimit", "routing-miss-limit"),
          List.of("autoAccept channel", "routing-auto-accept channel"),
          List.of("wrapUp", "routing-wrap-up"),
          List.of("serviceLevelThreshold", "routing-service-level"),
          List.of("statsWindow", "routing-stats-window"),
          List.of("eventHistory", "routing-event-history"),
          List.of("contactHistory", "routing-contact-history"),
          List.of("strategy attribute", "routing-strategy attribute"));

  /** The router's message about a setting, with the configuration key and the value's source. */
  private static String inConfigTerms(
      String message, Map<String, String> values, Function<String, String> source) {
    for (List<String> name : NAMES) {
      if (message.startsWith(name.get(0))) {
        String key = name.get(1).split(" ")[0];
        String from = values.containsKey(key) ? " (from " + source.apply(key) + ")" : "";
        return name.get(1) + message.substring(name.get(0).length()) + from;
      }
    }
    return "routing settings: " + message;
  }

  /** A router builder with these settings (clock and journal are the caller's). */
  public Router.Builder builder() {
    Router.Builder b =
        Router.builder()
            .strategy(strategy(strategy))
            .offerTimeout(offerTimeout)
            .missLimit(missLimit)
            .serviceLevelThreshold(serviceLevel)
            .statsWindow(statsWindow)
            .eventHistory(eventHistory)
            .contactHistory(contactHistory);
    autoAccept.forEach(b::autoAccept);
    wrapUp.forEach(b::wrapUp);
    return b.check();
  }

  private static Strategy strategy(String text) {
    String t = text.trim();
    if (t.equals("longest-idle")) {
      return Strategy.longestIdle();
    }
    if (t.equals("least-occupied")) {
      return Strategy.leastOccupied();
    }
    if (t.startsWith("highest:")) {
      return Strategy.highest(t.substring("highest:".length()));
    }
    throw new StartupException(
        "routing-strategy must be longest-idle, least-occupied or highest:<attribute>, got '"
            + text
            + "'");
  }

  /** Reads typed values, naming the key, the value and its source in every error. */
  private record Parser(Map<String, String> values, Function<String, String> source) {

    String text(String key, String fallback) {
      return values.getOrDefault(key, fallback);
    }

    private StartupException bad(String key, String what) {
      return new StartupException(
          key
              + " must be "
              + what
              + ", got '"
              + values.get(key)
              + "' (from "
              + source.apply(key)
              + ")");
    }

    int integer(String key, int fallback) {
      String v = values.get(key);
      if (v == null) {
        return fallback;
      }
      try {
        return Integer.parseInt(v.trim());
      } catch (NumberFormatException e) {
        throw bad(key, "an integer");
      }
    }

    Duration duration(String key, String fallback) {
      String v = values.getOrDefault(key, fallback);
      Duration d = RoutingSettings.duration(v);
      if (d == null) {
        throw bad(key, "a duration such as 500ms, 30s, 5m or 1h");
      }
      return d;
    }

    List<String> list(String key) {
      String v = values.get(key);
      if (v == null || v.isBlank()) {
        return List.of();
      }
      return List.of(v.split(",")).stream().map(String::trim).toList();
    }

    Map<String, Duration> wrapUp() {
      String key = "routing-wrap-up";
      Map<String, Duration> out = new LinkedHashMap<>();
      for (String item : list(key)) {
        int eq = item.indexOf('=');
        Duration d = eq < 0 ? null : RoutingSettings.duration(item.substring(eq + 1));
        if (d == null) {
          throw bad(key, "channel=duration pairs separated by commas, such as chat=30s,voice=10s");
        }
        out.put(item.substring(0, eq).trim(), d);
      }
      return out;
    }
  }

  /** {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, or null when the text is none of them. */
  static Duration duration(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    String[] units = {"ms", "s", "m", "h"};
    for (String unit : units) {
      if (t.endsWith(unit) && t.length() > unit.length()) {
        String number = t.substring(0, t.length() - unit.length());
        if (!number.chars().allMatch(Character::isDigit) || number.length() > 9) {
          continue;
        }
        long n = Long.parseLong(number);
        return switch (unit) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          default -> Duration.ofHours(n);
        };
      }
    }
    return null;
  }
}
