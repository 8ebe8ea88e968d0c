package io.switchboard.queue;

import io.switchboard.queue.spi.DeadLetterRules;
import io.switchboard.queue.spi.JournalEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * Redrive tasks: each moves the messages that were in a dead-letter queue when it started, in
 * delivery order, to their source queues or a named destination, at most {@code maxPerSecond} (a
 * budget of one second's worth at the start, then the rate). Messages leased when their turn comes
 * are skipped and stay. Progress is made at start and on every housekeeping tick.
 */
final class RedriveTasks {

  /** Messages read (snapshot) or moved per hold of the source queue's lock. */
  private static final int CHUNK = 1000;

  private final MemoryQueueEngine engine;
  private final List<Job> jobs = new CopyOnWriteArrayList<>();

  RedriveTasks(MemoryQueueEngine engine) {
    this.engine = engine;
  }

  /** One task's progress; its methods synchronize on the job. */
  private final class Job {
    final String id;
    final String source;
    final Optional<String> destination;
    final OptionalInt rate;
    final List<Long> serials;
    final long startedAt;
    int next;
    long moved;
    long toMove;
    RedriveTask.Status status = RedriveTask.Status.RUNNING;
    @Nullable String problem;

    Job(String id, String source, RedriveRequest request, List<Long> serials, long startedAt) {
      this.id = id;
      this.source = source;
      this.destination = request.destination();
      this.rate = request.maxPerSecond();
      this.serials = serials;
      this.startedAt = startedAt;
      this.toMove = serials.size();
    }

    /** Records the task as started, so that a restart resumes it. */
    synchronized void journalStart() {
      engine.journal(new JournalEntry.TaskPut(snapshot(), startedAt, List.copyOf(serials)));
    }

    /** Records progress (counts and status; the serial list was written at start). */
    synchronized void journal() {
      engine.journal(new JournalEntry.TaskProgress(snapshot(), next));
    }

    synchronized RedriveTask snapshot() {
      return new RedriveTask(
          id,
          source,
          destination,
          rate,
          status,
          moved,
          toMove,
          Instant.ofEpochMilli(startedAt),
          Optional.ofNullable(problem));
    }

    synchronized void step(long now) {
      long before = next;
      RedriveTask.Status was = status;
      advance(now);
      if (next != before || status != was) {
        journal();
      }
    }

    private void advance(long now) {
      while (status == RedriveTask.Status.RUNNING) {
        long budget = budget(now);
        if (next >= serials.size()) {
          status = RedriveTask.Status.COMPLETED;
          return;
        }
        if (budget <= 0) {
          return;
        }
        int n = (int) Math.min(Math.min(budget, CHUNK), serials.size() - next);
        if (!moveChunk(n)) {
          return;
        }
      }
    }

    private long budget(long now) {
      if (rate.isEmpty()) {
        return Long.MAX_VALUE;
      }
      long r = rate.getAsInt();
      return r + (now - startedAt) * r / 1000 - moved;
    }

    /** Moves the next {@code n} serials; false if the source vanished. */
    @SuppressWarnings("NullAway") // the detaching operation's Void result is null
    private boolean moveChunk(int n) {
      LocalQueue from = engine.find(source);
      if (from == null) {
        fail("source queue '" + source + "' was deleted");
        return false;
      }
      List<StoredMessage> detached = new ArrayList<>(n);
      try {
        engine.run(
            source,
            (q, now) -> {
              for (int i = 0; i < n; i++) {
                StoredMessage m =
                    q.detachForRedrive(serials.get(next + i), destination.orElse(null));
                if (m != null) {
                  detached.add(m);
                }
              }
              return null;
            });
      } catch (QueueException gone) {
        fail("source queue '" + source + "' was deleted");
        return false;
      }
      next += n;
      MoveCheck check = engine.moveCheck();
      Map<String, Optional<String>> refusals = new HashMap<>();
      for (int i = 0; i < detached.size(); i++) {
        StoredMessage m = detached.get(i);
        String target = destination.orElse(m.deadLetterSource);
        Optional<String> refused =
            target == null
                ? Optional.empty()
                : refusals.computeIfAbsent(
                    target, t -> Optional.ofNullable(check.refusal(id, source, t)));
        if (refused.isPresent()) {
          // the task stops here: this message and the rest of the chunk go back where they were
          // (unless the source was deleted meanwhile, and its messages with it)
          if (from != null) {
            for (StoredMessage back : detached.subList(i, detached.size())) {
              String to = destination.orElse(back.deadLetterSource);
              if (to == null) {
                engine.moveIn(source, back, false, from);
              } else {
                engine.putBack(from, back, to);
              }
            }
          }
          fail(refused.get());
          return false;
        }
        if (target == null) {
          problem = "some messages were not dead-lettered from another queue and stayed";
          from = engine.find(source);
          if (from != null) {
            engine.moveIn(source, m, false, from);
          }
          continue;
        }
        Message placed = engine.moveIn(target, m, true, from);
        if (placed != null) {
          moved++;
          engine.events().tell(() -> new MessageEvent.Redriven(source, target, placed));
        } else {
          problem = "queue '" + target + "' does not exist; its messages stayed";
        }
      }
      return true;
    }

    private void fail(String why) {
      status = RedriveTask.Status.FAILED;
      problem = why;
    }
  }

  RedriveTask start(LocalQueue source, RedriveRequest request) {
    for (Job j : jobs) {
      if (j.source.equals(source.name) && j.snapshot().status() == RedriveTask.Status.RUNNING) {
        throw DeadLetterRules.alreadyRedriving(source.name, j.id);
      }
    }
    request
        .destination()
        .ifPresent(
            d -> {
              DeadLetterRules.checkDestination(
                  source.name, source.grouped, engine.require(d).info());
            });
    List<Long> serials = snapshot(source);
    Job job =
        new Job(
            UUID.randomUUID().toString(), source.name, request, serials, engine.clock().millis());
    jobs.add(job);
    job.journalStart();
    job.step(engine.clock().millis());
    return job.snapshot();
  }

  /**
   * The serials of the messages in {@code source} now, in delivery order, read {@link #CHUNK} per
   * hold of its lock from where the last hold stopped (its ordered sets need no sort), letting the
   * threads waiting for the lock go between holds. Messages that arrive meanwhile (a higher seq
   * than any when it began) stay out.
   */
  @SuppressWarnings("NullAway") // the operation answers null at the end of the queue
  private List<Long> snapshot(LocalQueue source) {
    long seqBound = engine.nextSequence();
    List<Long> serials = new ArrayList<>();
    StoredMessage after = null;
    while (true) {
      StoredMessage from = after;
      after = engine.run(source, (q, now) -> q.snapshotInOrder(from, seqBound, CHUNK, serials));
      if (after == null) {
        return serials;
      }
      source.lock.stepAside();
    }
  }

  List<RedriveTask> list(String source) {
    List<RedriveTask> out = new ArrayList<>();
    for (int i = jobs.size() - 1; i >= 0; i--) {
      Job j = jobs.get(i);
      if (j.source.equals(source)) {
        out.add(j.snapshot());
      }
    }
    return out;
  }

  RedriveTask cancel(String taskId) {
    for (Job j : jobs) {
      if (j.id.equals(taskId)) {
        synchronized (j) {
          if (j.status == RedriveTask.Status.RUNNING) {
            j.status = RedriveTask.Status.CANCELLED;
            j.journal();
          }
        }
        return j.snapshot();
      }
    }
    throw new QueueException(ErrorCode.TASK_NOT_FOUND, "no redrive task '" + taskId + "'");
  }

  /** Brings back the tasks a journal held; running ones resume on the next housekeeping. */
  void restore(List<JournalEntry.TaskPut> tasks) {
    for (var t : tasks) {
      RedriveTask task = t.task();
      Job job =
          new Job(
              task.id(),
              task.source(),
              new RedriveRequest(task.destination(), task.maxPerSecond()),
              new ArrayList<>(t.remaining()),
              t.startedAt());
      job.moved = task.moved();
      job.toMove = task.toMove();
      job.status = task.status();
      job.problem = task.failureReason().orElse(null);
      jobs.add(job);
    }
  }

  void progress(long now) {
    for (Job j : jobs) {
      if (j.snapshot().status() == RedriveTask.Status.RUNNING) {
        j.step(now);
      }
    }
  }

  void queueDeleted(String name) {
    for (Job j : jobs) {
      synchronized (j) {
        if (j.source.equals(name) && j.status == RedriveTask.Status.RUNNING) {
          j.fail("source queue '" + name + "' was deleted");
          j.journal();
        }
      }
    }
  }
}
