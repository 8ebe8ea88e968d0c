package io.switchboard.routing;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * A workspace's router settings; each is checked as the {@link Router.Builder} setting of the same
 * name.
 *
 * @param strategy how a contact chooses among matching eligible agents
 * @param offerTimeout how long an offer waits for accept or reject, 1 s..1 h
 * @param wrapUp the default wrap-up per channel, 0..1 h each
 * @param serviceLevelThreshold "answered within" for the service level, 1 s..1 h
 * @param defaultActivity the activity of an agent created without one
 */
public record WorkspaceSettings(
    Strategy strategy,
    Duration offerTimeout,
    Map<String, Duration> wrapUp,
    Duration serviceLevelThreshold,
    String defaultActivity) {

  /** The settings of a new workspace when none are given: as a router's defaults. */
  public static final WorkspaceSettings DEFAULTS =
      new WorkspaceSettings(
          Strategy.longestIdle(),
          Duration.ofSeconds(30),
          Map.of(),
          Duration.ofSeconds(20),
          "offline");

  public WorkspaceSettings {
    Objects.requireNonNull(strategy, "strategy");
    Objects.requireNonNull(offerTimeout, "offerTimeout");
    wrapUp = Map.copyOf(Objects.requireNonNull(wrapUp, "wrapUp"));
    Objects.requireNonNull(serviceLevelThreshold, "serviceLevelThreshold");
    Checks.channel("defaultActivity", Objects.requireNonNull(defaultActivity, "defaultActivity"));
    apply(Router.builder(), strategy, offerTimeout, wrapUp, serviceLevelThreshold).check();
  }

  /** Sets these settings on {@code builder}. */
  public Router.Builder applyTo(Router.Builder builder) {
    return apply(builder, strategy, offerTimeout, wrapUp, serviceLevelThreshold);
  }

  private static Router.Builder apply(
      Router.Builder builder,
      Strategy strategy,
      Duration offerTimeout,
      Map<String, Duration> wrapUp,
      Duration serviceLevelThreshold) {
    builder
        .strategy(strategy)
        .offerTimeout(offerTimeout)
        .serviceLevelThreshold(serviceLevelThreshold);
    wrapUp.forEach(builder::wrapUp);
    return builder;
  }

  public WorkspaceSettings withStrategy(Strategy s) {
    return new WorkspaceSettings(s, offerTimeout, wrapUp, serviceLevelThreshold, defaultActivity);
  }

  public WorkspaceSettings withOfferTimeout(Duration d) {
    return new WorkspaceSettings(strategy, d, wrapUp, serviceLevelThreshold, defaultActivity);
  }

  public WorkspaceSettings withWrapUp(Map<String, Duration> w) {
    return new WorkspaceSettings(strategy, offerTimeout, w, serviceLevelThreshold, defaultActivity);
  }

  public WorkspaceSettings withServiceLevelThreshold(Duration d) {
    return new WorkspaceSettings(strategy, offerTimeout, wrapUp, d, defaultActivity);
  }

  public WorkspaceSettings withDefaultActivity(String a) {
    return new WorkspaceSettings(strategy, offerTimeout, wrapUp, serviceLevelThreshold, a);
  }
}
