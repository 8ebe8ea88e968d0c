package io.switchboard.client.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.switchboard.routing.Activity;
import io.switchboard.routing.TaskQueue;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The workspace API's records: answers read back as written, requests refused as before. */
class WorkspaceWireTest {

  private static <T> T strict(String json, Class<T> type) {
    return Json.strict(json.getBytes(StandardCharsets.UTF_8), "request body", type);
  }

  @Test
  void workspace_readsBackAsWritten() {
    WorkspaceSettings settings =
        WorkspaceSettings.DEFAULTS
            .withOfferTimeout(Duration.ofSeconds(15))
            .withWrapUp(Map.of("voice", Duration.ofSeconds(30)))
            .withDefaultActivity("Offline");
    WorkspaceDefinition d =
        WorkspaceDefinition.create(
                "support",
                settings,
                List.of(new Activity("Ready", true), new Activity("Offline", false)))
            .withQueue(
                new TaskQueue(
                    "sales",
                    Optional.of("lang = 'es'"),
                    TaskQueue.Order.FIFO,
                    Optional.empty(),
                    Optional.of(2),
                    Optional.of(Duration.ofSeconds(40))));
    byte[] json = Json.bytes(WorkspaceWire.WorkspaceView.of(d));
    assertEquals(d, Json.lenient(json, WorkspaceWire.WorkspaceView.class).toDefinition());
    var create = WorkspaceWire.CreateWorkspace.of("support", settings, d.activities());
    assertEquals(
        WorkspaceDefinition.create("support", settings, d.activities()),
        Json.strict(Json.bytes(create), "request body", WorkspaceWire.CreateWorkspace.class)
            .toDefinition());
  }

  @Test
  void activityAndTaskQueue_refusedWithTheirWords() {
    var noAvailable =
        assertThrows(
            WireFormatException.class,
            () -> strict("{}", WorkspaceWire.ActivityView.class).toActivity("Lunch"));
    assertEquals(
        "field 'available' (true or false) is required for activity 'Lunch'",
        noAvailable.getMessage());
    var otherName =
        assertThrows(
            WireFormatException.class,
            () -> strict("{\"name\":\"b\"}", WorkspaceWire.TaskQueueView.class).toQueue("a"));
    assertEquals(
        "field 'name' must be the path's task queue 'a' or left out", otherName.getMessage());
    var unknown =
        assertThrows(
            WireFormatException.class,
            () -> strict("{\"x\":1}", WorkspaceWire.TaskQueueView.class));
    assertEquals(
        "unknown field 'x' in request body; known fields: name, workerExpression, order,"
            + " strategy, maxReservationsPerAgent, serviceLevelThresholdSeconds",
        unknown.getMessage());
  }
}
