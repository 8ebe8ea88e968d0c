package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.queue.MoveCheck;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A redrive task asks the engine's {@link MoveCheck} before each message it moves: a refused move
 * stops the task, failed with the refusal as its reason, and the refused message and every one not
 * moved yet stay in the dead-letter queue, in their order.
 */
public abstract class MoveCheckContract extends EngineContract {

  /** "q" dead-letters into "dlq"; {@code bodies} are sent to "q" and dead-lettered at once. */
  private void deadLettered(String... bodies) {
    create("dlq");
    create("q", config().deadLetter("dlq", 1));
    create("elsewhere");
    sendAll("q", bodies).forEach(id -> engine.deadLetterById("q", id));
  }

  @Test
  void aMoveRefusedAtTheStart_failsTheTask_andEverythingStaysInOrder() {
    deadLettered("1", "2", "3");
    List<String> asked = new ArrayList<>();
    engine.checkMoves(
        (task, source, target) -> {
          asked.add(source + "->" + target);
          return "no sending to " + target;
        });
    RedriveTask task = engine.startRedrive("dlq", RedriveRequest.toSources());
    assertEquals(RedriveTask.Status.FAILED, task.status());
    assertEquals(0, task.moved());
    assertEquals("no sending to q", task.failureReason().orElseThrow());
    assertEquals(List.of("dlq->q"), asked.stream().distinct().toList());
    assertEquals(List.of("1", "2", "3"), bodies(browseAll("dlq")));
    assertEquals(0, engine.stats("q").depth());
    assertEquals(RedriveTask.Status.FAILED, engine.redriveTasks("dlq").get(0).status());
  }

  @Test
  void aMoveRefusedWhileTheTaskRuns_stopsIt_withWhatItMovedBeforeKept() {
    deadLettered("1", "2", "3", "4", "5");
    AtomicBoolean allowed = new AtomicBoolean(true);
    engine.checkMoves((task, source, target) -> allowed.get() ? null : "revoked");
    RedriveTask task = engine.startRedrive("dlq", RedriveRequest.to("elsewhere").maxPerSecond(2));
    assertEquals(RedriveTask.Status.RUNNING, task.status());
    assertEquals(2, task.moved());
    allowed.set(false);
    clock.advanceSeconds(5);
    RedriveTask stopped = engine.redriveTasks("dlq").get(0);
    assertEquals(RedriveTask.Status.FAILED, stopped.status());
    assertEquals(2, stopped.moved());
    assertEquals("revoked", stopped.failureReason().orElseThrow());
    assertEquals(List.of("1", "2"), receiveBodies("elsewhere"));
    assertEquals(List.of("3", "4", "5"), bodies(browseAll("dlq")));
    allowed.set(true);
    clock.advanceSeconds(5);
    assertEquals(3, engine.stats("dlq").depth(), "a failed task does not resume");
  }

  @Test
  void whatARefusedTaskLeft_isStillThereAfterARestart_inItsPlace() {
    deadLettered("1", "2", "3");
    AtomicBoolean allowed = new AtomicBoolean(true);
    engine.checkMoves((task, source, target) -> allowed.get() ? null : "revoked");
    engine.startRedrive("dlq", RedriveRequest.to("elsewhere").maxPerSecond(1));
    allowed.set(false);
    clock.advanceSeconds(5);
    QueueEngine again = track(restart(engine));
    engine = again;
    assertEquals(List.of("2", "3"), bodies(browseAll("dlq")));
    assertEquals(List.of("1"), bodies(browseAll("elsewhere")));
    RedriveTask task = again.redriveTasks("dlq").get(0);
    assertEquals(RedriveTask.Status.FAILED, task.status());
    assertEquals("revoked", task.failureReason().orElseThrow());
    clock.advanceSeconds(5);
    assertEquals(2, again.stats("dlq").depth(), "a failed task does not resume after a restart");
  }

  @Test
  void withTheCheckAllowing_aTaskMovesEverything() {
    deadLettered("1", "2");
    engine.checkMoves(MoveCheck.NONE);
    RedriveTask task = engine.startRedrive("dlq", RedriveRequest.toSources());
    assertEquals(RedriveTask.Status.COMPLETED, task.status());
    assertEquals(List.of("1", "2"), receiveBodies("q"));
  }
}
