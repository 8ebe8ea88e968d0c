package io.switchboard.routing;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * One routing workspace: its definition (settings, activities, task queues) and its router (agents,
 * contacts, reservations, events, statistics). Changes to the definition, and the calls that read
 * it (an agent's activity, a contact's queue), take the workspace's lock, so a queue is never
 * removed while a contact is being routed through it; the router's own calls ({@link #router()}) go
 * straight to it.
 */
public final class Workspace {

  private final Workspaces registry;
  private volatile WorkspaceDefinition definition;
  private volatile Router router;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

  /** Runs {@code change} holding the lock exclusively. */
  private <T> T exclusive(Supplier<T> change) {
    lock.writeLock().lock();
    try {
      return change.get();
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Runs {@code call} sharing the lock with other such calls. */
  private <T> T shared(Supplier<T> call) {
    lock.readLock().lock();
    try {
      return call.get();
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Holds the lock exclusively while {@code run} runs (deleting the workspace). */
  void exclusively(Runnable run) {
    exclusive(
        () -> {
          run.run();
          return null;
        });
  }

  Workspace(Workspaces registry, WorkspaceDefinition definition, Router router) {
    this.registry = registry;
    this.definition = definition;
    this.router = router;
    router.taskQueues(definition.queues());
  }

  public String name() {
    return definition.name();
  }

  public WorkspaceDefinition definition() {
    return definition;
  }

  /** The workspace's router; after {@link #configure} a new one. */
  public Router router() {
    return router;
  }

  private boolean isDefault() {
    return name().equals(Workspaces.DEFAULT);
  }

  // ---- settings ---------------------------------------------------------------------------

  /**
   * Changes the settings: the workspace's router is rebuilt on its stored state with them (offers
   * already made keep their expiry; a call running at that moment may fail with UNAVAILABLE). The
   * workspace {@value Workspaces#DEFAULT} takes its settings from the server's configuration and
   * refuses (INVALID_STATE).
   */
  public WorkspaceDefinition configure(WorkspaceSettings settings) {
    return exclusive(() -> configureLocked(settings));
  }

  private WorkspaceDefinition configureLocked(WorkspaceSettings settings) {
    Objects.requireNonNull(settings, "settings");
    if (isDefault()) {
      throw RoutingException.state(
          "the settings of workspace 'default' come from the server's routing-* configuration"
              + " keys; they cannot be changed through the API");
    }
    WorkspaceDefinition next = definition.withSettings(settings);
    registry.stored(next);
    router.close();
    router = registry.reopen(next);
    router.taskQueues(next.queues());
    definition = next;
    return next;
  }

  // ---- activities -------------------------------------------------------------------------

  /**
   * Adds an activity, or replaces the one of the same name (ignoring case). Changing whether an
   * activity is available while agents are in it is refused (ACTIVITY_IN_USE): move them first.
   */
  public WorkspaceDefinition putActivity(Activity activity) {
    return exclusive(() -> putActivityLocked(activity));
  }

  private WorkspaceDefinition putActivityLocked(Activity activity) {
    Objects.requireNonNull(activity, "activity");
    fixedActivities();
    Optional<Activity> old = definition.activity(activity.name());
    boolean isTimeout =
        definition
            .settings()
            .timeoutActivity()
            .filter(t -> t.equalsIgnoreCase(activity.name()))
            .isPresent();
    if (old.isPresent() && activity.available() && isTimeout) {
      throw new RoutingException(
          RoutingErrorCode.ACTIVITY_IN_USE,
          "activity '"
              + old.get().name()
              + "' is the workspace's timeoutActivity, which must stay unavailable; change that"
              + " first");
    }
    if (old.isPresent() && old.get().available() != activity.available()) {
      List<String> in = agentsIn(old.get().name());
      if (!in.isEmpty()) {
        throw new RoutingException(
            RoutingErrorCode.ACTIVITY_IN_USE,
            "activity '"
                + old.get().name()
                + "' cannot change to available="
                + activity.available()
                + " while agents are in it ("
                + sample(in)
                + ")");
      }
    }
    return store(definition.withActivity(activity));
  }

  /**
   * Removes an activity; refused (ACTIVITY_IN_USE) while agents are in it or it is the workspace's
   * default activity.
   */
  public WorkspaceDefinition removeActivity(String name) {
    return exclusive(() -> removeActivityLocked(name));
  }

  private WorkspaceDefinition removeActivityLocked(String name) {
    fixedActivities();
    Activity activity = activityNamed(name);
    if (activity.name().equalsIgnoreCase(definition.settings().defaultActivity())) {
      throw new RoutingException(
          RoutingErrorCode.ACTIVITY_IN_USE,
          "activity '"
              + activity.name()
              + "' is the workspace's defaultActivity; change that first");
    }
    WorkspaceSettings settings = definition.settings();
    for (var named :
        List.of(
            Map.entry("rejectActivity", settings.rejectActivity()),
            Map.entry("timeoutActivity", settings.timeoutActivity()))) {
      if (named.getValue().filter(a -> a.equalsIgnoreCase(activity.name())).isPresent()) {
        throw new RoutingException(
            RoutingErrorCode.ACTIVITY_IN_USE,
            "activity '"
                + activity.name()
                + "' is the workspace's "
                + named.getKey()
                + "; change that first");
      }
    }
    List<String> in = agentsIn(activity.name());
    if (!in.isEmpty()) {
      throw new RoutingException(
          RoutingErrorCode.ACTIVITY_IN_USE,
          "activity '" + activity.name() + "' has agents in it (" + sample(in) + ")");
    }
    return store(definition.withoutActivity(activity.name()));
  }

  /** The activity named {@code name} (ignoring case); ACTIVITY_NOT_FOUND naming those there are. */
  public Activity activityNamed(String name) {
    Objects.requireNonNull(name, "activity");
    WorkspaceDefinition d = definition;
    return d.activity(name)
        .orElseThrow(
            () ->
                new RoutingException(
                    RoutingErrorCode.ACTIVITY_NOT_FOUND,
                    "activity '"
                        + name
                        + "' does not exist in workspace '"
                        + d.name()
                        + "' (its activities: "
                        + WorkspaceDefinition.names(d.activities())
                        + ")"));
  }

  private void fixedActivities() {
    if (isDefault()) {
      throw RoutingException.state(
          "the activities of workspace 'default' are its presence values (available, away,"
              + " offline); create a workspace for custom activities");
    }
  }

  private List<String> agentsIn(String activity) {
    return router.agents().stream()
        .filter(a -> a.activity().equalsIgnoreCase(activity))
        .map(Agent::id)
        .toList();
  }

  private static String sample(List<String> ids) {
    return ids.size() <= 5
        ? String.join(", ", ids)
        : String.join(", ", ids.subList(0, 5)) + " and " + (ids.size() - 5) + " more";
  }

  // ---- task queues ------------------------------------------------------------------------

  /**
   * Adds a task queue, or replaces the one of the same name. Contacts already routed through it
   * keep the requirements they were given; new ones get the new worker expression. Its order,
   * strategy, cap per agent and service-level threshold apply at once, to waiting contacts too
   * ({@link Router#taskQueues}).
   */
  public WorkspaceDefinition putQueue(TaskQueue queue) {
    return exclusive(() -> putQueueLocked(queue));
  }

  private WorkspaceDefinition putQueueLocked(TaskQueue queue) {
    Objects.requireNonNull(queue, "queue");
    return store(definition.withQueue(queue));
  }

  /** Removes a task queue; refused (TASK_QUEUE_IN_USE) while contacts routed through it live. */
  public WorkspaceDefinition removeQueue(String name) {
    return exclusive(() -> removeQueueLocked(name));
  }

  private WorkspaceDefinition removeQueueLocked(String name) {
    TaskQueue queue = queueNamed(name);
    List<String> using = definition.workflowsUsing(queue.name());
    if (!using.isEmpty()) {
      throw new RoutingException(
          RoutingErrorCode.TASK_QUEUE_IN_USE,
          "task queue '"
              + name
              + "' is a target of workflow"
              + (using.size() == 1 ? " '" : "s '")
              + String.join("', '", using)
              + "'; change or remove "
              + (using.size() == 1 ? "it" : "them")
              + " first");
    }
    int live = router.liveContacts(queue.name());
    if (live > 0) {
      throw new RoutingException(
          RoutingErrorCode.TASK_QUEUE_IN_USE,
          "task queue '"
              + name
              + "' has "
              + live
              + " live contact"
              + (live == 1 ? "" : "s")
              + " (queued, offered, assigned or in wrap-up); remove it once they finished");
    }
    return store(definition.withoutQueue(name));
  }

  /** The task queue named {@code name}; TASK_QUEUE_NOT_FOUND. */
  public TaskQueue queueNamed(String name) {
    Objects.requireNonNull(name, "queue");
    WorkspaceDefinition d = definition;
    return d.queue(name)
        .orElseThrow(
            () ->
                new RoutingException(
                    RoutingErrorCode.TASK_QUEUE_NOT_FOUND,
                    "task queue '" + name + "' does not exist in workspace '" + d.name() + "'"));
  }

  /** The live figures of task queue {@code name} (TASK_QUEUE_NOT_FOUND). */
  public TaskQueueStats queueStats(String name) {
    return shared(() -> router.taskQueueStats(queueNamed(name).name()));
  }

  // ---- workflows --------------------------------------------------------------------------

  /**
   * Adds a workflow, or replaces the one of the same name (TASK_QUEUE_NOT_FOUND if a target names a
   * queue the workspace lacks). Contacts already routed by it keep their route until their
   * attributes change. A workflow with an assignment callback in a workspace without a callback
   * secret (the workspace {@value Workspaces#DEFAULT}, or one made before callbacks) makes one:
   * {@link PutWorkflow#newSecret} holds it, the one moment it can be shown.
   */
  public PutWorkflow putWorkflow(Workflow workflow) {
    Objects.requireNonNull(workflow, "workflow");
    return exclusive(
        () -> {
          WorkspaceDefinition next = definition.withWorkflow(workflow);
          Optional<CallbackSecret> made = Optional.empty();
          if (workflow.assignmentCallback().isPresent() && next.callbackSecret().isEmpty()) {
            made = Optional.of(CallbackSecret.generate());
            next = next.withCallbackSecret(made);
          }
          return new PutWorkflow(store(next), made);
        });
  }

  /**
   * What {@link #putWorkflow} did.
   *
   * @param definition the workspace's definition after the change
   * @param newSecret the callback secret the change made, if it made one
   */
  public record PutWorkflow(WorkspaceDefinition definition, Optional<CallbackSecret> newSecret) {}

  /**
   * Replaces the workspace's callback secret with a new one, which it returns: callbacks are signed
   * with it from now on (a callback already being retried keeps the old signature until its next
   * attempt). The only way to learn the secret of the workspace {@value Workspaces#DEFAULT} before
   * a workflow names a callback.
   */
  public CallbackSecret rotateCallbackSecret() {
    return exclusive(
        () -> {
          CallbackSecret secret = CallbackSecret.generate();
          store(definition.withCallbackSecret(Optional.of(secret)));
          return secret;
        });
  }

  /**
   * Removes a workflow (WORKFLOW_NOT_FOUND). Contacts it routed keep their route; a change of their
   * attributes then no longer re-evaluates it.
   */
  public WorkspaceDefinition removeWorkflow(String name) {
    return exclusive(
        () -> {
          Workflow w = workflowNamed(name);
          return store(definition.withoutWorkflow(w.name()));
        });
  }

  /** The workflow named {@code name}; WORKFLOW_NOT_FOUND naming those there are. */
  public Workflow workflowNamed(String name) {
    Objects.requireNonNull(name, "workflow");
    WorkspaceDefinition d = definition;
    return d.workflow(name)
        .orElseThrow(
            () ->
                new RoutingException(
                    RoutingErrorCode.WORKFLOW_NOT_FOUND,
                    "workflow '"
                        + name
                        + "' does not exist in workspace '"
                        + d.name()
                        + "' (its workflows: "
                        + (d.workflows().isEmpty()
                            ? "none"
                            : String.join(
                                ", ", d.workflows().stream().map(Workflow::name).toList()))
                        + ")"));
  }

  private WorkspaceDefinition store(WorkspaceDefinition next) {
    registry.stored(next);
    boolean refusalsMoved =
        !next.timeoutActivity().equals(definition.timeoutActivity())
            || !next.settings()
                .rejectActivity()
                .flatMap(next::activity)
                .equals(definition.settings().rejectActivity().flatMap(definition::activity));
    if (refusalsMoved && !isDefault()) {
      // the router holds the activities refusals move agents to: rebuild it, as configure does
      router.close();
      router = registry.reopen(next);
    }
    definition = next;
    router.taskQueues(next.queues());
    return next;
  }

  // ---- agents and contacts ----------------------------------------------------------------

  /**
   * Creates an agent in {@code activity}, or the workspace's default activity (ACTIVITY_NOT_FOUND
   * if there is no such activity). The presence in {@code agent} is ignored: the activity sets it.
   */
  public Agent createAgent(NewAgent agent, Optional<String> activity) {
    return shared(() -> createAgentLocked(agent, activity));
  }

  private Agent createAgentLocked(NewAgent agent, Optional<String> activity) {
    Objects.requireNonNull(agent, "agent");
    Activity a = activityNamed(activity.orElse(definition.settings().defaultActivity()));
    return router.createAgent(agent.in(a));
  }

  /** Moves an agent to the activity named {@code name} (ACTIVITY_NOT_FOUND). */
  public Agent activity(String agentId, String name) {
    return shared(() -> activityLocked(agentId, name));
  }

  private Agent activityLocked(String agentId, String name) {
    return router.activity(agentId, activityNamed(name));
  }

  /**
   * Queues a contact, through task queue {@code queue} if given (TASK_QUEUE_NOT_FOUND): its
   * requirements, and those of its escalation steps, are the queue's worker expression AND its own.
   */
  public Contact createContact(NewContact contact, Optional<String> queue) {
    return shared(() -> createContactLocked(contact, queue));
  }

  /**
   * Queues a contact through task queue {@code queue} or workflow {@code workflow}, at most one of
   * them (INVALID_ARGUMENT for both). Through a workflow (WORKFLOW_NOT_FOUND), the contact's
   * attributes choose a filter and it waits in the filter's targets in turn ({@link Workflow}).
   */
  public Contact createContact(
      NewContact contact, Optional<String> queue, Optional<String> workflow) {
    Objects.requireNonNull(workflow, "workflow");
    if (workflow.isEmpty()) {
      return createContact(contact, queue);
    }
    if (queue.isPresent()) {
      throw RoutingException.invalid(
          "give a task 'queue' or a 'workflow', not both, for contact '"
              + contact.id()
              + "' (got queue '"
              + queue.get()
              + "' and workflow '"
              + workflow.get()
              + "')");
    }
    return shared(
        () ->
            router.createContact(
                WorkflowRoute.route(definition, workflowNamed(workflow.get()), contact)));
  }

  private Contact createContactLocked(NewContact contact, Optional<String> queue) {
    Objects.requireNonNull(contact, "contact");
    if (queue.isEmpty()) {
      return router.createContact(contact);
    }
    TaskQueue q = queueNamed(queue.get());
    return router.createContact(contact.through(q.name(), own -> combine(q, own)));
  }

  /**
   * A queue's worker expression AND {@code own}: the requirement of a contact routed through it.
   */
  private static Optional<String> combine(TaskQueue q, Optional<String> own) {
    Optional<String> expression = q.workerExpression();
    return expression.isEmpty()
        ? own
        : Optional.of(
            own.map(r -> "(" + expression.get() + ") AND (" + r + ")").orElse(expression.get()));
  }

  /**
   * Changes a waiting contact ({@link Router#updateContact}); new requirements of a contact routed
   * through a task queue are combined with the queue's worker expression, as at creation.
   */
  public Contact updateContact(String contactId, ContactUpdate update) {
    Objects.requireNonNull(update, "update");
    return shared(
        () -> {
          ContactUpdate u = update;
          Contact current = router.contact(contactId);
          if (current.workflow().isPresent()) {
            Optional<Contact> rerouted = reevaluate(current, u);
            if (rerouted.isPresent()) {
              return rerouted.get();
            }
          }
          Optional<String> queue = current.queue();
          if (u.requirements().isPresent() && queue.isPresent()) {
            Optional<String> own = u.requirements().filter(r -> !r.isBlank());
            u = u.withRequirements(combine(queueNamed(queue.get()), own).orElse(""));
          }
          return router.updateContact(contactId, u);
        });
  }

  /**
   * A contact routed by a workflow whose attributes change goes through the workflow again ({@link
   * Router#reroute}), keeping its arrival; its requirements come from the targets, so an update of
   * them is refused. Empty when the update changes only the priority, or the workflow is gone.
   */
  private Optional<Contact> reevaluate(Contact current, ContactUpdate u) {
    String workflow = current.workflow().orElseThrow();
    if (u.requirements().isPresent()) {
      throw RoutingException.invalid(
          "contact '"
              + current.id()
              + "' is routed by workflow '"
              + workflow
              + "', whose targets set its requirements; change its attributes instead");
    }
    Optional<Workflow> w = definition.workflow(workflow);
    if (u.attributes().isEmpty() || w.isEmpty()) {
      return Optional.empty();
    }
    NewContact again =
        new NewContact(
            current.id(),
            current.channel(),
            u.attributes().get(),
            Optional.empty(),
            u.priority().orElse(current.priority()),
            List.of(),
            Optional.empty());
    return Optional.of(
        router.reroute(current.id(), WorkflowRoute.route(definition, w.get(), again)));
  }

  /**
   * Transfers an assigned contact to task queue {@code queue} (TASK_QUEUE_NOT_FOUND): it waits
   * under the queue's worker expression AND {@code requirements} ({@link Router#transfer}).
   */
  public Contact transfer(String contactId, String queue, Optional<String> requirements) {
    Objects.requireNonNull(requirements, "requirements");
    return shared(
        () -> {
          TaskQueue q = queueNamed(queue);
          return router.transfer(contactId, q.name(), combine(q, requirements));
        });
  }
}
