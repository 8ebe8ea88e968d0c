package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The indexes behind a workspace's lookups on every contact routed by a workflow (the task queue of
 * each target by name, the filter a contact's attributes choose, with its expression parsed once):
 * they answer as the linear searches they replaced, and the definition and workflow stay equal to
 * ones built from plain lists, and unchangeable.
 */
class WorkspaceLookupTest {

  private static final List<Activity> ACTIVITIES =
      List.of(new Activity("Ready", true), new Activity("offline", false));

  @Test
  void aThousandQueues_eachFoundByName_unknownEmpty_equalToPlainLists() {
    List<TaskQueue> queues = new ArrayList<>();
    for (int i = 0; i < WorkspaceDefinition.MAX_QUEUES; i++) {
      queues.add(TaskQueue.named("q" + i).withWorkerExpression("skills HAS 's" + i + "'"));
    }
    WorkspaceDefinition d =
        new WorkspaceDefinition("centre", WorkspaceSettings.DEFAULTS, ACTIVITIES, queues);

    for (TaskQueue q : queues) {
      assertEquals(Optional.of(q), d.queue(q.name()));
    }
    assertEquals(Optional.empty(), d.queue("Q1"), "names are case-sensitive, as before");
    assertEquals(Optional.empty(), d.queue("nope"));
    assertEquals(queues, d.queues());
    assertEquals(List.copyOf(queues).hashCode(), d.queues().hashCode());
    assertEquals(
        new WorkspaceDefinition("centre", WorkspaceSettings.DEFAULTS, ACTIVITIES, queues), d);
    assertEquals(Optional.empty(), d.withoutQueue("q7").queue("q7"));
    assertEquals(
        Optional.of("skills HAS 'x'"),
        d.withQueue(TaskQueue.named("q7").withWorkerExpression("skills HAS 'x'"))
            .queue("q7")
            .orElseThrow()
            .workerExpression());
    assertThrows(UnsupportedOperationException.class, () -> d.queues().add(queues.get(0)));
  }

  @Test
  void theFirstMatchingFilterTakesTheContact_asBefore() {
    List<WorkflowTarget> targets = List.of(WorkflowTarget.queue("general"));
    WorkflowFilter es = new WorkflowFilter("es", "language = 'es'", targets);
    WorkflowFilter billingEs =
        new WorkflowFilter(
            "billing-es",
            "topic = 'billing' AND language = 'es'",
            List.of(
                WorkflowTarget.queue("billing").withTimeout(Duration.ofSeconds(30)),
                WorkflowTarget.queue("general")));
    Workflow w = new Workflow("support", List.of(es, billingEs), targets, Optional.empty());

    assertEquals(
        Optional.of(es), w.filterFor(Map.of("topic", "billing", "language", "es")), "first wins");
    assertEquals(Optional.empty(), w.filterFor(Map.of("language", "fr")));
    assertEquals(List.of(es, billingEs), w.filters());
    assertEquals(new Workflow("support", List.of(es, billingEs), targets, Optional.empty()), w);
    WorkspaceDefinition d =
        new WorkspaceDefinition(
            "centre",
            WorkspaceSettings.DEFAULTS,
            ACTIVITIES,
            List.of(TaskQueue.named("billing"), TaskQueue.named("general")),
            List.of(w));
    assertEquals(Optional.of(w), d.workflow("support"));
    assertEquals(Optional.empty(), d.workflow("Support"));
    assertThrows(UnsupportedOperationException.class, () -> w.filters().remove(0));
  }
}
