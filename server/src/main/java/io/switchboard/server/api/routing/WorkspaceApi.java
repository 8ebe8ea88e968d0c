package io.switchboard.server.api.routing;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.client.wire.Json;
import io.switchboard.client.wire.WorkflowWire;
import io.switchboard.client.wire.WorkspaceWire;
import io.switchboard.routing.CallbackSecret;
import io.switchboard.routing.Workflow;
import io.switchboard.routing.Workspace;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.Workspaces;
import io.switchboard.server.http.Call;
import io.switchboard.server.http.Guard;
import io.switchboard.server.http.HttpError;
import io.switchboard.server.http.Route;
import io.switchboard.server.security.OutboundAddresses;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The workspace API under {@code /v1/workspaces} ({@code docs/api.md}, "Workspaces"): workspaces,
 * their activities, task queues and workflows; and, through {@link RoutingApi#workspaceRoutes()},
 * the agents, contacts, reservations and statistics within each. Every route needs {@code
 * routing:supervisor} on the workspace it names (on the body's {@code name} to create one, on
 * {@code *} to list them).
 */
public final class WorkspaceApi {

  private final Supplier<Workspaces> workspaces;
  private final OutboundAddresses outbound;

  /**
   * @param outbound where a workflow's assignment callback may send ({@link OutboundAddresses}),
   *     checked as the workflow is put
   */
  public WorkspaceApi(Supplier<Workspaces> workspaces, OutboundAddresses outbound) {
    this.workspaces = workspaces;
    this.outbound = outbound;
  }

  /**
   * The workspace routes, then those within a workspace ({@link RoutingApi#workspaceRoutes}), in
   * the order they are matched.
   */
  public List<Route> routes(RoutingApi routing) {
    Guard sup = Guard.supervisor(c -> c.routeParameter("workspace"));
    List<Route> routes = new ArrayList<>();
    routes.addAll(
        List.of(
            Route.declare("POST", "/v1/workspaces", "createWorkspace")
                .guard(Guard.supervisor(c -> c.bodyText("name").orElse("*")))
                .body(WorkspaceWire.CreateWorkspace.class)
                .to(this::create),
            Route.declare("GET", "/v1/workspaces", "listWorkspaces")
                .guard(Guard.supervisor(c -> "*"))
                .noBody()
                .to(this::list),
            Route.declare("GET", "/v1/workspaces/{workspace}", "getWorkspace")
                .guard(sup)
                .noBody()
                .to(this::get),
            Route.declare("PATCH", "/v1/workspaces/{workspace}", "updateWorkspace")
                .guard(sup)
                .body(WorkspaceWire.Settings.class)
                .to(this::update),
            Route.declare("DELETE", "/v1/workspaces/{workspace}", "deleteWorkspace")
                .guard(sup)
                .noBody()
                .to(this::delete),
            Route.declare(
                    "POST",
                    "/v1/workspaces/{workspace}/callback-secret/rotate",
                    "rotateCallbackSecret")
                .guard(sup)
                .noBody()
                .to(this::rotateSecret),
            Route.declare("GET", "/v1/workspaces/{workspace}/activities", "listActivities")
                .guard(sup)
                .noBody()
                .to(this::activities),
            Route.declare("PUT", "/v1/workspaces/{workspace}/activities/{activity}", "putActivity")
                .guard(sup)
                .body(WorkspaceWire.ActivityView.class)
                .to(this::putActivity),
            Route.declare(
                    "DELETE", "/v1/workspaces/{workspace}/activities/{activity}", "deleteActivity")
                .guard(sup)
                .noBody()
                .to(this::deleteActivity),
            Route.declare("GET", "/v1/workspaces/{workspace}/task-queues", "listTaskQueues")
                .guard(sup)
                .noBody()
                .to(this::queues),
            Route.declare("GET", "/v1/workspaces/{workspace}/task-queues/{queue}", "getTaskQueue")
                .guard(sup)
                .noBody()
                .to(this::queue),
            Route.declare("PUT", "/v1/workspaces/{workspace}/task-queues/{queue}", "putTaskQueue")
                .guard(sup)
                .body(WorkspaceWire.TaskQueueView.class)
                .to(this::putQueue),
            Route.declare(
                    "GET",
                    "/v1/workspaces/{workspace}/task-queues/{queue}/stats",
                    "getTaskQueueStats")
                .guard(sup)
                .noBody()
                .to(this::queueStats),
            Route.declare(
                    "DELETE", "/v1/workspaces/{workspace}/task-queues/{queue}", "deleteTaskQueue")
                .guard(sup)
                .noBody()
                .to(this::deleteQueue),
            Route.declare("GET", "/v1/workspaces/{workspace}/workflows", "listWorkflows")
                .guard(sup)
                .noBody()
                .to(this::workflows),
            Route.declare("GET", "/v1/workspaces/{workspace}/workflows/{workflow}", "getWorkflow")
                .guard(sup)
                .noBody()
                .to(this::workflow),
            Route.declare("PUT", "/v1/workspaces/{workspace}/workflows/{workflow}", "putWorkflow")
                .guard(sup)
                .body(WorkflowWire.WorkflowBody.class)
                .to(this::putWorkflow),
            Route.declare(
                    "DELETE", "/v1/workspaces/{workspace}/workflows/{workflow}", "deleteWorkflow")
                .guard(sup)
                .noBody()
                .to(this::deleteWorkflow)));
    routes.addAll(routing.workspaceRoutes());
    return List.copyOf(routes);
  }

  private Workspace workspace(Call c) {
    return workspaces.get().get(c.path("workspace"));
  }

  private void create(Call c) {
    WorkspaceDefinition d = c.body(WorkspaceWire.CreateWorkspace.class).toDefinition();
    WorkspaceDefinition created = workspaces.get().create(d).definition();
    c.json(201, withSecret(Json.tree(WorkspaceWire.WorkspaceView.of(created)), created));
  }

  /**
   * {@code answer} with the workspace's callback secret as {@code callbackSecret}: only in the
   * answers that made it (creation, rotation, the first workflow with a callback), never after.
   */
  private static ObjectNode withSecret(ObjectNode answer, WorkspaceDefinition d) {
    d.callbackSecret().ifPresent(s -> answer.put("callbackSecret", s.value()));
    return answer;
  }

  /** Makes the workspace a new callback secret and shows it, this once. */
  private void rotateSecret(Call c) {
    Workspace w = workspace(c);
    CallbackSecret secret = w.rotateCallbackSecret();
    ObjectNode answer = Json.tree(Map.of("workspace", w.name()));
    answer.put("callbackSecret", secret.value());
    c.json(answer);
  }

  private void list(Call c) {
    c.json(
        WorkspaceWire.Workspaces.of(
            workspaces.get().list().stream().map(Workspace::definition).toList()));
  }

  private void get(Call c) {
    c.json(WorkspaceWire.WorkspaceView.of(workspace(c).definition()));
  }

  /** Changes settings: any of strategy, offer timeout, wrap-up, service level, default activity. */
  private void update(Call c) {
    Workspace w = workspace(c);
    var settings = c.body(WorkspaceWire.Settings.class).over(w.definition().settings());
    c.json(WorkspaceWire.WorkspaceView.of(w.configure(settings)));
  }

  private void delete(Call c) {
    workspaces.get().delete(c.path("workspace"));
    c.noContent();
  }

  private void activities(Call c) {
    var list = workspace(c).definition().activities().stream();
    c.json(Map.of("activities", list.map(WorkspaceWire.ActivityView::of).toList()));
  }

  private void putActivity(Call c) {
    Workspace w = workspace(c);
    var activity = c.body(WorkspaceWire.ActivityView.class).toActivity(c.path("activity"));
    w.putActivity(activity);
    c.json(WorkspaceWire.ActivityView.of(activity));
  }

  private void deleteActivity(Call c) {
    workspace(c).removeActivity(c.path("activity"));
    c.noContent();
  }

  private void queues(Call c) {
    var list = workspace(c).definition().queues().stream();
    c.json(Map.of("taskQueues", list.map(WorkspaceWire.TaskQueueView::of).toList()));
  }

  private void queue(Call c) {
    c.json(WorkspaceWire.TaskQueueView.of(workspace(c).queueNamed(c.path("queue"))));
  }

  private void putQueue(Call c) {
    Workspace w = workspace(c);
    var queue = c.body(WorkspaceWire.TaskQueueView.class).toQueue(c.path("queue"));
    w.putQueue(queue);
    c.json(WorkspaceWire.TaskQueueView.of(queue));
  }

  private void queueStats(Call c) {
    c.json(WorkspaceWire.TaskQueueStatsBody.of(workspace(c).queueStats(c.path("queue"))));
  }

  private void deleteQueue(Call c) {
    workspace(c).removeQueue(c.path("queue"));
    c.noContent();
  }

  private void workflows(Call c) {
    c.json(WorkflowWire.Workflows.of(workspace(c).definition().workflows()));
  }

  private void workflow(Call c) {
    c.json(WorkflowWire.WorkflowBody.of(workspace(c).workflowNamed(c.path("workflow"))));
  }

  private void putWorkflow(Call c) {
    Workspace w = workspace(c);
    Workflow workflow = c.body(WorkflowWire.WorkflowBody.class).toWorkflow(c.path("workflow"));
    if (workflow.assignmentCallback().isPresent()) {
      try {
        outbound.checkConfigured(
            "assignmentCallbackUrl", workflow.assignmentCallback().get().uri());
      } catch (OutboundAddresses.Refused e) {
        // the code a malformed callback URL gets (ErrorAnswers#status)
        throw new HttpError(400, "INVALID_CALLBACK_URL", String.valueOf(e.getMessage()));
      }
    }
    Workspace.PutWorkflow put = w.putWorkflow(workflow);
    ObjectNode answer = Json.tree(WorkflowWire.WorkflowBody.of(workflow));
    put.newSecret().ifPresent(s -> answer.put("callbackSecret", s.value()));
    c.json(answer);
  }

  private void deleteWorkflow(Call c) {
    workspace(c).removeWorkflow(c.path("workflow"));
    c.noContent();
  }
}
