package io.switchboard.queue;

import io.switchboard.queue.spi.CheckedMessage;
import io.switchboard.queue.spi.DeadLetterRules;
import io.switchboard.queue.spi.Journal;
import io.switchboard.queue.spi.JournalEntry;
import io.switchboard.queue.spi.MessageEventListeners;
import io.switchboard.queue.spi.MessageIds;
import io.switchboard.queue.spi.MessageRules;
import io.switchboard.queue.spi.QueueRules;
import io.switchboard.queue.spi.ReceiptKeys;
import io.switchboard.queue.spi.Snapshot;
import io.switchboard.queue.spi.SystemRecords;
import io.switchboard.time.Clock;
import io.switchboard.time.Scheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The in-memory engine: a map of {@link LocalQueue}s, each guarded by its own lock. An operation
 * locks exactly one queue; moves between queues (dead-lettering, redrive) detach under the source's
 * lock and attach under the target's afterwards, so no thread holds two queue locks and no lock
 * order can deadlock.
 *
 * <p>Time comes only from the injected {@link Clock}. Timers are lazy: every operation first fires
 * whatever fell due. A blocked receive is woken by the operation that makes a message eligible for
 * it; the first blocked receiver of a queue also wakes for that queue's next timer. Background
 * housekeeping (rate-limited redrives, expiry of idle queues) runs on a daemon thread with the
 * system clock, and on every advance of a manual clock.
 */
final class MemoryQueueEngine implements QueueEngine {

  private final Clock clock;
  private final int maxQueues;

  /**
   * Sized at start for the queues restored, so a restart with many does not grow it step by step.
   */
  private final ConcurrentHashMap<String, LocalQueue> queues;

  /**
   * Configurations in use, each kept once: queues made with equal configurations (most are made
   * with the defaults or a few templates) share one object rather than one each, which at a million
   * queues is hundreds of megabytes. Bounded: past {@link #SHARED_CONFIGS} distinct ones, a queue
   * keeps its own.
   */
  private final ConcurrentHashMap<QueueConfig, QueueConfig> configs = new ConcurrentHashMap<>();

  private static final int SHARED_CONFIGS = 1024;

  /**
   * The queues the housekeeping ticks: those with something a tick may have to do ({@link
   * LocalQueue#needsTicks}). A queue joins when an operation leaves it with work (under its lock,
   * {@link #keepTicking}) and leaves when a tick finds it idle, so a million idle queues are not
   * locked and visited ten times a second. By name, so a tick visits the queues in name order
   * whatever the history of the process: two queues dead-lettering into one on the same tick
   * deliver in the same order before and after a restart.
   */
  private final java.util.concurrent.ConcurrentSkipListMap<String, LocalQueue> ticking =
      new java.util.concurrent.ConcurrentSkipListMap<>();

  /**
   * The names of {@link #queues} in order, so a page of the list is a walk from its cursor, not a
   * pass over every queue. Changed with the map, under its monitor (recovery: before any call).
   */
  private final java.util.concurrent.ConcurrentSkipListSet<String> names =
      new java.util.concurrent.ConcurrentSkipListSet<>();

  /** Queues in {@link #queues} whose creation is not durable yet, with the write to wait for. */
  private final ConcurrentHashMap<String, Journal.Ticket> creating = new ConcurrentHashMap<>();

  private final AtomicLong sequence = new AtomicLong(1);
  private final MessageIds ids;
  private final RedriveTasks redrives;
  private final Journal journal;
  private final SystemRecords systemRecords;
  private final ReceiptKeys receiptKeys;
  private final MessageEventListeners events = new MessageEventListeners();

  /** False with {@link NoJournal}: nothing to record, no send waits for a write. */
  private final boolean durable;

  private final boolean placements;

  /** Available messages each standard queue keeps in the heap ({@link HotWindow}); 0: all. */
  private final int hotWindow;

  private final io.switchboard.queue.spi.@Nullable Orders orders;

  /** What the hot windows keep in the heap together ({@link HotBudget}). */
  private final HotBudget hotBudget;

  private final Scheduler.Repeating housekeeper;
  private final LockHolds lockHolds = new LockHolds();
  private volatile Scan.Limits scanLimits = Scan.Limits.DEFAULT;
  private volatile MoveCheck moveCheck = MoveCheck.NONE;
  private final QueueLimits limits;

  /** Queued bytes of all queues: each queue adds its changes ({@link LocalQueue#reportBytes}). */
  private final AtomicLong queuedBytes = new AtomicLong();

  private volatile long reservedSequences;
  private volatile boolean closed;

  MemoryQueueEngine(
      Clock clock,
      int maxQueues,
      Duration housekeepingInterval,
      Journal journal,
      QueueLimits limits,
      int hotWindow) {
    this.clock = clock;
    this.limits = limits;
    this.maxQueues = maxQueues;
    this.journal = journal;
    this.durable = !NoJournal.isNone(journal);
    this.placements = durable && journal.maintainsOrders();
    this.orders = placements ? journal.orders().orElse(null) : null;
    this.hotWindow = orders == null ? 0 : hotWindow;
    this.hotBudget = HotBudget.of(limits);
    this.redrives = new RedriveTasks(this);
    this.systemRecords = journal.systemRecords();
    this.receiptKeys = ReceiptKeys.load(systemRecords); // before queues: each derives its key
    Snapshot snapshot = journal.load();
    this.queues = new ConcurrentHashMap<>(Math.max(16, snapshot.queueCount()));
    this.ids = new MessageIds(idPrefix(snapshot));
    recover(snapshot); // after the id prefix: restored dedup entries carry ids
    housekeeper = clock.every("switchboard-housekeeping", housekeepingInterval, this::housekeeping);
  }

  // ---- recovery --------------------------------------------------------------------------

  /** The stored id prefix, or a new one made durable before any id uses it. */
  private long idPrefix(Snapshot snapshot) {
    if (snapshot.idPrefix().isPresent()) {
      return snapshot.idPrefix().getAsLong();
    }
    long prefix = ThreadLocalRandom.current().nextLong();
    journal.appendDurable(List.of(new JournalEntry.IdPrefix(prefix))).await();
    return prefix;
  }

  /** {@code config}, or an equal one already in use ({@link #configs}). */
  QueueConfig shared(QueueConfig config) {
    QueueConfig known = configs.get(config);
    if (known != null) {
      return known;
    }
    if (configs.size() >= SHARED_CONFIGS) {
      return config;
    }
    known = configs.putIfAbsent(config, config);
    return known == null ? config : known;
  }

  /**
   * Rebuilds every queue from the journal's snapshot, one queue at a time: each state is made into
   * its queue and let go before the next is read, so a store that decodes its queues as they are
   * iterated never has them all decoded at once (docs/design.md, "Recovery streams the queues").
   */
  private void recover(Snapshot snapshot) {
    long highest = snapshot.sequenceLimit();
    long now = clock.millis();
    for (Snapshot.QueueState state : snapshot.queues()) {
      JournalEntry.QueuePut put = state.queue();
      LocalQueue q =
          new LocalQueue(
              this,
              put.name(),
              shared(put.config()),
              Instant.ofEpochMilli(put.createdAt()),
              put.receiptKey());
      queues.put(put.name(), q);
      names.add(put.name());
      highest = Math.max(highest, q.restore(state, now) + 1);
      keepTicking(q);
    }
    sequence.set(Math.max(1, highest));
    reservedSequences = Math.max(1, highest);
    redrives.restore(snapshot.tasks());
  }

  /** Appends an entry that belongs to no queue (redrive tasks). */
  void journal(JournalEntry entry) {
    journal.append(List.of(entry));
  }

  /** The engine's journal: a real one, or {@link NoJournal}. */
  Journal journal() {
    return journal;
  }

  /** The server's receipt key, from which each queue derives its own. */
  ReceiptKeys receiptKeys() {
    return receiptKeys;
  }

  @Override
  public SystemRecords systemRecords() {
    return systemRecords;
  }

  /** Whether there is a real journal to record changes in. */
  boolean durable() {
    return durable;
  }

  /** Whether the journal hears of every change of a message's place (it keeps the orders). */
  boolean placements() {
    return placements;
  }

  /** How many available messages a standard queue keeps in the heap; 0 when it keeps them all. */
  int hotWindow() {
    return hotWindow;
  }

  /** The budget the hot windows of all queues share. */
  HotBudget hotBudget() {
    return hotBudget;
  }

  /** The store's orders when it keeps them, which the hot windows read; else null. */
  io.switchboard.queue.spi.@Nullable Orders orders() {
    return orders;
  }

  // ---- identity and time -----------------------------------------------------------------

  LockHolds lockHolds() {
    return lockHolds;
  }

  @Override
  public Duration longestLockHold() {
    return java.time.Duration.ofNanos(lockHolds.longestNanos());
  }

  @Override
  public long mostExaminedInOneLockHold() {
    return lockHolds.mostExamined();
  }

  @Override
  public QueueLimits limits() {
    return limits;
  }

  @Override
  public long queuedBytes() {
    return queuedBytes.get();
  }

  @Override
  public long queuedBytes(String queue) {
    return run(queue, (q, now) -> q.queuedBytes());
  }

  /**
   * Adds {@code bytes} to the server's queued bytes unless that passes {@link
   * QueueLimits#maxQueuedBytes}: then refuses with {@link ErrorCode#SERVER_FULL}, adding nothing.
   */
  void reserveQueuedBytes(long bytes) {
    if (bytes == 0) {
      return;
    }
    long max = limits.maxQueuedBytes();
    while (true) {
      long queued = queuedBytes.get();
      if (queued + bytes > max) {
        throw limits.serverFull(queued, bytes);
      }
      if (queuedBytes.compareAndSet(queued, queued + bytes)) {
        return;
      }
    }
  }

  void addQueuedBytes(long delta) {
    queuedBytes.addAndGet(delta);
  }

  Scan.Limits scanLimits() {
    return scanLimits;
  }

  /** Sets what a filtered scan may spend per lock hold (tests make it small). */
  void scanLimits(Scan.Limits limits) {
    this.scanLimits = Objects.requireNonNull(limits, "limits");
  }

  @Override
  public Clock clock() {
    return clock;
  }

  /** The next sequence number to be handed out: every message now in a queue has a lower one. */
  long nextSequence() {
    return sequence.get();
  }

  /**
   * Reserves {@code n} consecutive sequence numbers and returns the first. With a journal, a
   * reservation entry covering them is appended before any entry can use them, so a restart never
   * hands out a number again (an old id or receipt could otherwise name a new message).
   */
  long nextSequences(int n) {
    long first = sequence.getAndAdd(n);
    if (durable && first + n > reservedSequences) {
      reserveThrough(first + n);
    }
    return first;
  }

  private static final long SEQUENCE_BLOCK = 1 << 20;

  private synchronized void reserveThrough(long limit) {
    if (limit > reservedSequences) {
      long next = limit + SEQUENCE_BLOCK;
      journal.append(List.of(new JournalEntry.SequenceReserve(next)));
      reservedSequences = next;
    }
  }

  MessageIds ids() {
    return ids;
  }

  long serialOf(String id) {
    return ids.serial(id);
  }

  // ---- queues ----------------------------------------------------------------------------

  @Override
  public QueueCreation ensureQueue(String name, QueueConfig config) {
    open();
    QueueRules.checkName(name, "name");
    Objects.requireNonNull(config, "config");
    checkConfig(name, config);
    LocalQueue q;
    Journal.@Nullable Ticket written;
    boolean made;
    // Under the lock only what makes the name unique and holds max-queues: the record's place in
    // the journal and the map. The write is awaited outside it, so concurrent creations share one
    // group commit instead of taking turns at one sync write each; a queue that is in the map
    // before its record is durable is safe to use, since whatever is written to it lands after
    // that record in the journal.
    synchronized (queues) {
      LocalQueue existing = queues.get(name);
      if (existing != null) {
        if (!existing.config().equals(config)) {
          throw QueueRules.alreadyExists(name);
        }
        q = existing;
        written = creating.get(name);
        made = false;
      } else {
        if (queues.size() >= maxQueues) {
          throw QueueRules.tooManyQueues(maxQueues);
        }
        q =
            new LocalQueue(
                this,
                name,
                shared(config),
                Instant.ofEpochMilli(clock.millis()),
                LocalQueue.newReceiptKey());
        written = journal.appendDurable(List.of(q.journalRecord()));
        queues.put(name, q);
        names.add(name);
        creating.put(name, written);
        made = true;
      }
    }
    if (written != null) {
      try {
        written.await(); // a caller that finds the queue being created waits for it as well
      } catch (RuntimeException e) {
        boolean undo;
        synchronized (queues) {
          undo = creating.remove(name, written) && queues.remove(name, q);
          if (undo) {
            names.remove(name);
          }
        }
        if (undo) {
          q.lock.lock();
          try {
            q.markDeleted();
          } finally {
            q.lock.unlock();
          }
        }
        throw e;
      }
      creating.remove(name, written);
    }
    return new QueueCreation(q.info(), made);
  }

  private void checkConfig(String name, QueueConfig config) {
    QueueRules.checkConfig(
        name, config, t -> Optional.ofNullable(queues.get(t)).map(LocalQueue::info));
  }

  /** Runs {@code change} under the queue's lock, so no other update comes in between. */
  @Override
  public QueueInfo updateQueue(String name, UnaryOperator<QueueConfig> change) {
    Objects.requireNonNull(change, "change");
    refuseWhileTheStoreCannotWrite();
    QueueInfo info =
        run(
            name,
            (q, now) -> {
              QueueConfig next =
                  Objects.requireNonNull(change.apply(q.config()), "the changed configuration");
              if (!next.equals(q.config())) {
                checkConfig(name, next);
                q.reconfigure(shared(next));
              }
              return q.info();
            });
    awaitJournal();
    return info;
  }

  /** Waits until everything appended so far is durable. */
  private void awaitJournal() {
    journal.appendDurable(List.of()).await();
  }

  @Override
  public void deleteQueue(String name) {
    LocalQueue q = require(name);
    refuseWhileTheStoreCannotWrite();
    q.lock.lock();
    try {
      q.markDeleted();
      synchronized (queues) {
        if (queues.remove(name, q)) {
          names.remove(name);
        }
      }
      q.journal().emit(new JournalEntry.QueueDelete(name));
    } finally {
      q.journal().flush();
      q.lock.unlock();
    }
    redrives.queueDeleted(name);
    awaitJournal();
  }

  @Override
  public QueueInfo queue(String name) {
    return require(name).info();
  }

  @Override
  public List<QueueInfo> listQueues(String prefix) {
    return listQueues(prefix, "", Integer.MAX_VALUE);
  }

  /**
   * Reads the counts of the queues with work ({@link #ticking}: every queue holding a message is
   * among them) without their locks (a figure may be a moment old, or half of a change under way),
   * so a scrape never waits on a busy queue nor makes one wait; the other queues hold nothing and
   * are counted, and named among the deepest (in name order) only while there is room. The cost
   * follows the queues in use and {@code top}, not the number of queues.
   */
  @Override
  public QueueOverview overview(int top) {
    open();
    QueueTally tally = new QueueTally(top);
    int counted = 0;
    for (LocalQueue q : ticking.values()) {
      if (queues.get(q.name) == q) { // not deleted since
        q.tally(tally);
        counted++;
      }
    }
    int room = tally.roomForDeepest();
    if (room > 0) {
      for (String name : names) {
        LocalQueue q = queues.get(name);
        if (q != null && !q.ticked) {
          q.tally(tally); // holds nothing: only its name, among the deepest
          counted++;
          if (--room == 0) {
            break;
          }
        }
      }
    }
    tally.addEmpty(Math.max(0, queues.size() - counted));
    return tally.overview();
  }

  /**
   * Walks the ordered names from the cursor ({@code after}, or the prefix when it sorts later):
   * O(log n) to find the start and then one step per name of the page, however many queues there
   * are.
   */
  @Override
  public List<QueueInfo> listQueues(String prefix, String after, int limit) {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(after, "after");
    if (limit < 1) {
      throw QueueException.invalid("limit must be 1 or more, got " + limit);
    }
    java.util.NavigableSet<String> from =
        after.compareTo(prefix) >= 0 ? names.tailSet(after, false) : names.tailSet(prefix, true);
    List<QueueInfo> out = new ArrayList<>(Math.min(limit, 1024));
    for (String name : from) {
      if (!name.startsWith(prefix) || out.size() >= limit) {
        break;
      }
      LocalQueue q = queues.get(name); // null if deleted since the walk passed it
      if (q != null) {
        out.add(q.info());
      }
    }
    return out;
  }

  LocalQueue require(String name) {
    open();
    LocalQueue q = name == null ? null : queues.get(name);
    if (q == null) {
      throw QueueException.queueNotFound(name);
    }
    return q;
  }

  @Nullable LocalQueue find(String name) {
    return queues.get(name);
  }

  // ---- messages --------------------------------------------------------------------------

  @Override
  public SendResult send(String queue, NewMessage message) {
    Objects.requireNonNull(message, "message");
    LocalQueue q = require(queue);
    CheckedMessage p = MessageRules.check(message, -1, queue, q.grouped, q.config());
    return send(q, List.of(p)).get(0);
  }

  private List<SendResult> send(LocalQueue queue, List<CheckedMessage> prepared) {
    if (!durable) {
      return run(queue, (q, now) -> q.send(prepared, now));
    }
    LocalQueue.PendingSend pending = run(queue, (q, now) -> q.beginSend(prepared, now));
    try {
      pending.ticket.await();
    } catch (RuntimeException e) {
      queue.lock.lock();
      try {
        queue.abortSend(pending);
      } finally {
        queue.lock.unlock();
      }
      throw e;
    }
    return run(queue, (q, now) -> q.completeSend(pending));
  }

  @Override
  public List<SendResult> sendBatch(String queue, List<NewMessage> messages) {
    Objects.requireNonNull(messages, "messages");
    QueueRules.checkBatchSize(messages);
    LocalQueue q = require(queue);
    QueueConfig config = q.config();
    List<CheckedMessage> prepared = new ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      NewMessage m = QueueRules.batchMessage(messages, i);
      prepared.add(MessageRules.check(m, i, queue, q.grouped, config));
    }
    return send(q, prepared);
  }

  @Override
  public List<Message> receive(String queue, ReceiveRequest request) {
    Objects.requireNonNull(request, "request");
    LocalQueue q = require(queue);
    MessageFilter filter = request.filter().orElse(null);
    Waiter[] waiter = new Waiter[1];
    Scan scan = filter == null ? null : new Scan(scanLimits, clock);
    while (true) {
      List<Message> got =
          run(
              q,
              (lq, now) -> {
                lq.checkInFlight();
                if (scan != null) {
                  lq.startHold(scan);
                }
                List<Message> taken =
                    lq.take(request.maxMessages(), filter, lq.visibilityMillis(request), now, scan);
                if (taken.isEmpty()
                    && (scan == null || !scan.resumable())
                    && lq.waitMillis(request) > 0
                    && !closed) {
                  waiter[0] = lq.enqueueWaiter(request, now);
                }
                return taken;
              });
      if (!got.isEmpty() || scan == null || !scan.resumable() || waiter[0] != null) {
        return waiter[0] == null ? got : await(q, waiter[0]);
      }
      q.lock.stepAside(); // spent its budget and found nothing yet: go on after the others
    }
  }

  /**
   * A waiter's own scan, asked for by a handover that ran out of budget: from the first candidate,
   * one budget per lock hold, until it finds something, reaches the end, or is served meanwhile.
   * Returns what it took (the wait is then over), or null to keep waiting.
   */
  @SuppressWarnings("NullAway") // the operation answers null when the waiter was served
  private @Nullable List<Message> rescan(LocalQueue q, Waiter w) {
    Scan scan = new Scan(scanLimits, clock);
    while (true) {
      List<Message> got =
          run(
              q,
              (lq, now) -> {
                if (w.done()) {
                  return null;
                }
                lq.startHold(scan);
                List<Message> taken =
                    lq.take(w.maxMessages, w.filter, w.visibilityMillis, now, scan);
                if (!taken.isEmpty()) {
                  lq.removeWaiter(w); // not served meanwhile: done() was false in this hold
                }
                return taken;
              });
      if (got == null || !got.isEmpty()) {
        return got;
      }
      if (!scan.resumable()) {
        return null;
      }
      q.lock.stepAside();
    }
  }

  /** Parks until a handover, the deadline, or (first in line only) the queue's next timer. */
  private List<Message> await(LocalQueue q, Waiter w) {
    while (!w.done()) {
      if (w.takeRescan()) {
        List<Message> found = rescan(q, w);
        if (found != null) {
          return found;
        }
        continue;
      }
      long now = clock.millis();
      if (now >= w.deadline || Thread.currentThread().isInterrupted() || closed) {
        abandon(q, w);
        break;
      }
      long wakeAt = w.deadline;
      boolean woken;
      q.lock.lock();
      try {
        // Taking the lock may have consumed the unpark of a handover or of a request to scan
        // (both happen under it), so look again under the lock: once we unlock, a later one's
        // unpark is not lost.
        woken = w.done() || w.rescanAsked();
        if (!woken && q.isTimerWaiter(w)) {
          wakeAt = Math.min(wakeAt, q.nextDue());
        }
      } finally {
        q.lock.unlock();
      }
      if (woken) {
        continue;
      }
      long nanos = clock.parkNanosUntil(wakeAt);
      // Taking the lock above may itself park, and that park can swallow the unpark of a handover
      // or a request to scan made meanwhile; without this second look the thread would sleep on a
      // completed wait, or on a request that only it can carry out.
      if (w.done() || w.rescanAsked()) {
        continue;
      }
      if (nanos > 0) {
        LockSupport.parkNanos(w, nanos);
      } else if (wakeAt < w.deadline) {
        tick(q);
      }
    }
    return w.result();
  }

  private void abandon(LocalQueue q, Waiter w) {
    q.lock.lock();
    try {
      q.abandon(w);
    } finally {
      q.lock.unlock();
    }
  }

  @Override
  public void ack(String queue, String receipt) {
    act(queue, (q, now) -> q.ack(receipt, now));
  }

  /** The whole batch under one hold of the queue's lock, written to the journal at once. */
  @Override
  public List<Optional<QueueException>> ackAll(String queue, List<String> receipts) {
    List<String> all = List.copyOf(receipts);
    return change(
        queue,
        (q, now) -> {
          List<Optional<QueueException>> results = new ArrayList<>(all.size());
          for (String receipt : all) {
            try {
              q.ack(receipt, now);
              results.add(Optional.empty());
            } catch (QueueException e) {
              results.add(Optional.of(e));
            }
          }
          return results;
        });
  }

  @Override
  public void release(String queue, String receipt, Duration delay, boolean toBack) {
    Objects.requireNonNull(delay, "delay");
    act(queue, (q, now) -> q.release(receipt, delay, toBack, now));
  }

  @Override
  public Message extend(String queue, String receipt, Duration visibilityTimeout) {
    Objects.requireNonNull(visibilityTimeout, "visibilityTimeout");
    return change(queue, (q, now) -> q.extend(receipt, visibilityTimeout, now));
  }

  @Override
  public Message extendAnyLease(String queue, String receipt, Duration visibilityTimeout) {
    Objects.requireNonNull(visibilityTimeout, "visibilityTimeout");
    return change(queue, (q, now) -> q.extend(receipt, visibilityTimeout, true, now));
  }

  @Override
  public void fail(String queue, String receipt) {
    act(queue, (q, now) -> q.fail(receipt, now));
  }

  @Override
  public void deadLetter(String queue, String receipt) {
    act(queue, (q, now) -> q.deadLetterLeased(receipt, now));
  }

  @Override
  public void deadLetterById(String queue, String id) {
    act(queue, (q, now) -> q.deadLetterById(serialOf(id), id, now));
  }

  @Override
  public Message update(String queue, String id, MessageUpdate update) {
    Objects.requireNonNull(update, "update");
    return change(queue, (q, now) -> q.update(serialOf(id), id, update));
  }

  @Override
  public Message touch(String queue, String id) {
    return change(queue, (q, now) -> q.touch(serialOf(id), id));
  }

  @Override
  public void remove(String queue, String id) {
    act(queue, (q, now) -> q.remove(serialOf(id), id));
  }

  @Override
  public Message get(String queue, String id) {
    return run(queue, (q, now) -> q.get(serialOf(id), id));
  }

  @Override
  public Page browse(String queue, BrowseRequest request) {
    Objects.requireNonNull(request, "request");
    return run(queue, (q, now) -> q.browse(request, now));
  }

  @Override
  public long purge(String queue) {
    return change(queue, (q, now) -> q.purge());
  }

  @Override
  public QueueStats stats(String queue) {
    return run(queue, (q, now) -> q.stats(now));
  }

  // ---- redrive ---------------------------------------------------------------------------

  @Override
  public RedriveTask startRedrive(String source, RedriveRequest request) {
    Objects.requireNonNull(request, "request");
    LocalQueue q = require(source);
    refuseWhileTheStoreCannotWrite();
    RedriveTask task = redrives.start(q, request);
    confirmWhileTheStoreCannotWrite();
    return task;
  }

  @Override
  public List<RedriveTask> redriveTasks(String source) {
    require(source);
    return redrives.list(source);
  }

  @Override
  public RedriveTask cancelRedrive(String taskId) {
    open();
    refuseWhileTheStoreCannotWrite();
    RedriveTask task = redrives.cancel(taskId);
    confirmWhileTheStoreCannotWrite();
    return task;
  }

  @Override
  public void checkMoves(MoveCheck check) {
    this.moveCheck = Objects.requireNonNull(check, "check");
  }

  /** What every redrive task asks before each move ({@link #checkMoves}). */
  MoveCheck moveCheck() {
    return moveCheck;
  }

  @Override
  public Message restore(String deadLetterQueue, String id) {
    long serial = serialOf(id);
    refuseWhileTheStoreCannotWrite();
    StoredMessage m =
        run(
            deadLetterQueue,
            (q, now) -> {
              StoredMessage found = q.require(serial, id);
              if (found.deadLetterSource == null) {
                throw DeadLetterRules.notDeadLettered(id);
              }
              if (find(found.deadLetterSource) == null) {
                throw QueueException.queueNotFound(found.deadLetterSource);
              }
              if (q.detachForRedrive(serial, null) == null) {
                throw DeadLetterRules.leasedOnRestore(id);
              }
              return found;
            });
    String source = Objects.requireNonNull(m.deadLetterSource); // checked in the operation
    Message placed = moveIn(source, m, true, require(deadLetterQueue));
    if (placed == null) {
      throw QueueException.queueNotFound(source);
    }
    confirmWhileTheStoreCannotWrite();
    events.tell(() -> new MessageEvent.Redriven(deadLetterQueue, source, placed));
    return placed;
  }

  // ---- the operation frame and moves -----------------------------------------------------

  /** One queue operation: lock, fire due timers, act, serve waiters, unlock, carry out moves. */
  <T> T run(String name, QueueOperation<T> op) {
    return run(require(name), op);
  }

  <T> T run(LocalQueue q, QueueOperation<T> op) {
    List<LocalQueue.Transfer> moves;
    T result;
    q.lock.lock();
    try {
      long now = clock.millis();
      q.begin(now);
      result = op.apply(q, now);
      q.end(now);
    } finally {
      // The lock is released even when the journal refuses the flush (a stopped writer): a flush
      // that throws must not leave the queue locked for every later caller.
      try {
        q.journal().flush();
      } finally {
        moves = q.drainOutbox();
        keepTicking(q);
        q.lock.unlock();
      }
    }
    deliver(moves);
    if (hotBudget.trimDue()) {
      hotBudget.trim(this::trimHot); // after this queue's lock is released: one lock at a time
    }
    return result;
  }

  /** Trims one queue's hot window to its share of the budget, under its lock. */
  private void trimHot(String name) {
    LocalQueue q = queues.get(name);
    if (q == null) {
      return;
    }
    try {
      run(
          q,
          (lq, now) -> {
            lq.trimHot();
            return Boolean.TRUE;
          });
    } catch (QueueException gone) {
      // deleted meanwhile, or the store cannot be read now: the next trim tries again
    }
  }

  /**
   * A change a caller is told about (an ack, a delete, a visibility change): refused while the
   * journal cannot store changes, so nothing is acknowledged that lives in memory only.
   */
  private <T> T change(String queue, QueueOperation<T> op) {
    LocalQueue q = require(queue);
    refuseWhileTheStoreCannotWrite();
    T result = run(q, op);
    confirmWhileTheStoreCannotWrite();
    return result;
  }

  /**
   * Refuses a change before it is made, with {@link ErrorCode#UNAVAILABLE} (clients retry), while
   * the journal reports it cannot store changes (a full disk): the journal would hold the change in
   * memory until it can, and a crash meanwhile would lose what the caller was told had happened.
   */
  private void refuseWhileTheStoreCannotWrite() {
    Optional<String> problem = journal.problem();
    if (problem.isPresent()) {
      throw new QueueException(
          ErrorCode.UNAVAILABLE,
          "the store cannot take changes now ("
              + problem.get()
              + "): changes are refused until it can store them (nothing was changed); retry"
              + " later");
    }
  }

  /**
   * After a change: while the journal asks for it ({@link Journal#confirmChanges}: its disk is
   * short of room, or it began failing meanwhile), waits until the change is stored, and fails with
   * {@link ErrorCode#UNAVAILABLE} if it cannot be (it stays in memory and is written when the store
   * writes again; a retry of the change then finds it made and waits for it again).
   */
  private void confirmWhileTheStoreCannotWrite() {
    if (durable && journal.confirmChanges()) {
      awaitJournal();
    }
  }

  /** An operation that answers nothing. */
  @SuppressWarnings("NullAway") // the operation's Void result is null
  private void act(String queue, QueueAction action) {
    change(
        queue,
        (q, now) -> {
          action.apply(q, now);
          return null;
        });
  }

  /** A unit of work on one locked queue that answers nothing. */
  @FunctionalInterface
  interface QueueAction {
    void apply(LocalQueue queue, long now);
  }

  /** A unit of work on one locked queue. */
  @FunctionalInterface
  interface QueueOperation<T> {
    T apply(LocalQueue queue, long now);
  }

  void deliver(List<LocalQueue.Transfer> moves) {
    for (LocalQueue.Transfer t : moves) {
      Message placed = moveIn(t.target(), t.message(), false, t.from());
      if (placed != null) {
        events.tell(
            () -> new MessageEvent.DeadLettered(t.from().name, t.target(), placed, t.cause()));
      }
    }
  }

  @Override
  public void onMessageEvent(Consumer<? super MessageEvent> listener) {
    events.add(listener);
  }

  /** Where this engine's queues tell their {@link MessageEvent}s. */
  MessageEventListeners events() {
    return events;
  }

  /**
   * Attaches a detached message to {@code targetName} and returns it as placed there. If the target
   * is gone, puts it back into {@code from}, so that nothing is lost, and returns null.
   */
  @Nullable Message moveIn(
      String targetName, StoredMessage m, boolean redrive, @Nullable LocalQueue from) {
    LocalQueue target = queues.get(targetName);
    Message placed = target == null ? null : attach(target, m, redrive);
    if (placed != null || from == null) {
      return placed; // from == null: the source queue was deleted meanwhile, and its messages with
      // it
    }
    putBack(from, m, targetName);
    return null;
  }

  /**
   * The attribute partition queue {@code name} files {@code m} under ({@link
   * LocalQueue#partitionOf}); null when it files none or is gone.
   */
  @Nullable String partitionIn(String name, StoredMessage m) {
    LocalQueue q = queues.get(name);
    return q == null ? null : q.partitionOf(m);
  }

  /**
   * Puts a message detached from {@code from} for a move to {@code targetName} back where it was,
   * undoing the move's journal entry there: the move did not happen.
   */
  void putBack(LocalQueue from, StoredMessage m, String targetName) {
    List<LocalQueue.Transfer> more = List.of();
    from.lock.lock();
    try {
      from.putBack(m, targetName);
      from.end(clock.millis());
    } finally {
      from.journal().flush();
      more = from.drainOutbox();
      keepTicking(from);
      from.lock.unlock();
    }
    deliver(more);
  }

  private @Nullable Message attach(LocalQueue target, StoredMessage m, boolean redrive) {
    target.lock.lock();
    try {
      long now = clock.millis();
      try {
        target.begin(now);
      } catch (QueueException deleted) {
        return null;
      }
      Message placed = target.accept(m, redrive, now);
      target.end(now);
      return placed;
    } finally {
      target.journal().flush();
      List<LocalQueue.Transfer> more = target.drainOutbox();
      keepTicking(target);
      target.lock.unlock();
      deliver(more);
    }
  }

  // ---- housekeeping ----------------------------------------------------------------------

  private void housekeeping() {
    if (closed) {
      return;
    }
    for (LocalQueue q : ticking.values()) {
      tick(q);
    }
    redrives.progress(clock.millis());
  }

  /**
   * Puts {@code q} among the queues the housekeeping ticks when it has work for a tick; called
   * under its lock at the end of every change (a change that leaves it idle leaves it out).
   */
  void keepTicking(LocalQueue q) {
    if (!q.ticked && q.needsTicks()) {
      q.ticked = true;
      ticking.put(q.name, q); // a deleted queue of the same name still there is dropped with it
    }
  }

  /** How many queues the housekeeping ticks now (tests). */
  int tickedQueues() {
    return ticking.size();
  }

  /** Takes {@code q} out of the ticks once it is idle or deleted; under its lock. */
  private void stopTickingIfIdle(LocalQueue q, boolean deleted) {
    if (q.ticked && (deleted || !q.needsTicks())) {
      q.ticked = false;
      ticking.remove(q.name, q);
    }
  }

  /** Fires due timers of one queue and serves its waiters. */
  void tick(LocalQueue q) {
    List<LocalQueue.Transfer> moves;
    q.lock.lock();
    try {
      long now = clock.millis();
      try {
        q.begin(now);
      } catch (QueueException deleted) {
        stopTickingIfIdle(q, true);
        return;
      }
      q.end(now);
    } finally {
      q.journal().flush();
      moves = q.drainOutbox();
      if (moves.isEmpty()) {
        q.dropIfIdle();
      }
      stopTickingIfIdle(q, false);
      q.lock.unlock();
    }
    deliver(moves);
  }

  private void open() {
    if (closed) {
      throw QueueRules.closed();
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    housekeeper.close();
    for (LocalQueue q : queues.values()) {
      q.lock.lock();
      try {
        q.releaseWaiters();
      } finally {
        q.lock.unlock();
      }
    }
    journal.close();
  }
}
