package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.queue.ExpiryAction;
import io.switchboard.queue.Message;
import io.switchboard.queue.MoveCheck;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * A redrive task asks the engine's {@link MoveCheck} before each message it moves: a refused move
 * stops the task, failed with the refusal as its reason, and the refused message and every one not
 * moved yet stay in the dead-letter queue, in their order. The engine asks it too before it
 * dead-letters a message on its own ({@link MoveCheck#deadLetterRefusal}): a refused message stays
 * in its queue, nothing lost, and moves once the check allows it.
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

  /**
   * Allows moves while {@code allowed}; records each dead-letter move asked as "source->target".
   */
  private static MoveCheck deadLetterCheck(AtomicBoolean allowed, List<String> asked) {
    return new MoveCheck() {
      @Override
      public @Nullable String refusal(String taskId, String source, String target) {
        return null;
      }

      @Override
      public @Nullable String deadLetterRefusal(String source, String target, String messageId) {
        asked.add(source + "->" + target);
        return allowed.get() ? null : "no sending to " + target;
      }
    };
  }

  private List<Message> receiveFor10s(String queue) {
    return engine.receive(
        queue, ReceiveRequest.builder().maxMessages(10).visibilityTimeout(seconds(10)).build());
  }

  @Test
  void aLeaseEndAfterTheLastReceive_refusedTheMove_leavesTheMessageAvailable_withItsCount() {
    create("dlq");
    create("q", config().deadLetter("dlq", 1));
    AtomicBoolean allowed = new AtomicBoolean(false);
    List<String> asked = new ArrayList<>();
    engine.checkMoves(deadLetterCheck(allowed, asked));
    send("q", "1");
    assertEquals(List.of("1"), bodies(receiveFor10s("q")));
    clock.advanceSeconds(11);
    assertEquals(List.of("q->dlq"), asked);
    List<Message> left = browseAll("q");
    assertEquals(List.of("1"), bodies(left), "the refused message stays in its queue");
    assertEquals(1, left.get(0).receiveCount(), "with its receive count");
    assertEquals(0, engine.stats("dlq").depth());

    List<Message> again = receiveFor10s("q");
    assertEquals(List.of("1"), bodies(again), "it is available again");
    engine.release("q", receipt(again.get(0)), Duration.ZERO, false); // refused at release too
    assertEquals(List.of("q->dlq", "q->dlq"), asked);
    assertEquals(2, browseAll("q").get(0).receiveCount());

    allowed.set(true);
    assertEquals(List.of("1"), bodies(receiveFor10s("q")));
    clock.advanceSeconds(11);
    assertEquals(0, engine.stats("q").depth());
    assertEquals(List.of("1"), receiveBodies("dlq"), "allowed again, it moves at its lease end");
  }

  @Test
  void anExpiry_refusedTheMove_putsItOffAMinute_andTheMessageMovesOnceAllowed_acrossARestart() {
    create("dlq");
    create("q", config().onExpire(ExpiryAction.DEAD_LETTER).deadLetter("dlq", 5));
    AtomicBoolean allowed = new AtomicBoolean(false);
    List<String> asked = new ArrayList<>();
    engine.checkMoves(deadLetterCheck(allowed, asked));
    engine.send("q", NewMessage.builder("1").timeToLive(seconds(30)).build());
    clock.advanceSeconds(31);
    assertEquals(List.of("q->dlq"), asked);
    assertEquals(List.of("1"), bodies(browseAll("q")), "the refused message stays");
    assertEquals(0, engine.stats("dlq").depth());
    clock.advanceSeconds(30);
    assertEquals(List.of("q->dlq"), asked, "asked again only a minute later");

    QueueEngine again = track(restart(engine));
    engine = again;
    assertEquals(List.of("1"), bodies(browseAll("q")), "still there after a restart");
    allowed.set(true);
    again.checkMoves(deadLetterCheck(allowed, asked));
    clock.advanceSeconds(31);
    assertEquals(0, again.stats("q").depth());
    assertEquals(List.of("1"), receiveBodies("dlq"));
  }

  @Test
  void aDeadLetterOnRequest_isNotAskedAbout() {
    create("dlq");
    create("q", config().deadLetter("dlq", 5));
    List<String> asked = new ArrayList<>();
    engine.checkMoves(deadLetterCheck(new AtomicBoolean(false), asked));
    engine.deadLetterById("q", send("q", "1").id());
    assertEquals(List.of(), asked, "the request was checked by whoever made it");
    assertEquals(List.of("1"), receiveBodies("dlq"));
  }
}
