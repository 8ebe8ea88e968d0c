package io.switchboard.client;

import io.switchboard.client.wire.Json;
import io.switchboard.client.wire.JsonFields;
import io.switchboard.client.wire.WorkflowWire;
import io.switchboard.client.wire.WorkspaceWire;
import io.switchboard.routing.Activity;
import io.switchboard.routing.CallbackSecret;
import io.switchboard.routing.TaskQueue;
import io.switchboard.routing.TaskQueueStats;
import io.switchboard.routing.Workflow;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceSettings;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The workspaces of a Switchboard server ({@code /v1/workspaces}), from {@link
 * SwitchboardClient#workspaces()}; the agents and contacts within one through {@link
 * SwitchboardClient#workspace(String)}. Errors are {@link SwitchboardException}s with the router's
 * codes ({@code WORKSPACE_NOT_FOUND}, {@code TASK_QUEUE_IN_USE}, ...).
 *
 * <pre>{@code
 * client.workspaces().create("centre", WorkspaceSettings.DEFAULTS, List.of(
 *     new Activity("Ready", true), new Activity("Lunch", false), new Activity("offline", false)));
 * client.workspaces().putQueue("centre", TaskQueue.named("billing")
 *     .withWorkerExpression("skills HAS 'billing'"));
 * client.workspace("centre").createContact(NewContact.builder("c1", "voice").build(), "billing");
 * }</pre>
 */
public final class WorkspacesClient {

  private final SwitchboardClient client;

  WorkspacesClient(SwitchboardClient client) {
    this.client = client;
  }

  /**
   * Creates a workspace; no activities: available, away, offline. The definition returned holds the
   * workspace's {@link WorkspaceDefinition#callbackSecret() callback secret}, which the server
   * shows only in this answer ({@code docs/routing.md}, "Assignment callbacks"): keep it.
   */
  public WorkspaceDefinition create(
      String name, WorkspaceSettings settings, List<Activity> activities) {
    var body = WorkspaceWire.CreateWorkspace.of(name, settings, activities);
    JsonFields answer = client.call("POST", "/v1/workspaces", body);
    return WorkspaceWire.workspace(answer).withCallbackSecret(secret(answer));
  }

  private static Optional<CallbackSecret> secret(JsonFields answer) {
    var secret = answer.node().get("callbackSecret");
    return secret == null || !secret.isTextual()
        ? Optional.empty()
        : Optional.of(new CallbackSecret(secret.asText()));
  }

  /**
   * Gives the workspace a new callback secret and returns it: the only time it is shown. The server
   * signs assignment callbacks with it from now on.
   */
  public CallbackSecret rotateCallbackSecret(String workspace) {
    JsonFields answer = client.call("POST", path(workspace) + "/callback-secret/rotate", null);
    return secret(answer)
        .orElseThrow(
            () ->
                new SwitchboardException(
                    "MALFORMED_ANSWER", "the rotation's answer has no callbackSecret", null));
  }

  public WorkspaceDefinition get(String name) {
    return WorkspaceWire.workspace(client.call("GET", path(name), null));
  }

  public List<WorkspaceDefinition> list() {
    return client
        .call("GET", "/v1/workspaces", null, WorkspaceWire.Workspaces.class)
        .toDefinitions();
  }

  /** Replaces the workspace's settings (its router restarts on its stored state). */
  public WorkspaceDefinition configure(String name, WorkspaceSettings settings) {
    return WorkspaceWire.workspace(
        client.call("PATCH", path(name), WorkspaceWire.Settings.of(settings)));
  }

  public void delete(String name) {
    client.call("DELETE", path(name), null);
  }

  public Activity putActivity(String workspace, Activity activity) {
    var body = new WorkspaceWire.ActivityView(null, activity.available());
    client.call("PUT", path(workspace) + "/activities/" + Paths.encode(activity.name()), body);
    return activity;
  }

  public void removeActivity(String workspace, String activity) {
    client.call("DELETE", path(workspace) + "/activities/" + Paths.encode(activity), null);
  }

  public TaskQueue putQueue(String workspace, TaskQueue queue) {
    var body = WorkspaceWire.TaskQueueView.of(queue).unnamed();
    client.call("PUT", queuePath(workspace, queue.name()), body);
    return queue;
  }

  public TaskQueue queue(String workspace, String queue) {
    var answer =
        client.call("GET", queuePath(workspace, queue), null, WorkspaceWire.TaskQueueView.class);
    return answer.toQueue(Objects.requireNonNull(answer.name(), "task queue name"));
  }

  /** The task queue's live figures ({@code GET .../task-queues/{queue}/stats}). */
  public TaskQueueStats queueStats(String workspace, String queue) {
    JsonFields f = client.call("GET", queuePath(workspace, queue) + "/stats", null);
    return Json.lenient(f.node(), WorkspaceWire.TaskQueueStatsBody.class).stats();
  }

  public void removeQueue(String workspace, String queue) {
    client.call("DELETE", queuePath(workspace, queue), null);
  }

  /**
   * Adds a workflow to a workspace, or replaces the one of the same name. When its assignment
   * callback gives a workspace without one (such as {@code default}) its first callback secret, the
   * server shows it in the answer, which this method does not return: {@link #rotateCallbackSecret}
   * then makes one to keep.
   */
  public Workflow putWorkflow(String workspace, Workflow workflow) {
    var body = WorkflowWire.WorkflowBody.of(workflow);
    return client
        .call(
            "PUT", workflowPath(workspace, workflow.name()), body, WorkflowWire.WorkflowBody.class)
        .toWorkflow(workflow.name());
  }

  public Workflow workflow(String workspace, String workflow) {
    return client
        .call("GET", workflowPath(workspace, workflow), null, WorkflowWire.WorkflowBody.class)
        .toWorkflow(workflow);
  }

  /** The workspace's workflows, by name. */
  public List<Workflow> workflows(String workspace) {
    var answer =
        client.call("GET", path(workspace) + "/workflows", null, WorkflowWire.Workflows.class);
    return Json.items(answer.workflows()).stream()
        .map(w -> w.toWorkflow(Objects.requireNonNull(w.name(), "workflow name")))
        .toList();
  }

  public void removeWorkflow(String workspace, String workflow) {
    client.call("DELETE", workflowPath(workspace, workflow), null);
  }

  private static String workflowPath(String workspace, String workflow) {
    return path(workspace) + "/workflows/" + Paths.encode(workflow);
  }

  private static String path(String workspace) {
    return "/v1/workspaces/" + Paths.encode(workspace);
  }

  private static String queuePath(String workspace, String queue) {
    return path(workspace) + "/task-queues/" + Paths.encode(queue);
  }
}
