package io.switchboard.routing;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A workspace's router settings; each is checked as the {@link Router.Builder} setting of the same
 * name. The activities named here are checked against the workspace's own by {@link
 * WorkspaceDefinition}.
 *
 * @param strategy how a contact chooses among matching eligible agents
 * @param offerTimeout how long an offer waits for accept or reject, 1 s..1 h
 * @param wrapUp the default wrap-up per channel, 0..1 h each
 * @param serviceLevelThreshold "answered within" for the service level, 1 s..1 h
 * @param defaultActivity the activity of an agent created without one
 * @param missLimit consecutive missed offers that move an agent to the timeout activity, 0..1000 (0
 *     never); empty: the server's ({@code routing-miss-limit})
 * @param autoAccept channels whose offers are accepted at once; empty: the server's ({@code
 *     routing-auto-accept})
 * @param statsWindow the sliding window of the live statistics, 1 min..24 h; empty: the server's
 *     ({@code routing-stats-window})
 * @param restPeriod after an agent rejects an offer or lets it time out, how long that contact is
 *     not offered to that agent again, 1 s..1 h
 * @param rejectActivity the activity an agent moves to when it (or a callback for it) rejects an
 *     offer; empty: it stays in its activity
 * @param timeoutActivity the activity an agent moves to after the miss limit, an unavailable one;
 *     empty: the workspace's default unavailable activity ({@link
 *     WorkspaceDefinition#timeoutActivity()})
 */
public record WorkspaceSettings(
    Strategy strategy,
    Duration offerTimeout,
    Map<String, Duration> wrapUp,
    Duration serviceLevelThreshold,
    String defaultActivity,
    Optional<Integer> missLimit,
    Optional<Set<String>> autoAccept,
    Optional<Duration> statsWindow,
    Duration restPeriod,
    Optional<String> rejectActivity,
    Optional<String> timeoutActivity) {

  /** The settings of a new workspace when none are given: as a router's defaults. */
  public static final WorkspaceSettings DEFAULTS =
      new WorkspaceSettings(
          Strategy.longestIdle(),
          Duration.ofSeconds(30),
          Map.of(),
          Duration.ofSeconds(20),
          "offline");

  /**
   * Settings that take the server's miss limit, auto-accept channels and statistics window, the
   * default rest period, no reject activity and the default timeout activity.
   */
  public WorkspaceSettings(
      Strategy strategy,
      Duration offerTimeout,
      Map<String, Duration> wrapUp,
      Duration serviceLevelThreshold,
      String defaultActivity) {
    this(
        strategy,
        offerTimeout,
        wrapUp,
        serviceLevelThreshold,
        defaultActivity,
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Router.DEFAULT_REST_PERIOD,
        Optional.empty(),
        Optional.empty());
  }

  public WorkspaceSettings {
    Objects.requireNonNull(strategy, "strategy");
    Objects.requireNonNull(offerTimeout, "offerTimeout");
    wrapUp = Map.copyOf(Objects.requireNonNull(wrapUp, "wrapUp"));
    Objects.requireNonNull(serviceLevelThreshold, "serviceLevelThreshold");
    Checks.channel("defaultActivity", Objects.requireNonNull(defaultActivity, "defaultActivity"));
    Objects.requireNonNull(missLimit, "missLimit");
    autoAccept = Objects.requireNonNull(autoAccept, "autoAccept").map(Set::copyOf);
    Objects.requireNonNull(statsWindow, "statsWindow");
    Objects.requireNonNull(restPeriod, "restPeriod");
    Objects.requireNonNull(rejectActivity, "rejectActivity")
        .ifPresent(a -> Checks.channel("rejectActivity", a));
    Objects.requireNonNull(timeoutActivity, "timeoutActivity")
        .ifPresent(a -> Checks.channel("timeoutActivity", a));
    apply(
            Router.builder(),
            strategy,
            offerTimeout,
            wrapUp,
            serviceLevelThreshold,
            missLimit,
            autoAccept,
            statsWindow,
            restPeriod)
        .check();
  }

  /**
   * Sets these settings on {@code builder} (the miss limit, auto-accept channels and statistics
   * window only when the workspace has its own, so a builder carrying the server's keeps them). The
   * activities are {@link WorkspaceDefinition#applyTo}'s.
   */
  public Router.Builder applyTo(Router.Builder builder) {
    return apply(
        builder,
        strategy,
        offerTimeout,
        wrapUp,
        serviceLevelThreshold,
        missLimit,
        autoAccept,
        statsWindow,
        restPeriod);
  }

  private static Router.Builder apply(
      Router.Builder builder,
      Strategy strategy,
      Duration offerTimeout,
      Map<String, Duration> wrapUp,
      Duration serviceLevelThreshold,
      Optional<Integer> missLimit,
      Optional<Set<String>> autoAccept,
      Optional<Duration> statsWindow,
      Duration restPeriod) {
    builder
        .strategy(strategy)
        .offerTimeout(offerTimeout)
        .serviceLevelThreshold(serviceLevelThreshold)
        .restPeriod(restPeriod);
    wrapUp.forEach(builder::wrapUp);
    missLimit.ifPresent(builder::missLimit);
    autoAccept.ifPresent(builder::autoAcceptOnly);
    statsWindow.ifPresent(builder::statsWindow);
    return builder;
  }

  public WorkspaceSettings withStrategy(Strategy s) {
    return new WorkspaceSettings(
        s,
        offerTimeout,
        wrapUp,
        serviceLevelThreshold,
        defaultActivity,
        missLimit,
        autoAccept,
        statsWindow,
        restPeriod,
        rejectActivity,
        timeoutActivity);
  }

  public WorkspaceSettings withOfferTimeout(Duration d) {
    return new WorkspaceSettings(
        strategy,
        d,
        wrapUp,
        serviceLevelThreshold,
        defaultActivity,
        missLimit,
        autoAccept,
        statsWindow,
        restPeriod,
        rejectActivity,
        timeoutActivity);
  }

  public WorkspaceSettings withWrapUp(Map<String, Duration> w) {
    return new WorkspaceSettings(
        strategy,
        offerTimeout,
        w,
        serviceLevelThreshold,
        defaultActivity,
        missLimit,
        autoAccept,
        statsWindow,
        restPeriod,
        rejectActivity,
        timeoutActivity);
  }

  public WorkspaceSettings withServiceLevelThreshold(Duration d) {
    return new WorkspaceSettings(
        strategy,
        offerTimeout,
        wrapUp,
        d,
        defaultActivity,
        missLimit,
        autoAccept,
        statsWindow,
        restPeriod,
        rejectActivity,
        timeoutActivity);
  }

  public WorkspaceSettings withDefaultActivity(String a) {
    return new WorkspaceSettings(
        strategy,
        offerTimeout,
        wrapUp,
        serviceLevelThreshold,
        a,
        missLimit,
        autoAccept,
        statsWindow,
        restPeriod,
        rejectActivity,
        timeoutActivity);
  }

  /** With its own miss limit (empty: the server's). */
  public WorkspaceSettings withMissLimit(Optional<Integer> n) {
    return new WorkspaceSettings(
        strategy,
        offerTimeout,
        wrapUp,
        serviceLevelThreshold,
        defaultActivity,
        n,
        autoAccept,
        statsWindow,
        restPeriod,
        rejectActivity,
        timeoutActivity);
  }

  /** With its own auto-accept channels (empty: the server's). */
  public WorkspaceSettings withAutoAccept(Optional<Set<String>> channels) {
    return new WorkspaceSettings(
        strategy,
        offerTimeout,
        wrapUp,
        serviceLevelThreshold,
        defaultActivity,
        missLimit,
        channels,
        statsWindow,
        restPeriod,
        rejectActivity,
        timeoutActivity);
  }

  /** With its own statistics window (empty: the server's). */
  public WorkspaceSettings withStatsWindow(Optional<Duration> window) {
    return new WorkspaceSettings(
        strategy,
        offerTimeout,
        wrapUp,
        serviceLevelThreshold,
        defaultActivity,
        missLimit,
        autoAccept,
        window,
        restPeriod,
        rejectActivity,
        timeoutActivity);
  }

  public WorkspaceSettings withRestPeriod(Duration d) {
    return new WorkspaceSettings(
        strategy,
        offerTimeout,
        wrapUp,
        serviceLevelThreshold,
        defaultActivity,
        missLimit,
        autoAccept,
        statsWindow,
        d,
        rejectActivity,
        timeoutActivity);
  }

  /** With the activity of agents that reject an offer (empty: they stay where they are). */
  public WorkspaceSettings withRejectActivity(Optional<String> a) {
    return new WorkspaceSettings(
        strategy,
        offerTimeout,
        wrapUp,
        serviceLevelThreshold,
        defaultActivity,
        missLimit,
        autoAccept,
        statsWindow,
        restPeriod,
        a,
        timeoutActivity);
  }

  /** With the activity of agents at the miss limit (empty: the default unavailable activity). */
  public WorkspaceSettings withTimeoutActivity(Optional<String> a) {
    return new WorkspaceSettings(
        strategy,
        offerTimeout,
        wrapUp,
        serviceLevelThreshold,
        defaultActivity,
        missLimit,
        autoAccept,
        statsWindow,
        restPeriod,
        rejectActivity,
        a);
  }
}
