package io.switchboard.tck.model;

import static io.switchboard.tck.model.ModelScenario.DEAD_LETTER_QUEUES;
import static io.switchboard.tck.model.ModelScenario.WORK_QUEUES;

import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Page;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import io.switchboard.queue.SendResult;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One seed of the randomized test: draws operations, runs each on the engine and on the model, and
 * compares answers, refusals and afterwards every queue's stats and full contents.
 */
final class ModelRun {

  /** A receipt the engine issued, with the model lease it stands for. */
  private record Receipt(String queue, String handle, ReferenceQueueModel.Lease lease) {}

  /** A browse cursor the engine issued, with the request it continues and the model position. */
  private record Continuation(
      String queue,
      String handle,
      ReferenceQueueModel.Cursor cursor,
      @Nullable AttributeFilter filter,
      boolean includeInvisible,
      int limit) {}

  private static final int TRACE = 25;

  private final long seed;
  private final Random random;
  private final ManualClock clock;
  private final QueueEngine engine;
  private final ReferenceQueueModel model;
  private final ModelScenario scenario;
  private final List<Receipt> receipts = new ArrayList<>();
  private final Map<String, ReferenceQueueModel.Lease> leaseByHandle = new HashMap<>();
  private final List<String> knownIds = new ArrayList<>();
  private final Map<String, Long> lastSequence = new HashMap<>();
  private final List<String> taskIds = new ArrayList<>();
  private final ArrayDeque<String> trace = new ArrayDeque<>();
  private final long start;
  private @Nullable Continuation continuation;
  private @Nullable String op;
  private final Map<String, Set<String>> families = new HashMap<>();
  private final Set<String> touched = new HashSet<>();
  private boolean clockMoved;

  ModelRun(long seed, ManualClock clock, QueueEngine engine) {
    this(seed, clock, engine, false);
  }

  /**
   * With {@code indexed}, the standard queues index the attributes the filters read and the filters
   * that can be selectors are ({@link AttributeFilter#toEngine(boolean)}).
   */
  ModelRun(long seed, ManualClock clock, QueueEngine engine, boolean indexed) {
    this.seed = seed;
    this.random = new Random(seed);
    this.clock = clock;
    this.engine = engine;
    this.model = new ReferenceQueueModel(clock.millis());
    this.scenario = new ModelScenario(random, indexed);
    this.start = clock.millis();
    scenario
        .configs()
        .forEach(
            (name, config) -> {
              families.computeIfAbsent(name, k -> new HashSet<>()).add(name);
              config
                  .deadLetter()
                  .ifPresent(
                      policy -> {
                        families.get(name).add(policy.target());
                        families.computeIfAbsent(policy.target(), k -> new HashSet<>()).add(name);
                      });
            });
  }

  void run(int steps) {
    run(steps, 1);
  }

  /**
   * Runs {@code steps} steps, comparing after each the queues it touched ({@link #touch}), and
   * every queue after a step that moved the clock (what fell due anywhere), every {@code
   * fullCheckEvery} steps and after the last: a disagreement elsewhere, which no operation caused,
   * is still found, at most that many steps late.
   */
  void run(int steps, int fullCheckEvery) {
    scenario
        .configs()
        .forEach(
            (name, config) -> {
              engine.createQueue(name, config);
              model.createQueue(name, config);
            });
    for (int step = 0; step < steps; step++) {
      boolean full = false;
      try {
        touched.clear();
        clockMoved = false;
        step();
        full = clockMoved || (step + 1) % fullCheckEvery == 0 || step == steps - 1;
        List<String> names = model.queueNames();
        ModelChecks.compareQueues(
            engine, model, full ? names : names.stream().filter(touched::contains).toList());
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(
            "model test failed at seed "
                + seed
                + ", step "
                + step
                + " ("
                + op
                + "): "
                + e.getMessage()
                + (full && fullCheckEvery > 1
                    ? "\n(found comparing every queue, done every "
                        + fullCheckEvery
                        + " steps: it may have begun before this step; rerun with"
                        + " -Dswitchboard.model.fullCheckEvery=1 to find where)"
                    : "")
                + "\nrerun: -Dswitchboard.model.seed="
                + seed
                + "\nlast operations:\n  "
                + String.join("\n  ", trace)
                + "\nmodel (delivery order, body/state/priority/receives):\n"
                + model.dump(),
            e);
      }
    }
  }

  private void step() {
    int r = random.nextInt(108);
    if (r < 14) {
      String q = scenario.pick(WORK_QUEUES);
      send(q, List.of(scenario.message(q)));
    } else if (r < 20) {
      String q = scenario.pick(WORK_QUEUES);
      send(q, scenario.batch(q));
    } else if (r < 37) {
      receive(
          random.nextInt(6) == 0 ? scenario.pick(DEAD_LETTER_QUEUES) : scenario.pick(WORK_QUEUES));
    } else if (r < 48) {
      ack();
    } else if (r < 53) {
      release();
    } else if (r < 57) {
      extend();
    } else if (r < 59) {
      leaseEnding("fail", engine::fail, model::fail);
    } else if (r < 61) {
      leaseEnding("deadLetter", engine::deadLetter, model::deadLetter);
    } else if (r < 63) {
      byId("deadLetterById", engine::deadLetterById, model::deadLetterById);
    } else if (r < 67) {
      update();
    } else if (r < 70) {
      byIdView("touch", engine::touch, model::touch);
    } else if (r < 72) {
      byId("remove", engine::remove, model::remove);
    } else if (r < 78) {
      byIdView("get", engine::get, model::get);
    } else if (r < 84) {
      browse();
    } else if (r < 86) {
      browseNext();
    } else if (r < 89) {
      restore();
    } else if (r < 90) {
      redrive();
    } else if (r < 91) {
      rare();
    } else {
      advance();
    }
  }

  // ---- operations ------------------------------------------------------------------------

  private void send(String q, List<NewMessage> batch) {
    boolean single = batch.size() == 1 && random.nextBoolean();
    touch(q);
    describe((single ? "send " : "sendBatch ") + q + " " + summary(batch));
    both(
        () -> single ? List.of(engine.send(q, batch.get(0))) : engine.sendBatch(q, batch),
        () -> model.send(q, batch),
        (List<SendResult> got, List<ReferenceQueueModel.SendEntry> want) -> {
          ModelChecks.check(got.size() == want.size(), "result count", want.size(), got.size());
          for (int i = 0; i < got.size(); i++) {
            SendResult g = got.get(i);
            ReferenceQueueModel.SendEntry w = want.get(i);
            ModelChecks.check(g.duplicate() == w.duplicate(), "duplicate flag of entry " + i, w, g);
            if (w.duplicate()) {
              ModelChecks.check(
                  g.id().equals(w.message().id) && g.sequence() == w.message().engineSequence,
                  "duplicate of entry " + i + " answers the original",
                  w.message().id + "#" + w.message().engineSequence,
                  g.id() + "#" + g.sequence());
              continue;
            }
            long last = lastSequence.getOrDefault(q, Long.MIN_VALUE);
            ModelChecks.check(g.sequence() > last, "sequence increases", "> " + last, g.sequence());
            lastSequence.put(q, g.sequence());
            w.message().id = g.id();
            w.message().engineSequence = g.sequence();
            knownIds.add(g.id());
          }
        });
  }

  private void receive(String q) {
    int max = 1 + random.nextInt(10);
    int v = random.nextInt(10);
    Long visibility = v < 4 ? null : v == 4 ? 0L : 500L + random.nextInt(7500);
    AttributeFilter filter = random.nextInt(4) == 0 ? scenario.filter() : null;
    touch(q);
    describe("receive " + q + " max=" + max + " vis=" + visibility + " filter=" + filter);
    ReceiveRequest.Builder b = ReceiveRequest.builder().maxMessages(max).waitTime(Duration.ZERO);
    if (visibility != null) {
      b.visibilityTimeout(Duration.ofMillis(visibility));
    }
    if (filter != null) {
      b.filter(filter.toEngine(scenario.indexed()));
    }
    ReceiveRequest request = b.build();
    both(
        () -> engine.receive(q, request),
        () -> model.receive(q, max, visibility, filter),
        (List<Message> got, List<ReferenceQueueModel.Received> want) -> {
          ModelChecks.sameList("received", want.stream().map(w -> w.view()).toList(), got);
          for (int i = 0; i < got.size(); i++) {
            String handle =
                got.get(i).receipt().orElseThrow(() -> new AssertionError("no receipt"));
            ReferenceQueueModel.Lease lease = want.get(i).lease();
            ReferenceQueueModel.Lease earlier = leaseByHandle.putIfAbsent(handle, lease);
            ModelChecks.check(
                earlier == null,
                "a new lease gets a receipt never issued before",
                "a fresh receipt",
                handle + " (already issued for " + earlier + ")");
            receipts.add(new Receipt(q, handle, lease));
          }
        });
  }

  private void ack() {
    Receipt r = receipt();
    String q = otherQueueSometimes(r.queue());
    touch(q);
    describe("ack " + q + " " + r.lease());
    both(
        () -> {
          engine.ack(q, r.handle());
          return null;
        },
        () -> {
          model.ack(q, r.lease());
          return null;
        },
        (a, b) -> {});
  }

  private void release() {
    Receipt r = receipt();
    String q = otherQueueSometimes(r.queue());
    long delay =
        random.nextInt(30) == 0
            ? ReferenceQueueModel.MAX_DELAY_MILLIS + 1000
            : random.nextBoolean() ? 0 : random.nextInt(5000);
    boolean toBack = random.nextInt(4) == 0;
    touch(q);
    describe("release " + q + " " + r.lease() + " delay=" + delay + " toBack=" + toBack);
    both(
        () -> {
          engine.release(q, r.handle(), Duration.ofMillis(delay), toBack);
          return null;
        },
        () -> {
          model.release(q, r.lease(), delay, toBack);
          return null;
        },
        (a, b) -> {});
  }

  private void extend() {
    Receipt r = receipt();
    String q = otherQueueSometimes(r.queue());
    int k = random.nextInt(20);
    long visibility =
        k == 0 ? ReferenceQueueModel.MAX_VISIBILITY_MILLIS : k < 5 ? 0 : random.nextInt(9000);
    touch(q);
    describe("extend " + q + " " + r.lease() + " vis=" + visibility);
    both(
        () -> engine.extend(q, r.handle(), Duration.ofMillis(visibility)),
        () -> model.extend(q, r.lease(), visibility),
        (Message got, ModelView want) -> ModelChecks.sameMessage("extended", want, got));
  }

  /** An operation that takes a receipt and returns nothing: fail, deadLetter. */
  private void leaseEnding(
      String name,
      BiConsumer<String, String> onEngine,
      BiConsumer<String, ReferenceQueueModel.Lease> onModel) {
    Receipt r = receipt();
    String q = otherQueueSometimes(r.queue());
    touch(q);
    describe(name + " " + q + " " + r.lease());
    both(
        () -> {
          onEngine.accept(q, r.handle());
          return null;
        },
        () -> {
          onModel.accept(q, r.lease());
          return null;
        },
        (a, b) -> {});
  }

  private void byId(
      String name, BiConsumer<String, String> onEngine, BiConsumer<String, String> onModel) {
    String q = anyQueue();
    String id = messageId(q);
    touch(q);
    describe(name + " " + q + " " + id);
    both(
        () -> {
          onEngine.accept(q, id);
          return null;
        },
        () -> {
          onModel.accept(q, id);
          return null;
        },
        (a, b) -> {});
  }

  /** A by-id operation that returns the message. */
  private void byIdView(
      String name,
      java.util.function.BiFunction<String, String, Message> onEngine,
      java.util.function.BiFunction<String, String, ModelView> onModel) {
    String q = anyQueue();
    String id = messageId(q);
    touch(q);
    describe(name + " " + q + " " + id);
    both(
        () -> onEngine.apply(q, id),
        () -> onModel.apply(q, id),
        (Message got, ModelView want) -> ModelChecks.sameMessage(name, want, got));
  }

  private void update() {
    String q = anyQueue();
    String id = messageId(q);
    int k = random.nextInt(3);
    MessageUpdate u =
        k == 0
            ? MessageUpdate.priority(random.nextInt(5) - 1)
            : k == 1
                ? MessageUpdate.attributes(scenario.attributes())
                : new MessageUpdate(
                    Optional.of(random.nextInt(5) - 1), Optional.of(scenario.attributes()));
    touch(q);
    describe("update " + q + " " + id + " " + u);
    both(
        () -> engine.update(q, id, u),
        () -> model.update(q, id, u),
        (Message got, ModelView want) -> ModelChecks.sameMessage("updated", want, got));
  }

  private void browse() {
    String q = anyQueue();
    int limit = 1 + random.nextInt(6);
    AttributeFilter filter = random.nextInt(3) == 0 ? scenario.filter() : null;
    boolean invisible = random.nextBoolean();
    browsePage(q, limit, filter, invisible, null);
  }

  private void browseNext() {
    Continuation c = continuation;
    if (c == null) {
      browse();
      return;
    }
    browsePage(c.queue(), c.limit(), c.filter(), c.includeInvisible(), c);
  }

  private void browsePage(
      String q,
      int limit,
      @Nullable AttributeFilter filter,
      boolean invisible,
      @Nullable Continuation after) {
    touch(q);
    describe(
        "browse "
            + q
            + " limit="
            + limit
            + " filter="
            + filter
            + " invisible="
            + invisible
            + (after == null ? "" : " after=" + after.cursor()));
    BrowseRequest request = BrowseRequest.first(limit).includeInvisible(invisible);
    if (filter != null) {
      request = request.filter(filter.toEngine(scenario.indexed()));
    }
    if (after != null) {
      request = request.after(after.handle());
    }
    BrowseRequest finalRequest = request;
    continuation = null;
    both(
        () -> engine.browse(q, finalRequest),
        () ->
            model.browse(
                q,
                limit,
                after == null ? Optional.empty() : Optional.of(after.cursor()),
                filter,
                invisible),
        (Page got, ReferenceQueueModel.BrowsePage want) -> {
          ModelChecks.sameList("browsed", want.items(), got.items());
          ModelChecks.check(
              got.nextCursor().isPresent() == want.next().isPresent(),
              "a next page exists",
              want.next().isPresent(),
              got.nextCursor().isPresent());
          if (got.nextCursor().isPresent()) {
            continuation =
                new Continuation(
                    q, got.nextCursor().get(), want.next().get(), filter, invisible, limit);
          }
        });
  }

  private void restore() {
    String q = scenario.pick(DEAD_LETTER_QUEUES);
    String id = messageId(q);
    touch(q);
    describe("restore " + q + " " + id);
    both(
        () -> engine.restore(q, id),
        () -> model.restore(q, id),
        (Message got, ModelView want) -> ModelChecks.sameMessage("restored", want, got));
  }

  private void redrive() {
    String q = scenario.pick(DEAD_LETTER_QUEUES);
    Optional<String> destination =
        random.nextBoolean()
            ? Optional.empty()
            : Optional.of(
                scenario.pick(ModelScenario.STD, ModelScenario.LIFO, ModelScenario.GROUPED, q));
    touch(q);
    destination.ifPresent(this::touch);
    describe("redrive " + q + " to " + destination.orElse("sources"));
    RedriveRequest request = destination.map(RedriveRequest::to).orElse(RedriveRequest.toSources());
    both(
        () -> engine.startRedrive(q, request),
        () -> model.redrive(q, destination),
        (RedriveTask got, ReferenceQueueModel.Redrive want) -> {
          ModelChecks.check(
              got.status() == RedriveTask.Status.COMPLETED,
              "unthrottled redrive completes",
              RedriveTask.Status.COMPLETED,
              got.status());
          ModelChecks.check(
              got.moved() == want.moved() && got.toMove() == want.toMove(),
              "redrive moved/toMove",
              want.moved() + "/" + want.toMove(),
              got.moved() + "/" + got.toMove());
          taskIds.add(got.id());
        });
  }

  /** Rare operations: purge, cancel of a finished or unknown redrive task. */
  private void rare() {
    if (random.nextInt(3) > 0 || taskIds.isEmpty()) {
      String q = scenario.pick(WORK_QUEUES);
      touch(q);
      describe("purge " + q);
      both(
          () -> engine.purge(q),
          () -> model.purge(q),
          (Long got, Long want) -> ModelChecks.check(got.equals(want), "purged count", want, got));
      return;
    }
    String id = random.nextBoolean() ? scenario.pick(taskIds) : UUID.randomUUID().toString();
    describe("cancelRedrive " + id);
    try {
      RedriveTask t = engine.cancelRedrive(id);
      ModelChecks.check(
          taskIds.contains(id) && t.status() == RedriveTask.Status.COMPLETED,
          "cancel of a finished task changes nothing",
          "COMPLETED",
          t.status());
    } catch (QueueException e) {
      ModelChecks.check(
          !taskIds.contains(id) && e.code() == ErrorCode.TASK_NOT_FOUND,
          "cancel of an unknown task",
          ErrorCode.TASK_NOT_FOUND,
          e.code());
    }
  }

  private void advance() {
    long due = model.nextDue() - model.now();
    int k = random.nextInt(40);
    long step;
    if (k == 0) {
      step = due <= 600_000 ? due : 30_000 + random.nextInt(90_000);
    } else if (k == 1) {
      step = 20_000 + random.nextInt(60_000);
    } else if (due > 15_000 || k < 16) {
      step = random.nextInt(k < 8 ? 500 : 3000);
    } else if (k < 28) {
      step = due;
    } else if (k < 34) {
      step = Math.max(0, due - 1);
    } else {
      step = due + 1;
    }
    describe("advance " + step + " ms");
    clockMoved = true;
    clock.advanceMillis(step);
    model.advance(step);
  }

  // ---- plumbing --------------------------------------------------------------------------

  /**
   * Runs one operation on both sides: both must refuse with the same code, or both succeed and
   * agree by {@code check}.
   */
  private <E, M> void both(Supplier<E> onEngine, Supplier<M> onModel, BiConsumer<E, M> check) {
    E got = null;
    QueueException refused = null;
    try {
      got = onEngine.get();
    } catch (QueueException e) {
      refused = e;
    }
    M want = null;
    ModelRefusal expected = null;
    try {
      want = onModel.get();
    } catch (ModelRefusal e) {
      expected = e;
    }
    if (refused != null || expected != null) {
      ErrorCode a = refused == null ? null : refused.code();
      ErrorCode b = expected == null ? null : expected.code();
      if (a != b) {
        throw new AssertionError(
            "engine "
                + (refused == null
                    ? "succeeded with " + got
                    : "refused: " + refused.getMessage() + " [" + a + "]")
                + "; model "
                + (expected == null
                    ? "succeeded with " + want
                    : "refused: " + expected.getMessage()));
      }
      return;
    }
    check.accept(got, want);
  }

  /** Marks {@code q}, its dead-letter target and the queues dead-lettering into it as touched. */
  private void touch(String q) {
    touched.addAll(families.getOrDefault(q, Set.of(q)));
  }

  private void describe(String what) {
    op = what;
    if (trace.size() == TRACE) {
      trace.removeFirst();
    }
    trace.addLast("t+" + (model.now() - start) + "ms " + what);
  }

  /** A recent receipt, sometimes an old one, rarely a forged one. */
  private Receipt receipt() {
    if (receipts.isEmpty() || random.nextInt(40) == 0) {
      String forged = random.nextBoolean() ? "not-a-receipt" : "AAAAAAAAAAAAAAAAAAAAAAAAAAA";
      return new Receipt(scenario.pick(WORK_QUEUES), forged, ReferenceQueueModel.Lease.bogus());
    }
    int n = receipts.size();
    int back = random.nextInt(4) == 0 ? random.nextInt(n) : random.nextInt(Math.min(n, 12));
    return receipts.get(n - 1 - back);
  }

  private String otherQueueSometimes(String q) {
    return random.nextInt(25) == 0 ? anyQueue() : q;
  }

  private String anyQueue() {
    return random.nextInt(5) == 0 ? scenario.pick(DEAD_LETTER_QUEUES) : scenario.pick(WORK_QUEUES);
  }

  /** Mostly a message now in {@code q}; sometimes one from anywhere, or one that never existed. */
  private String messageId(String q) {
    List<ModelMessage> here = model.messages(q);
    int k = random.nextInt(10);
    if (k < 7 && !here.isEmpty()) {
      return scenario.pick(here).id;
    }
    if (k < 9 && !knownIds.isEmpty()) {
      return scenario.pick(knownIds);
    }
    return random.nextBoolean() ? UUID.randomUUID().toString() : "no-such-id";
  }

  private static String summary(List<NewMessage> batch) {
    StringBuilder sb = new StringBuilder("[");
    for (NewMessage m : batch) {
      sb.append(sb.length() > 1 ? ", " : "").append(m.body());
      m.groupId().ifPresent(g -> sb.append(" g=").append(g));
      m.deduplicationId().ifPresent(d -> sb.append(" d=").append(d));
      if (m.priority() != 0) {
        sb.append(" p=").append(m.priority());
      }
      m.delay().ifPresent(d -> sb.append(" delay=").append(d.toMillis()));
      m.timeToLive().ifPresent(d -> sb.append(" ttl=").append(d.toMillis()));
      if (!m.attributes().isEmpty()) {
        sb.append(" ").append(m.attributes().keySet());
      }
    }
    return sb.append("]").toString();
  }
}
