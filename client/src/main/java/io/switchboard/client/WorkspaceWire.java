package io.switchboard.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.routing.Activity;
import io.switchboard.routing.Strategy;
import io.switchboard.routing.TaskQueue;
import io.switchboard.routing.TaskQueueStats;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;

/**
 * The JSON of the workspace API ({@code /v1/workspaces}, see {@code docs/api.md}), both directions.
 * Durations a caller sets are whole seconds ({@code ...Seconds}); strategies by name ({@code
 * longest-idle}, {@code least-occupied}, {@code highest:<attribute>}). Public for the server; not
 * part of the client API.
 */
public final class WorkspaceWire {

  private WorkspaceWire() {}

  // ---- out ---------------------------------------------------------------------------------

  public static ObjectNode workspace(WorkspaceDefinition d) {
    ObjectNode o = WireFormat.object().put("name", d.name());
    settings(o, d.settings());
    ArrayNode activities = o.putArray("activities");
    d.activities().forEach(a -> activities.add(activity(a)));
    ArrayNode queues = o.putArray("taskQueues");
    d.queues().forEach(q -> queues.add(queue(q)));
    return o;
  }

  private static void settings(ObjectNode o, WorkspaceSettings s) {
    o.put("strategy", s.strategy().text());
    o.put("offerTimeoutSeconds", s.offerTimeout().toSeconds());
    ObjectNode wrap = o.putObject("wrapUpSeconds");
    new TreeMap<>(s.wrapUp()).forEach((channel, d) -> wrap.put(channel, d.toSeconds()));
    o.put("serviceLevelThresholdSeconds", s.serviceLevelThreshold().toSeconds());
    o.put("defaultActivity", s.defaultActivity());
  }

  public static ObjectNode activity(Activity a) {
    return WireFormat.object().put("name", a.name()).put("available", a.available());
  }

  public static ObjectNode queue(TaskQueue q) {
    ObjectNode o = WireFormat.object().put("name", q.name());
    q.workerExpression().ifPresent(e -> o.put("workerExpression", e));
    o.put("order", WireFormat.wireName(q.order()));
    q.strategy().ifPresent(s -> o.put("strategy", s.text()));
    q.maxReservationsPerAgent().ifPresent(n -> o.put("maxReservationsPerAgent", n));
    q.serviceLevelThreshold().ifPresent(d -> o.put("serviceLevelThresholdSeconds", d.toSeconds()));
    return o;
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
      Double serviceLevel,
      Long averageSpeedOfAnswerMillis) {

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
    ObjectNode o = WireFormat.object();
    ArrayNode list = o.putArray("workspaces");
    all.forEach(d -> list.add(workspace(d)));
    return o;
  }

  // ---- in ----------------------------------------------------------------------------------

  /**
   * The workspace a {@code POST /v1/workspaces} body describes: {@code name}, and optionally the
   * settings and {@code activities} (none: available, away, offline). The default activity, when
   * not given, is {@code offline} if there is one, else the first activity.
   */
  public static WorkspaceDefinition create(JsonFields f) {
    String name = f.requiredString("name");
    List<Activity> activities = new ArrayList<>();
    for (JsonNode n : f.array("activities").orElse(List.of())) {
      activities.add(activity(JsonFields.strict(n, "activities[]"), null));
    }
    if (activities.isEmpty()) {
      activities = Activity.DEFAULTS;
    }
    List<Activity> all = activities;
    String fallback =
        all.stream()
            .map(Activity::name)
            .filter(a -> a.equalsIgnoreCase("offline"))
            .findFirst()
            .orElse(all.get(0).name());
    WorkspaceSettings settings =
        settings(f, WorkspaceSettings.DEFAULTS.withDefaultActivity(fallback));
    f.finish();
    return WorkspaceDefinition.create(name, settings, all);
  }

  /** {@code base} with what a body sets of the settings (a PATCH, or a create). */
  public static WorkspaceSettings settings(JsonFields f, WorkspaceSettings base) {
    WorkspaceSettings s = base;
    Optional<String> strategy = f.string("strategy");
    if (strategy.isPresent()) {
      s = s.withStrategy(Strategy.parse("strategy", strategy.get()));
    }
    Optional<Duration> offer = f.seconds("offerTimeoutSeconds");
    if (offer.isPresent()) {
      s = s.withOfferTimeout(offer.get());
    }
    Optional<JsonFields> wrap = f.object("wrapUpSeconds");
    if (wrap.isPresent()) {
      Map<String, Duration> w = new LinkedHashMap<>();
      f.raw("wrapUpSeconds")
          .orElseThrow()
          .fieldNames()
          .forEachRemaining(
              channel -> w.put(channel, wrap.get().seconds(channel).orElse(Duration.ZERO)));
      s = s.withWrapUp(w);
    }
    Optional<Duration> level = f.seconds("serviceLevelThresholdSeconds");
    if (level.isPresent()) {
      s = s.withServiceLevelThreshold(level.get());
    }
    Optional<String> activity = f.string("defaultActivity");
    if (activity.isPresent()) {
      s = s.withDefaultActivity(activity.get());
    }
    return s;
  }

  /** An activity: {@code {"name", "available"}}; {@code name} from the path when given. */
  public static Activity activity(JsonFields f, String name) {
    String n = name != null ? name : f.requiredString("name");
    if (name != null && f.has("name") && !name.equals(f.requiredString("name"))) {
      throw new WireFormatException(
          WireCode.INVALID_ARGUMENT,
          "field 'name' must be the path's activity '" + name + "' or left out");
    }
    Optional<Boolean> available = f.bool("available");
    f.finish();
    return new Activity(
        n,
        available.orElseThrow(
            () ->
                new WireFormatException(
                    WireCode.INVALID_ARGUMENT,
                    "field 'available' (true or false) is required for activity '" + n + "'")));
  }

  /** A task queue from a {@code PUT .../task-queues/{queue}} body. */
  public static TaskQueue queue(JsonFields f, String name) {
    if (f.has("name") && !name.equals(f.requiredString("name"))) {
      throw new WireFormatException(
          WireCode.INVALID_ARGUMENT,
          "field 'name' must be the path's task queue '" + name + "' or left out");
    }
    Optional<String> expression = f.string("workerExpression");
    TaskQueue.Order order =
        f.string("order")
            .map(o -> WireFormat.enumValue(TaskQueue.Order.class, "order", o))
            .orElse(TaskQueue.Order.FIFO);
    Optional<Strategy> strategy = f.string("strategy").map(t -> Strategy.parse("strategy", t));
    var max = f.int32("maxReservationsPerAgent");
    Optional<Duration> level = f.seconds("serviceLevelThresholdSeconds");
    f.finish();
    return new TaskQueue(
        name,
        expression,
        order,
        strategy,
        max.isPresent() ? Optional.of(max.getAsInt()) : Optional.empty(),
        level);
  }

  /** Reads what {@link #workspace(WorkspaceDefinition)} wrote (the client). */
  public static WorkspaceDefinition workspace(JsonFields f) {
    List<Activity> activities = new ArrayList<>();
    for (JsonNode n : f.array("activities").orElse(List.of())) {
      JsonFields a = JsonFields.lenient(n);
      activities.add(new Activity(a.requiredString("name"), a.bool("available").orElse(false)));
    }
    List<TaskQueue> queues = new ArrayList<>();
    for (JsonNode n : f.array("taskQueues").orElse(List.of())) {
      JsonFields q = JsonFields.lenient(n);
      queues.add(queue(q, q.requiredString("name")));
    }
    WorkspaceSettings settings = settings(f, WorkspaceSettings.DEFAULTS);
    return new WorkspaceDefinition(f.requiredString("name"), settings, activities, queues);
  }
}
