package io.switchboard.server.auth;

import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.DeadLetterPolicy;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageEvent;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.MoveCheck;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Page;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueCreation;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.QueueLimits;
import io.switchboard.queue.QueueOverview;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import io.switchboard.queue.SendResult;
import io.switchboard.queue.spi.SystemRecords;
import io.switchboard.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The engine as one key uses it in one request ({@link MoveRights#forKey}): what would move
 * messages into a second queue, now or later, first checks that the key has {@code queue:send}
 * there, and is refused, having changed nothing, when it has not. Setting a dead-letter target
 * records the key as its configurer, whose grants the moves the engine makes there on its own are
 * checked against ({@link MoveRights#deadLetterRefusal}); receiving and sending need nothing on the
 * target. Everything else passes straight through.
 */
final class KeyedEngine implements QueueEngine {

  private static final String SEE = " (docs/security.md, \"Moving messages between queues\")";

  private final QueueEngine engine;
  private final Principal key;
  private final MoveRights.Refusal refusal;

  /** True when the key may send to every queue: no check can fail, none is made. */
  private final boolean sendsAnywhere;

  KeyedEngine(QueueEngine engine, Principal key, MoveRights.Refusal refusal) {
    this.engine = engine;
    this.key = key;
    this.refusal = refusal;
    this.sendsAnywhere = key.may(Access.queue(Action.QUEUE_SEND, "*"));
  }

  // ---- the checks --------------------------------------------------------------------------

  /** Refuses unless the key may send to {@code target}; {@code why} says what the request does. */
  private void needSend(String target, String why) {
    Access needed = Access.queue(Action.QUEUE_SEND, target);
    if (sendsAnywhere || key.may(needed)) {
      return;
    }
    throw refusal.refuse(
        needed, "access key " + key.describe() + " lacks " + needed.describe() + ", " + why + SEE);
  }

  /** The dead-letter target of {@code queue} other than itself, if it has one. */
  private Optional<String> target(String queue) {
    return target(queue, engine.queue(queue).config());
  }

  private static Optional<String> target(String queue, QueueConfig config) {
    return config.deadLetter().map(DeadLetterPolicy::target).filter(t -> !t.equals(queue));
  }

  /** Naming a dead-letter target in a queue's configuration. */
  private void checkNamed(String queue, QueueConfig config) {
    target(queue, config)
        .ifPresent(
            t ->
                needSend(
                    t,
                    "which this request names as the dead-letter target of queue '"
                        + queue
                        + "': naming a queue as a dead-letter target needs queue:send on it;"
                        + " nothing was changed"));
  }

  /** A request that moves one message of {@code queue} to its dead-letter target now. */
  private void checkDeadLetter(String queue) {
    if (sendsAnywhere) {
      return;
    }
    target(queue)
        .ifPresent(
            t ->
                needSend(
                    t,
                    "the dead-letter target of queue '"
                        + queue
                        + "': dead-lettering moves the message there; it stays in '"
                        + queue
                        + "'"));
  }

  // ---- queues ------------------------------------------------------------------------------

  @Override
  public QueueCreation ensureQueue(String name, QueueConfig config) {
    checkNamed(name, config);
    QueueCreation creation = engine.ensureQueue(name, config);
    if (creation.created()) {
      MoveRights.configured(engine, name, target(name, config), key);
    }
    return creation;
  }

  @Override
  public QueueInfo createQueue(String name, QueueConfig config) {
    checkNamed(name, config);
    QueueInfo created = engine.createQueue(name, config);
    MoveRights.configured(engine, name, target(name, config), key);
    return created;
  }

  /** Thrown out of an update's change, which may run more than once, and refused once outside. */
  private static final class Named extends RuntimeException {
    private static final long serialVersionUID = 1L;

    final String target;

    Named(String target) {
      super(target, null, false, false);
      this.target = target;
    }
  }

  /**
   * A new dead-letter target needs queue:send on it and makes the key its configurer; keeping the
   * target keeps its configurer, removing it forgets the configurer.
   */
  @Override
  public QueueInfo updateQueue(String name, UnaryOperator<QueueConfig> change) {
    // the target before the change, as the change that took effect saw it (it may run again)
    AtomicReference<Optional<String>> before = new AtomicReference<>(Optional.empty());
    try {
      QueueInfo updated =
          engine.updateQueue(
              name,
              current -> {
                QueueConfig next = change.apply(current);
                Optional<String> target = target(name, next);
                before.set(target(name, current));
                // a target the queue has already is no new right; a new one needs queue:send on it
                if (target.isPresent()
                    && !target.equals(target(name, current))
                    && !sendsAnywhere
                    && !key.may(Access.queue(Action.QUEUE_SEND, target.get()))) {
                  throw new Named(target.get());
                }
                return next;
              });
      Optional<String> after = target(name, updated.config());
      if (!after.equals(before.get())) {
        MoveRights.configured(engine, name, after, key);
      }
      return updated;
    } catch (Named named) {
      needSend(
          named.target,
          "which this request names as the dead-letter target of queue '"
              + name
              + "': naming a queue as a dead-letter target needs queue:send on it; nothing was"
              + " changed");
      throw new IllegalStateException("refused above", named);
    }
  }

  @Override
  public QueueInfo updateQueue(String name, QueueConfig config) {
    return updateQueue(name, current -> config);
  }

  @Override
  public void deleteQueue(String name) {
    engine.deleteQueue(name);
    MoveRights.configured(engine, name, Optional.empty(), key);
  }

  @Override
  public QueueInfo queue(String name) {
    return engine.queue(name);
  }

  @Override
  public List<QueueInfo> listQueues(String prefix) {
    return engine.listQueues(prefix);
  }

  // ---- messages ----------------------------------------------------------------------------

  @Override
  public SendResult send(String queue, NewMessage message) {
    return engine.send(queue, message);
  }

  @Override
  public List<SendResult> sendBatch(String queue, List<NewMessage> messages) {
    return engine.sendBatch(queue, messages);
  }

  /**
   * Needs nothing on the dead-letter target: the moves there are checked against the key that set
   * it ({@link MoveRights#deadLetterRefusal}), so a consumer needs only queue:receive on its queue.
   */
  @Override
  public List<Message> receive(String queue, ReceiveRequest request) {
    return engine.receive(queue, request);
  }

  @Override
  public void ack(String queue, String receipt) {
    engine.ack(queue, receipt);
  }

  @Override
  public List<Optional<QueueException>> ackAll(String queue, List<String> receipts) {
    return engine.ackAll(queue, receipts);
  }

  @Override
  public void release(String queue, String receipt, Duration delay, boolean toBack) {
    engine.release(queue, receipt, delay, toBack);
  }

  @Override
  public Message extend(String queue, String receipt, Duration visibilityTimeout) {
    return engine.extend(queue, receipt, visibilityTimeout);
  }

  @Override
  public Message extendAnyLease(String queue, String receipt, Duration visibilityTimeout) {
    return engine.extendAnyLease(queue, receipt, visibilityTimeout);
  }

  @Override
  public void fail(String queue, String receipt) {
    engine.fail(queue, receipt);
  }

  @Override
  public void deadLetter(String queue, String receipt) {
    checkDeadLetter(queue);
    engine.deadLetter(queue, receipt);
  }

  @Override
  public void deadLetterById(String queue, String id) {
    checkDeadLetter(queue);
    engine.deadLetterById(queue, id);
  }

  @Override
  public Message update(String queue, String id, MessageUpdate update) {
    return engine.update(queue, id, update);
  }

  @Override
  public Message touch(String queue, String id) {
    return engine.touch(queue, id);
  }

  @Override
  public void remove(String queue, String id) {
    engine.remove(queue, id);
  }

  @Override
  public Message get(String queue, String id) {
    return engine.get(queue, id);
  }

  @Override
  public Page browse(String queue, BrowseRequest request) {
    return engine.browse(queue, request);
  }

  @Override
  public long purge(String queue) {
    return engine.purge(queue);
  }

  @Override
  public QueueStats stats(String queue) {
    return engine.stats(queue);
  }

  // ---- moves out of a dead-letter queue ----------------------------------------------------

  /**
   * Checks a named destination now; the key is recorded as the task's starter, so that each move
   * the task makes (to the destination, or back to each message's source) is checked again when it
   * is made ({@link MoveRights#refusal}).
   */
  @Override
  public RedriveTask startRedrive(String source, RedriveRequest request) {
    request
        .destination()
        .filter(d -> !d.equals(source))
        .ifPresent(
            d ->
                needSend(
                    d,
                    "the destination this request names: a redrive moves messages there; no task"
                        + " was started"));
    RedriveTask task = MoveRights.starting(key, () -> engine.startRedrive(source, request));
    MoveRights.started(engine, task.id(), key);
    return task;
  }

  @Override
  public List<RedriveTask> redriveTasks(String source) {
    return engine.redriveTasks(source);
  }

  @Override
  public RedriveTask cancelRedrive(String taskId) {
    return engine.cancelRedrive(taskId);
  }

  @Override
  public Message restore(String deadLetterQueue, String id) {
    if (!sendsAnywhere) {
      engine
          .get(deadLetterQueue, id)
          .deadLetterSource()
          .filter(s -> !s.equals(deadLetterQueue))
          .ifPresent(
              s ->
                  needSend(
                      s,
                      "the queue message "
                          + id
                          + " was dead-lettered from: restoring moves it there; it stays in '"
                          + deadLetterQueue
                          + "'"));
    }
    return engine.restore(deadLetterQueue, id);
  }

  // ---- the rest passes through ---------------------------------------------------------------

  @Override
  public void onMessageEvent(Consumer<? super MessageEvent> listener) {
    engine.onMessageEvent(listener);
  }

  @Override
  public void checkMoves(MoveCheck check) {
    engine.checkMoves(check);
  }

  @Override
  public Clock clock() {
    return engine.clock();
  }

  @Override
  public Duration longestLockHold() {
    return engine.longestLockHold();
  }

  @Override
  public long mostExaminedInOneLockHold() {
    return engine.mostExaminedInOneLockHold();
  }

  @Override
  public SystemRecords systemRecords() {
    return engine.systemRecords();
  }

  @Override
  public QueueLimits limits() {
    return engine.limits();
  }

  @Override
  public long queuedBytes() {
    return engine.queuedBytes();
  }

  @Override
  public long queuedBytes(String queue) {
    return engine.queuedBytes(queue);
  }

  @Override
  public QueueOverview overview(int top) {
    return engine.overview(top);
  }

  @Override
  public List<QueueInfo> listQueues(String prefix, String after, int limit) {
    return engine.listQueues(prefix, after, limit);
  }

  /** The request does not own the server's engine: closing its view closes nothing. */
  @Override
  public void close() {}
}
