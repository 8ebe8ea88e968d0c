package io.switchboard.client.wire;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.client.wire.Json.Required;
import io.switchboard.routing.Activity;
import io.switchboard.routing.Strategy;
import io.switchboard.routing.TaskQueue;
import io.switchboard.routing.TaskQueueStats;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The JSON of the workspace API ({@code /v1/workspaces}, see {@code docs/api.md}), both directions,
 * as records bound by Jackson ({@link Json}). Durations a caller sets are whole seconds ({@code
 * ...Seconds}); strategies by name ({@code longest-idle}, {@code least-occupied}, {@code
 * highest:<attribute>}). Public for the server; not part of the client API.
 */
public final class WorkspaceWire {

  private WorkspaceWire() {}

  // ---- out ---------------------------------------------------------------------------------

  public static ObjectNode workspace(WorkspaceDefinition d) {
    return Json.tree(WorkspaceView.of(d));
  }

  public static ObjectNode activity(Activity a) {
    return Json.tree(ActivityView.of(a));
  }

  public static ObjectNode queue(TaskQueue q) {
    return Json.tree(TaskQueueView.of(q));
  }

  /**
   * {@code GET .../task-queues/{queue}/stats}: a task queue's live figures ({@link
   * TaskQueueStats}); the ages the server measures in milliseconds, the threshold in seconds, the
   * rates absent before any contact.
   */
  public record TaskQueueStatsBody(
      @Json.Required String queue,
      @Json.Required String at,
      @Json.Required String since,
      @Json.Required Long serviceLevelThresholdSeconds,
      @Json.Required Integer waiting,
      @Json.Required Long longestWaitMillis,
      @Json.Required Long offered,
      @Json.Required Long accepted,
      @Json.Required Long rejected,
      @Json.Required Long offersTimedOut,
      @Json.Required Long answered,
      @Json.Required Long answeredWithinThreshold,
      @Json.Required Long abandoned,
      @Json.Required Long timedOut,
      @Nullable Double serviceLevel,
      @Nullable Long averageSpeedOfAnswerMillis) {

    public static TaskQueueStatsBody of(TaskQueueStats s) {
      return new TaskQueueStatsBody(
          s.queue(),
          s.at().toString(),
          s.since().toString(),
          s.serviceLevelThreshold().toSeconds(),
          s.waiting(),
          s.longestWait().toMillis(),
          s.offered(),
          s.accepted(),
          s.rejected(),
          s.offersTimedOut(),
          s.answered(),
          s.answeredWithinThreshold(),
          s.abandoned(),
          s.timedOut(),
          s.serviceLevel().isPresent() ? s.serviceLevel().getAsDouble() : null,
          s.averageSpeedOfAnswer().map(Duration::toMillis).orElse(null));
    }

    public TaskQueueStats stats() {
      return new TaskQueueStats(
          queue,
          Instant.parse(at),
          Instant.parse(since),
          Duration.ofSeconds(serviceLevelThresholdSeconds),
          waiting,
          Duration.ofMillis(longestWaitMillis),
          offered,
          accepted,
          rejected,
          offersTimedOut,
          answered,
          answeredWithinThreshold,
          abandoned,
          timedOut,
          serviceLevel == null ? OptionalDouble.empty() : OptionalDouble.of(serviceLevel),
          Optional.ofNullable(averageSpeedOfAnswerMillis).map(Duration::ofMillis));
    }
  }

  /** A page-less list of workspaces: {@code {"workspaces": [...]}}. */
  public static ObjectNode workspaces(List<WorkspaceDefinition> all) {
    return Json.tree(Workspaces.of(all));
  }

  // ---- in ----------------------------------------------------------------------------------

  /** The workspace a {@code POST /v1/workspaces} body describes ({@link CreateWorkspace}). */
  public static WorkspaceDefinition create(JsonFields f) {
    return Json.strict(f.node(), f.where(), CreateWorkspace.class).toDefinition();
  }

  /** {@code base} with what a {@code PATCH} body sets of the settings ({@link Settings}). */
  public static WorkspaceSettings settings(JsonFields f, WorkspaceSettings base) {
    return Json.strict(f.node(), f.where(), Settings.class).over(base);
  }

  /** An activity: {@code {"name", "available"}}; {@code name} from the path when given. */
  public static Activity activity(JsonFields f, String name) {
    return Json.strict(f.node(), f.where(), ActivityView.class).toActivity(name);
  }

  /** A task queue from a {@code PUT .../task-queues/{queue}} body ({@link TaskQueueView}). */
  public static TaskQueue queue(JsonFields f, String name) {
    return Json.strict(f.node(), f.where(), TaskQueueView.class).toQueue(name);
  }

  /** Reads what {@link #workspace(WorkspaceDefinition)} wrote (the client). */
  public static WorkspaceDefinition workspace(JsonFields f) {
    return Json.lenient(f.node(), WorkspaceView.class).toDefinition();
  }

  // ---- records -----------------------------------------------------------------------------

  /** A workspace in an answer: its name, its settings, its activities and task queues. */
  public record WorkspaceView(
      @Required String name,
      @Nullable String strategy,
      @Nullable Long offerTimeoutSeconds,
      @Nullable Map<String, Long> wrapUpSeconds,
      @Nullable Long serviceLevelThresholdSeconds,
      @Nullable String defaultActivity,
      @Nullable Integer missLimit,
      @Nullable List<String> autoAccept,
      @Nullable Long statsWindowSeconds,
      @Nullable Long restPeriodSeconds,
      @Nullable String rejectActivity,
      @Nullable String timeoutActivity,
      @Nullable List<ActivityView> activities,
      @Nullable List<TaskQueueView> taskQueues) {

    public static WorkspaceView of(WorkspaceDefinition d) {
      WorkspaceSettings s = d.settings();
      Map<String, Long> wrap = new TreeMap<>();
      s.wrapUp().forEach((channel, w) -> wrap.put(channel, w.toSeconds()));
      return new WorkspaceView(
          d.name(),
          s.strategy().text(),
          s.offerTimeout().toSeconds(),
          wrap,
          s.serviceLevelThreshold().toSeconds(),
          s.defaultActivity(),
          s.missLimit().orElse(null),
          s.autoAccept().map(Settings::sorted).orElse(null),
          s.statsWindow().map(Duration::toSeconds).orElse(null),
          s.restPeriod().toSeconds(),
          s.rejectActivity().orElse(null),
          s.timeoutActivity().orElse(null),
          d.activities().stream().map(ActivityView::of).toList(),
          d.queues().stream().map(TaskQueueView::of).toList());
    }

    public WorkspaceDefinition toDefinition() {
      Settings s =
          new Settings(
              strategy,
              offerTimeoutSeconds,
              wrapUpSeconds,
              serviceLevelThresholdSeconds,
              defaultActivity,
              missLimit,
              autoAccept,
              statsWindowSeconds,
              restPeriodSeconds,
              rejectActivity,
              timeoutActivity);
      return new WorkspaceDefinition(
          name,
          s.over(WorkspaceSettings.DEFAULTS),
          Json.items(activities).stream()
              .map(
                  a ->
                      new Activity(
                          Objects.requireNonNull(a.name(), "activity name"),
                          Boolean.TRUE.equals(a.available())))
              .toList(),
          Json.items(taskQueues).stream()
              .map(q -> q.toQueue(Objects.requireNonNull(q.name(), "task queue name")))
              .toList());
    }
  }

  /** {@code GET /v1/workspaces}. */
  public record Workspaces(@Nullable List<WorkspaceView> workspaces) {

    public static Workspaces of(List<WorkspaceDefinition> all) {
      return new Workspaces(all.stream().map(WorkspaceView::of).toList());
    }

    public List<WorkspaceDefinition> toDefinitions() {
      return Json.items(workspaces).stream().map(WorkspaceView::toDefinition).toList();
    }
  }

  /**
   * A workspace's settings as a body sets them ({@code PATCH /v1/workspaces/{workspace}}): each one
   * given replaces the current; a wrap-up of {@code null} is none. {@code rejectActivity} {@code
   * ""} is none, {@code timeoutActivity} {@code ""} the default (the default activity if it is
   * unavailable, else the first unavailable one); the miss limit, auto-accept channels and
   * statistics window, when a workspace has none of its own, are the server's.
   */
  public record Settings(
      @Nullable String strategy,
      @Nullable Long offerTimeoutSeconds,
      @JsonSetter(contentNulls = Nulls.SET) @Nullable Map<String, Long> wrapUpSeconds,
      @Nullable Long serviceLevelThresholdSeconds,
      @Nullable String defaultActivity,
      @Nullable Integer missLimit,
      @Nullable List<String> autoAccept,
      @Nullable Long statsWindowSeconds,
      @Nullable Long restPeriodSeconds,
      @Nullable String rejectActivity,
      @Nullable String timeoutActivity) {

    /** Only the settings of before refusals were heard (the client's older calls). */
    public Settings(
        @Nullable String strategy,
        @Nullable Long offerTimeoutSeconds,
        @Nullable Map<String, Long> wrapUpSeconds,
        @Nullable Long serviceLevelThresholdSeconds,
        @Nullable String defaultActivity) {
      this(
          strategy,
          offerTimeoutSeconds,
          wrapUpSeconds,
          serviceLevelThresholdSeconds,
          defaultActivity,
          null,
          null,
          null,
          null,
          null,
          null);
    }

    public static Settings of(WorkspaceSettings s) {
      Map<String, Long> wrap = new TreeMap<>();
      s.wrapUp().forEach((c, d) -> wrap.put(c, WireFormat.wholeSeconds("wrapUp", d)));
      return new Settings(
          s.strategy().text(),
          WireFormat.wholeSeconds("offerTimeout", s.offerTimeout()),
          wrap,
          WireFormat.wholeSeconds("serviceLevelThreshold", s.serviceLevelThreshold()),
          s.defaultActivity(),
          s.missLimit().orElse(null),
          s.autoAccept().map(Settings::sorted).orElse(null),
          s.statsWindow().map(w -> WireFormat.wholeSeconds("statsWindow", w)).orElse(null),
          WireFormat.wholeSeconds("restPeriod", s.restPeriod()),
          s.rejectActivity().orElse(""), // "": none, so a PATCH of these settings clears it
          s.timeoutActivity().orElse(""));
    }

    static List<String> sorted(java.util.Set<String> channels) {
      return channels.stream().sorted().toList();
    }

    /** {@code base} with what is given here. */
    public WorkspaceSettings over(WorkspaceSettings base) {
      WorkspaceSettings s = base;
      if (strategy != null) {
        s = s.withStrategy(Strategy.parse("strategy", strategy));
      }
      Optional<Duration> offer = Json.seconds("offerTimeoutSeconds", offerTimeoutSeconds);
      if (offer.isPresent()) {
        s = s.withOfferTimeout(offer.get());
      }
      if (wrapUpSeconds != null) {
        Map<String, Duration> w = new LinkedHashMap<>();
        wrapUpSeconds.forEach(
            (channel, seconds) ->
                w.put(channel, Json.seconds(channel, seconds).orElse(Duration.ZERO)));
        s = s.withWrapUp(w);
      }
      Optional<Duration> level =
          Json.seconds("serviceLevelThresholdSeconds", serviceLevelThresholdSeconds);
      if (level.isPresent()) {
        s = s.withServiceLevelThreshold(level.get());
      }
      if (defaultActivity != null) {
        s = s.withDefaultActivity(defaultActivity);
      }
      if (missLimit != null) {
        s = s.withMissLimit(Optional.of(missLimit));
      }
      if (autoAccept != null) {
        for (String channel : autoAccept) {
          if (channel == null) {
            throw new WireFormatException(
                WireCode.INVALID_ARGUMENT, "field 'autoAccept' must list channels, got a null");
          }
        }
        s = s.withAutoAccept(Optional.of(java.util.Set.copyOf(autoAccept)));
      }
      Optional<Duration> window = Json.seconds("statsWindowSeconds", statsWindowSeconds);
      if (window.isPresent()) {
        s = s.withStatsWindow(window);
      }
      Optional<Duration> rest = Json.seconds("restPeriodSeconds", restPeriodSeconds);
      if (rest.isPresent()) {
        s = s.withRestPeriod(rest.get());
      }
      if (rejectActivity != null) {
        s = s.withRejectActivity(Optional.of(rejectActivity).filter(a -> !a.isEmpty()));
      }
      if (timeoutActivity != null) {
        s = s.withTimeoutActivity(Optional.of(timeoutActivity).filter(a -> !a.isEmpty()));
      }
      return s;
    }
  }

  /**
   * {@code POST /v1/workspaces}: {@code name}, and optionally {@code activities} (none: available,
   * away, offline) and the settings. The default activity, when not given, is {@code offline} if
   * there is one, else the first activity.
   */
  public record CreateWorkspace(
      @Required String name,
      @Nullable List<ActivityView> activities,
      @Nullable String strategy,
      @Nullable Long offerTimeoutSeconds,
      @JsonSetter(contentNulls = Nulls.SET) @Nullable Map<String, Long> wrapUpSeconds,
      @Nullable Long serviceLevelThresholdSeconds,
      @Nullable String defaultActivity,
      @Nullable Integer missLimit,
      @Nullable List<String> autoAccept,
      @Nullable Long statsWindowSeconds,
      @Nullable Long restPeriodSeconds,
      @Nullable String rejectActivity,
      @Nullable String timeoutActivity) {

    public static CreateWorkspace of(
        String name, WorkspaceSettings settings, List<Activity> activities) {
      Settings s = Settings.of(settings);
      return new CreateWorkspace(
          name,
          activities.stream().map(ActivityView::of).toList(),
          s.strategy(),
          s.offerTimeoutSeconds(),
          s.wrapUpSeconds(),
          s.serviceLevelThresholdSeconds(),
          s.defaultActivity(),
          s.missLimit(),
          s.autoAccept(),
          s.statsWindowSeconds(),
          s.restPeriodSeconds(),
          s.rejectActivity(),
          s.timeoutActivity());
    }

    public WorkspaceDefinition toDefinition() {
      List<Activity> all = Json.items(activities).stream().map(a -> a.toActivity(null)).toList();
      if (all.isEmpty()) {
        all = Activity.DEFAULTS;
      }
      String fallback =
          all.stream()
              .map(Activity::name)
              .filter(a -> a.equalsIgnoreCase("offline"))
              .findFirst()
              .orElse(all.get(0).name());
      Settings s =
          new Settings(
              strategy,
              offerTimeoutSeconds,
              wrapUpSeconds,
              serviceLevelThresholdSeconds,
              defaultActivity,
              missLimit,
              autoAccept,
              statsWindowSeconds,
              restPeriodSeconds,
              rejectActivity,
              timeoutActivity);
      return WorkspaceDefinition.create(
          name, s.over(WorkspaceSettings.DEFAULTS.withDefaultActivity(fallback)), all);
    }
  }

  /**
   * An activity, {@code {"name", "available"}}; in a {@code PUT .../activities/{activity}} body the
   * name comes from the path and may be left out.
   */
  public record ActivityView(@Nullable String name, @Nullable Boolean available) {

    public static ActivityView of(Activity a) {
      return new ActivityView(a.name(), a.available());
    }

    /** The activity; {@code path} is the path's name (null: the body must name it). */
    public Activity toActivity(@Nullable String path) {
      if (path == null && name == null) {
        throw new WireFormatException(
            WireCode.INVALID_ARGUMENT, "field 'name' is required in activities[]");
      }
      if (path != null && name != null && !path.equals(name)) {
        throw new WireFormatException(
            WireCode.INVALID_ARGUMENT,
            "field 'name' must be the path's activity '" + path + "' or left out");
      }
      String n = path != null ? path : Objects.requireNonNull(name, "name"); // checked above
      if (available == null) {
        throw new WireFormatException(
            WireCode.INVALID_ARGUMENT,
            "field 'available' (true or false) is required for activity '" + n + "'");
      }
      return new Activity(n, available);
    }
  }

  /**
   * A task queue: in answers with its {@code name}; in a {@code PUT .../task-queues/{queue}} body
   * the name comes from the path and may be left out. Order by wire name ({@code fifo}, {@code
   * priority}), strategy by name.
   */
  public record TaskQueueView(
      @Nullable String name,
      @Nullable String workerExpression,
      @Nullable String order,
      @Nullable String strategy,
      @Nullable Integer maxReservationsPerAgent,
      @Nullable Long serviceLevelThresholdSeconds) {

    public static TaskQueueView of(TaskQueue q) {
      return new TaskQueueView(
          q.name(),
          q.workerExpression().orElse(null),
          WireFormat.wireName(q.order()),
          q.strategy().map(Strategy::text).orElse(null),
          q.maxReservationsPerAgent().orElse(null),
          q.serviceLevelThreshold().map(Duration::toSeconds).orElse(null));
    }

    /** The same queue without its name, as a {@code PUT} body sends it. */
    public TaskQueueView unnamed() {
      return new TaskQueueView(
          null,
          workerExpression,
          order,
          strategy,
          maxReservationsPerAgent,
          serviceLevelThresholdSeconds);
    }

    /** The queue named {@code path} (the path's name; the body's, if given, must be the same). */
    public TaskQueue toQueue(String path) {
      if (name != null && !name.equals(path)) {
        throw new WireFormatException(
            WireCode.INVALID_ARGUMENT,
            "field 'name' must be the path's task queue '" + path + "' or left out");
      }
      return new TaskQueue(
          path,
          Optional.ofNullable(workerExpression),
          order == null
              ? TaskQueue.Order.FIFO
              : WireFormat.enumValue(TaskQueue.Order.class, "order", order),
          Optional.ofNullable(strategy).map(t -> Strategy.parse("strategy", t)),
          Optional.ofNullable(maxReservationsPerAgent),
          Json.seconds("serviceLevelThresholdSeconds", serviceLevelThresholdSeconds));
    }
  }
}
