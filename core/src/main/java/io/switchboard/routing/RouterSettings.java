package io.switchboard.routing;

import io.switchboard.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** A checked, immutable copy of a {@link Router.Builder}; times in milliseconds. */
record RouterSettings(
    Clock clock,
    Strategy strategy,
    long offerTimeoutMillis,
    int missLimit,
    long restMillis,
    @Nullable Activity missActivity,
    @Nullable Activity rejectActivity,
    Set<String> autoAccept,
    Map<String, Long> wrapUpMillis,
    long serviceLevelMillis,
    long windowMillis,
    int eventHistory,
    int contactHistory,
    long statsRetentionMillis,
    List<TaskQueue> taskQueues) {

  static RouterSettings of(Router.Builder b) {
    long offer =
        Checks.duration("offerTimeout", b.offerTimeout, Duration.ofSeconds(1), Duration.ofHours(1));
    Checks.range("missLimit", b.missLimit, 0, 1000);
    long rest =
        Checks.duration("restPeriod", b.restPeriod, Duration.ofSeconds(1), Duration.ofHours(1));
    if (b.missActivity != null && b.missActivity.available()) {
      throw RoutingException.invalid(
          "missActivity must be an activity with available=false, got '"
              + b.missActivity.name()
              + "', which is available");
    }
    b.autoAccept.forEach(c -> Checks.channel("autoAccept channel", c));
    Map<String, Long> wrap = new java.util.HashMap<>();
    b.wrapUp.forEach(
        (channel, d) -> {
          Checks.channel("wrapUp channel", channel);
          wrap.put(
              channel,
              Checks.duration(
                  "wrapUp of channel '" + channel + "'", d, Duration.ZERO, Checks.MAX_WRAP_UP));
        });
    long sl =
        Checks.duration(
            "serviceLevelThreshold",
            b.serviceLevelThreshold,
            Duration.ofSeconds(1),
            Duration.ofHours(1));
    long window =
        Checks.duration("statsWindow", b.statsWindow, Duration.ofMinutes(1), Duration.ofHours(24));
    Checks.range("eventHistory", b.eventHistory, 16, 1_000_000);
    Checks.range("contactHistory", b.contactHistory, 0, 1_000_000);
    long retention =
        Checks.duration(
            "statsRetention", b.statsRetention, Duration.ofDays(1), MAX_STATS_RETENTION);
    return new RouterSettings(
        b.clock,
        b.strategy,
        offer,
        b.missLimit,
        rest,
        b.missActivity,
        b.rejectActivity,
        Set.copyOf(b.autoAccept),
        Map.copyOf(wrap),
        sl,
        window,
        b.eventHistory,
        b.contactHistory,
        retention,
        List.copyOf(b.taskQueues));
  }

  /** The longest the lasting statistics' intervals may be kept. */
  static final Duration MAX_STATS_RETENTION = Duration.ofDays(400);

  long wrapUpMillis(String channel) {
    return wrapUpMillis.getOrDefault(channel, 0L);
  }
}
