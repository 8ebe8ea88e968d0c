package io.switchboard.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What a workspace is, apart from its agents and contacts: its name, settings, activities and task
 * queues. Immutable; a change makes a new definition, checked whole.
 *
 * @param name {@code [a-z0-9][a-z0-9_-]{0,63}}
 * @param settings the router settings of the workspace
 * @param activities at least one, at least one of them available, names unique ignoring case; the
 *     settings' default activity among them
 * @param queues task queues, names unique; at most {@value #MAX_QUEUES}
 * @param workflows workflows, names unique, each naming only queues of the workspace; at most
 *     {@value #MAX_WORKFLOWS}
 * @param callbackSecret the key the server signs the workspace's assignment callbacks with; made
 *     when the workspace is created (or when a workflow first names a callback), never shown after
 */
public record WorkspaceDefinition(
    String name,
    WorkspaceSettings settings,
    List<Activity> activities,
    List<TaskQueue> queues,
    List<Workflow> workflows,
    Optional<CallbackSecret> callbackSecret) {

  /** Workspace names: lower case, so they are safe as directory names and grant patterns. */
  public static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,63}");

  public static final int MAX_ACTIVITIES = 100;
  public static final int MAX_QUEUES = 1000;
  public static final int MAX_WORKFLOWS = 1000;

  /** A definition without workflows. */
  public WorkspaceDefinition(
      String name, WorkspaceSettings settings, List<Activity> activities, List<TaskQueue> queues) {
    this(name, settings, activities, queues, List.of());
  }

  /** A definition without a callback secret. */
  public WorkspaceDefinition(
      String name,
      WorkspaceSettings settings,
      List<Activity> activities,
      List<TaskQueue> queues,
      List<Workflow> workflows) {
    this(name, settings, activities, queues, workflows, Optional.empty());
  }

  public WorkspaceDefinition {
    checkName(name);
    Objects.requireNonNull(settings, "settings");
    activities = List.copyOf(activities);
    queues = NamedList.of(queues, TaskQueue::name);
    workflows = NamedList.of(workflows, Workflow::name);
    Objects.requireNonNull(callbackSecret, "callbackSecret");
    if (activities.isEmpty() || activities.size() > MAX_ACTIVITIES) {
      throw RoutingException.invalid(
          "a workspace needs 1.."
              + MAX_ACTIVITIES
              + " activities, got "
              + activities.size()
              + " in workspace '"
              + name
              + "'");
    }
    List<String> seen = new ArrayList<>();
    for (Activity a : activities) {
      String key = a.name().toLowerCase(Locale.ROOT);
      if (seen.contains(key)) {
        throw RoutingException.invalid(
            "activity names must be unique ignoring case, got '" + a.name() + "' twice");
      }
      seen.add(key);
    }
    if (activities.stream().noneMatch(Activity::available)) {
      throw RoutingException.invalid(
          "a workspace needs an activity with available=true, got none in workspace '"
              + name
              + "'");
    }
    if (find(activities, settings.defaultActivity()).isEmpty()) {
      throw new RoutingException(
          RoutingErrorCode.ACTIVITY_NOT_FOUND,
          "defaultActivity '"
              + settings.defaultActivity()
              + "' is not an activity of workspace '"
              + name
              + "' ("
              + names(activities)
              + ")");
    }
    Optional<String> reject = settings.rejectActivity();
    if (reject.isPresent() && find(activities, reject.get()).isEmpty()) {
      throw new RoutingException(
          RoutingErrorCode.ACTIVITY_NOT_FOUND,
          "rejectActivity '"
              + reject.get()
              + "' is not an activity of workspace '"
              + name
              + "' ("
              + names(activities)
              + ")");
    }
    Optional<String> timeout = settings.timeoutActivity();
    if (timeout.isPresent()) {
      Optional<Activity> a = find(activities, timeout.get());
      if (a.isEmpty()) {
        throw new RoutingException(
            RoutingErrorCode.ACTIVITY_NOT_FOUND,
            "timeoutActivity '"
                + timeout.get()
                + "' is not an activity of workspace '"
                + name
                + "' ("
                + names(activities)
                + ")");
      }
      if (a.get().available()) {
        throw RoutingException.invalid(
            "timeoutActivity must be an activity with available=false, got '"
                + a.get().name()
                + "', which is available in workspace '"
                + name
                + "'");
      }
    }
    if (queues.size() > MAX_QUEUES) {
      throw RoutingException.invalid(
          "a workspace has at most " + MAX_QUEUES + " task queues, got " + queues.size());
    }
    List<String> queueNames = new ArrayList<>();
    for (TaskQueue q : queues) {
      if (queueNames.contains(q.name())) {
        throw RoutingException.invalid(
            "task queue names must be unique, got '" + q.name() + "' twice");
      }
      queueNames.add(q.name());
    }
    checkWorkflows(name, queueNames, workflows);
  }

  private static void checkWorkflows(
      String workspace, List<String> queueNames, List<Workflow> workflows) {
    if (workflows.size() > MAX_WORKFLOWS) {
      throw RoutingException.invalid(
          "a workspace has at most " + MAX_WORKFLOWS + " workflows, got " + workflows.size());
    }
    List<String> names = new ArrayList<>();
    for (Workflow w : workflows) {
      if (names.contains(w.name())) {
        throw RoutingException.invalid(
            "workflow names must be unique, got '" + w.name() + "' twice");
      }
      names.add(w.name());
      for (String queue : w.queues()) {
        if (!queueNames.contains(queue)) {
          throw new RoutingException(
              RoutingErrorCode.TASK_QUEUE_NOT_FOUND,
              "workflow '"
                  + w.name()
                  + "' names task queue '"
                  + queue
                  + "', which does not exist in workspace '"
                  + workspace
                  + "' (its task queues: "
                  + (queueNames.isEmpty() ? "none" : String.join(", ", queueNames))
                  + ")");
        }
      }
    }
  }

  /** A new workspace: given settings, activities (none: {@link Activity#DEFAULTS}), no queues. */
  public static WorkspaceDefinition create(
      String name, WorkspaceSettings settings, List<Activity> activities) {
    return new WorkspaceDefinition(
        name, settings, activities.isEmpty() ? Activity.DEFAULTS : activities, List.of());
  }

  static String checkName(String name) {
    Objects.requireNonNull(name, "workspace name");
    if (!NAME.matcher(name).matches()) {
      throw RoutingException.invalid(
          "workspace name must match " + NAME.pattern() + ", got '" + clip(name) + "'");
    }
    return name;
  }

  private static String clip(String s) {
    return s.length() > 80 ? s.substring(0, 80) + "..." : s;
  }

  /**
   * The activity an agent moves to after the miss limit: the settings' {@code timeoutActivity},
   * else the default activity if it is unavailable, else the first unavailable activity; empty when
   * the workspace has no unavailable activity (then the miss limit moves nobody).
   */
  public Optional<Activity> timeoutActivity() {
    Optional<String> named = settings.timeoutActivity();
    if (named.isPresent()) {
      return activity(named.get());
    }
    Optional<Activity> d = activity(settings.defaultActivity());
    if (d.isPresent() && !d.get().available()) {
      return d;
    }
    return activities.stream().filter(a -> !a.available()).findFirst();
  }

  /**
   * Sets the settings ({@link WorkspaceSettings#applyTo}) and the activities that refusals move
   * agents to on {@code builder}: the reject activity, if any, and the timeout activity (with no
   * unavailable activity, a miss limit of 0).
   */
  public Router.Builder applyTo(Router.Builder builder) {
    settings.applyTo(builder);
    settings.rejectActivity().flatMap(this::activity).ifPresent(builder::rejectActivity);
    Optional<Activity> timeout = timeoutActivity();
    if (timeout.isPresent()) {
      builder.missActivity(timeout.get());
    } else {
      builder.missLimit(0);
    }
    return builder;
  }

  /** The activity named {@code name} (ignoring case). */
  public Optional<Activity> activity(String name) {
    return find(activities, name);
  }

  /** The task queue named {@code name}. */
  public Optional<TaskQueue> queue(String name) {
    return ((NamedList<TaskQueue>) queues).named(name);
  }

  /** The workflow named {@code name}. */
  public Optional<Workflow> workflow(String name) {
    return ((NamedList<Workflow>) workflows).named(name);
  }

  /** The workflows whose targets name task queue {@code queue}. */
  public List<String> workflowsUsing(String queue) {
    return workflows.stream().filter(w -> w.queues().contains(queue)).map(Workflow::name).toList();
  }

  private static Optional<Activity> find(List<Activity> activities, String name) {
    return activities.stream().filter(a -> a.name().equalsIgnoreCase(name)).findFirst();
  }

  static String names(List<Activity> activities) {
    return String.join(", ", activities.stream().map(Activity::name).toList());
  }

  public WorkspaceDefinition withSettings(WorkspaceSettings s) {
    return new WorkspaceDefinition(name, s, activities, queues, workflows, callbackSecret);
  }

  /** With {@code activity} added, or replacing the one of the same name (ignoring case). */
  public WorkspaceDefinition withActivity(Activity activity) {
    List<Activity> list = new ArrayList<>(activities);
    list.removeIf(a -> a.name().equalsIgnoreCase(activity.name()));
    list.add(activity);
    return new WorkspaceDefinition(name, settings, list, queues, workflows, callbackSecret);
  }

  public WorkspaceDefinition withoutActivity(String activity) {
    List<Activity> list = new ArrayList<>(activities);
    list.removeIf(a -> a.name().equalsIgnoreCase(activity));
    return new WorkspaceDefinition(name, settings, list, queues, workflows, callbackSecret);
  }

  /** With {@code queue} added, or replacing the one of the same name. */
  public WorkspaceDefinition withQueue(TaskQueue queue) {
    List<TaskQueue> list = new ArrayList<>(queues);
    int at = -1;
    for (int i = 0; i < list.size(); i++) {
      if (list.get(i).name().equals(queue.name())) {
        at = i;
      }
    }
    if (at >= 0) {
      list.set(at, queue);
    } else {
      list.add(queue);
    }
    return new WorkspaceDefinition(name, settings, activities, list, workflows, callbackSecret);
  }

  public WorkspaceDefinition withoutQueue(String queue) {
    List<TaskQueue> list = new ArrayList<>(queues);
    list.removeIf(q -> q.name().equals(queue));
    return new WorkspaceDefinition(name, settings, activities, list, workflows, callbackSecret);
  }

  /** With {@code workflow} added, or replacing the one of the same name (keeping its place). */
  public WorkspaceDefinition withWorkflow(Workflow workflow) {
    List<Workflow> list = new ArrayList<>(workflows);
    int at = -1;
    for (int i = 0; i < list.size(); i++) {
      if (list.get(i).name().equals(workflow.name())) {
        at = i;
      }
    }
    if (at >= 0) {
      list.set(at, workflow);
    } else {
      list.add(workflow);
    }
    return new WorkspaceDefinition(name, settings, activities, queues, list, callbackSecret);
  }

  public WorkspaceDefinition withoutWorkflow(String workflow) {
    List<Workflow> list = new ArrayList<>(workflows);
    list.removeIf(w -> w.name().equals(workflow));
    return new WorkspaceDefinition(name, settings, activities, queues, list, callbackSecret);
  }

  /** With {@code secret} as the callback secret (empty: none). */
  public WorkspaceDefinition withCallbackSecret(Optional<CallbackSecret> secret) {
    return new WorkspaceDefinition(name, settings, activities, queues, workflows, secret);
  }
}
