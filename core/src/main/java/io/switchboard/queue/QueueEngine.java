package io.switchboard.queue;

import io.switchboard.queue.spi.BatchAcks;
import io.switchboard.queue.spi.Journal;
import io.switchboard.queue.spi.QueueRules;
import io.switchboard.queue.spi.SystemRecords;
import io.switchboard.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The queue engine: named queues with priority, FIFO or LIFO order, leases, delays, exact expiry,
 * dead-letter queues, deduplication and message groups. Every implementation (in memory, embedded
 * durable, database) passes the same contract suite, so callers cannot tell them apart except by
 * what survives a restart.
 *
 * <p>Every method is safe to call from any number of threads. A message is leased to at most one
 * consumer at a time. A method that throws {@link QueueException} has changed nothing.
 *
 * <p>Semantics follow {@code docs/design.md}, "Queue semantics"; the points a caller must know are
 * on each method.
 */
public interface QueueEngine extends AutoCloseable {

  /** An in-memory engine on the system clock. */
  static QueueEngine inMemory() {
    return builder().build();
  }

  static Builder builder() {
    return new Builder();
  }

  /**
   * Creates a queue. Creating a queue that exists with the same configuration returns it unchanged;
   * with a different one fails with {@link ErrorCode#QUEUE_ALREADY_EXISTS}. A grouped queue (name
   * ending {@code .fifo}) must have FIFO order. Same as {@link #ensureQueue}, without saying
   * whether this call created the queue.
   */
  default QueueInfo createQueue(String name, QueueConfig config) {
    return ensureQueue(name, config).queue();
  }

  /**
   * Creates a queue as {@link #createQueue} does and says whether this call created it: of several
   * concurrent calls for a new queue (from any number of threads or servers sharing the storage),
   * exactly one answers {@code created = true}.
   */
  QueueCreation ensureQueue(String name, QueueConfig config);

  /**
   * Changes a queue's configuration (its metadata included) atomically: {@code change} gets the
   * current configuration and returns the new one, and no other update of the queue lands in
   * between, on this engine or on another sharing the storage, so concurrent read-modify-write
   * updates (tags, attributes, policies) never lose each other. {@code change} must be free of side
   * effects: it may run more than once (an engine may retry it on a conflict). An exception it
   * throws propagates and changes nothing; returning the current configuration changes nothing.
   * Messages already queued keep their delay and expiry times; a change of order re-sorts the
   * queue.
   */
  QueueInfo updateQueue(String name, UnaryOperator<QueueConfig> change);

  /**
   * Replaces a queue's whole configuration, whatever it is now (last writer wins); to change part
   * of it, use {@link #updateQueue(String, UnaryOperator)}.
   */
  default QueueInfo updateQueue(String name, QueueConfig config) {
    Objects.requireNonNull(config, "config");
    return updateQueue(name, current -> config);
  }

  /** Deletes a queue and its messages. Blocked receives on it return empty. */
  void deleteQueue(String name);

  QueueInfo queue(String name);

  /** Queues whose name starts with {@code prefix} ("" for all), sorted by name. */
  List<QueueInfo> listQueues(String prefix);

  /**
   * One page of {@link #listQueues(String)}: at most {@code limit} (1..) queues whose names start
   * with {@code prefix} and sort after {@code after} ({@code ""} for the first page), by name. This
   * default lists every queue of the prefix first; the in-memory engine keeps only {@code limit} of
   * them while it looks, so a page costs memory by its size, not by the number of queues.
   */
  default List<QueueInfo> listQueues(String prefix, String after, int limit) {
    Objects.requireNonNull(after, "after");
    if (limit < 1) {
      throw QueueException.invalid("limit must be 1 or more, got " + limit);
    }
    return listQueues(prefix).stream()
        .filter(q -> q.name().compareTo(after) > 0)
        .limit(limit)
        .toList();
  }

  SendResult send(String queue, NewMessage message);

  /**
   * Sends up to 1000 messages at once. The batch is validated as a whole: one bad entry refuses the
   * batch and enqueues nothing. Results are in request order.
   */
  List<SendResult> sendBatch(String queue, List<NewMessage> messages);

  /**
   * Takes up to {@code maxMessages} eligible messages in delivery order and leases them: each gets
   * a new receipt, its receive count goes up by one, and it is invisible until the lease runs out.
   * Eligible means available now, not expired, accepted by the filter, and (grouped queues) the
   * available head of a group, or an available message right behind it in the same group with
   * nothing in flight between. With a wait and nothing eligible, blocks until something is or the
   * wait ends; blocked receivers are served first come, first served among those whose filter
   * matches.
   */
  List<Message> receive(String queue, ReceiveRequest request);

  /**
   * Deletes the leased message. Idempotent: acking a message already gone succeeds. A receipt made
   * stale by a later receive of the same message fails with {@link ErrorCode#RECEIPT_STALE}. After
   * the lease ended (ran out, or handed back) the receipt still deletes the message until it is
   * received again, except in a grouped queue, where the group reopened when the lease ended: there
   * it fails with {@link ErrorCode#MESSAGE_NOT_IN_FLIGHT} and changes nothing, as Amazon SQS FIFO.
   */
  void ack(String queue, String receipt);

  /**
   * Acks several receipts of {@code queue}, each on its own as {@link #ack} would: a receipt that
   * is refused (stale, malformed, of another queue) does not stop the others. Returns one entry per
   * receipt, in order: empty when acked (or already gone), else the refusal, which changed nothing.
   * Only a refusal of the whole call is thrown (the queue does not exist, the engine is closed).
   * Engines do the batch at once where they can (one lock hold and one journal write in memory and
   * RocksDB, one statement on PostgreSQL).
   */
  default List<Optional<QueueException>> ackAll(String queue, List<String> receipts) {
    queue(queue);
    return BatchAcks.oneByOne(receipts, (receipt, i) -> ack(queue, receipt));
  }

  /**
   * Ends a lease early: the message returns to its place (or, with {@code toBack}, to the back of
   * the queue) now or after {@code delay} (0..900 s). It counts toward the dead-letter limit.
   */
  void release(String queue, String receipt, Duration delay, boolean toBack);

  default void release(String queue, String receipt) {
    release(queue, receipt, Duration.ZERO, false);
  }

  /**
   * Sets the remaining lease to {@code visibilityTimeout} from now; the lease may not end more than
   * 12 hours after the receive. Zero makes the message available at once.
   */
  Message extend(String queue, String receipt, Duration visibilityTimeout);

  /**
   * {@link #extend} as Amazon SQS's servers take ChangeMessageVisibility: a receipt from an earlier
   * receive of the message is not stale but acts on the message's current lease, whoever holds it
   * (or, the message available again, hides it as its latest receipt would). Everything else is as
   * {@link #extend}: a message gone is {@link ErrorCode#MESSAGE_NOT_FOUND}, a malformed receipt or
   * one of another queue {@link ErrorCode#RECEIPT_INVALID}. The SQS endpoint uses it; the native
   * API keeps {@link #extend}'s rule. An engine that cannot act on the current lease answers as
   * {@link #extend} (the Java client: the native API has no such call).
   */
  default Message extendAnyLease(String queue, String receipt, Duration visibilityTimeout) {
    return extend(queue, receipt, visibilityTimeout);
  }

  /**
   * Reports the leased message failed: it leaves the queue, and is kept as {@code failed} while the
   * queue keeps history.
   */
  void fail(String queue, String receipt);

  /** Moves the leased message to the dead-letter queue now. */
  void deadLetter(String queue, String receipt);

  /** Moves the message to the dead-letter queue now, whatever its state (its lease dies). */
  void deadLetterById(String queue, String id);

  /** Changes a message's priority and/or attributes while it is in the queue. */
  Message update(String queue, String id, MessageUpdate update);

  /** Sends a waiting message to the back of the queue (not allowed on grouped queues). */
  Message touch(String queue, String id);

  /** Removes a message whatever its state; its lease, if any, dies. */
  void remove(String queue, String id);

  /** The message's current state and contents, including history while the queue keeps it. */
  Message get(String queue, String id);

  Page browse(String queue, BrowseRequest request);

  /** Deletes every message in the queue, leased or not. Returns how many. */
  long purge(String queue);

  QueueStats stats(String queue);

  /**
   * Starts moving the messages now in the dead-letter queue {@code source} to their source queues
   * or a named destination. One running task per source.
   */
  RedriveTask startRedrive(String source, RedriveRequest request);

  /** Tasks started on {@code source}, newest first, including finished ones. */
  List<RedriveTask> redriveTasks(String source);

  RedriveTask cancelRedrive(String taskId);

  /** Moves one dead-lettered message back to the queue it came from (to the back). */
  Message restore(String deadLetterQueue, String id);

  /**
   * Tells {@code listener} what becomes of messages beyond the answers of calls ({@link
   * MessageEvent}): dead-lettered by the engine or by a call, redriven or restored, dropped at
   * expiry. It is told after the change is made, on the thread that made it (a caller's, or the
   * engine's housekeeping), perhaps holding a queue's lock: it must be quick and must not call the
   * engine. An engine that cannot tell (a remote one) ignores the listener.
   */
  default void onMessageEvent(Consumer<? super MessageEvent> listener) {}

  /**
   * Has every redrive task ask {@code check} before each message it moves ({@link MoveCheck}),
   * replacing the check set before. An engine that runs no tasks itself (a remote one) ignores it.
   */
  default void checkMoves(MoveCheck check) {}

  /**
   * The clock this engine's timers read. Front ends that keep timers of their own next to the
   * engine's (the SQS layer's purge limit and receive-attempt window) read it too, so a test's
   * manual clock drives both. A remote engine answers with the system clock.
   */
  default Clock clock() {
    return Clock.system();
  }

  /**
   * The longest time one operation has held a queue's lock in this engine since it started: what
   * DESIGN.md's "no request holds a queue's lock for more than a few milliseconds" is measured by.
   * Zero for an engine that holds no such locks itself (a remote one).
   */
  default Duration longestLockHold() {
    return Duration.ZERO;
  }

  /**
   * The most entries (messages tested by a selector, passed over in a queue's ordered sets, read by
   * a browse page or a redrive's snapshot) one hold of a queue's lock has examined since the engine
   * started: the work bound behind {@link #longestLockHold}, which holds however fast the machine.
   * Zero for an engine that holds no such locks itself.
   */
  default long mostExaminedInOneLockHold() {
    return 0;
  }

  /**
   * The records this engine keeps for the server (access keys, server secrets) in its store: they
   * survive a restart when the engine is durable and are shared by every engine on the same store.
   * A remote engine (a client of another server) has none and throws {@link
   * UnsupportedOperationException}.
   */
  default SystemRecords systemRecords() {
    throw new UnsupportedOperationException(
        getClass().getSimpleName() + " keeps no system records (it is not a store)");
  }

  /** The limits this engine holds its queues to ({@link QueueLimits#NONE} when it has none). */
  default QueueLimits limits() {
    return QueueLimits.NONE;
  }

  /**
   * Queued bytes of all queues ({@link QueueLimits}: bodies, attributes and bookkeeping), as {@link
   * QueueLimits#maxQueuedBytes} counts them; 0 for an engine that does not count them.
   */
  default long queuedBytes() {
    return 0;
  }

  /** Queued bytes of one queue, as {@link QueueLimits#maxQueueBytes} counts them. */
  default long queuedBytes(String queue) {
    return 0;
  }

  /**
   * All queues at a glance ({@link QueueOverview}): totals, the largest use of each per-queue
   * limit, and the names of at most {@code top} (0..) queues holding the most messages and of at
   * most {@code top} whose oldest message is oldest. The answer's size does not grow with the
   * number of queues. This default reads every queue's {@link #stats}; the in-memory engine reads a
   * few figures of each queue without taking its lock and allocates nothing per queue.
   */
  default QueueOverview overview(int top) {
    QueueTally tally = new QueueTally(top);
    long now = clock().millis();
    for (QueueInfo info : listQueues("")) {
      QueueStats s;
      long bytes;
      try {
        s = stats(info.name());
        bytes = queuedBytes(info.name());
      } catch (QueueException deletedMeanwhile) {
        continue;
      }
      tally.add(
          info.name(),
          info.grouped(),
          info.config().maxDepth().isEmpty(),
          s.available(),
          s.delayed(),
          s.inFlight(),
          bytes,
          s.oldestAge().map(age -> now - age.toMillis()).orElse(-1L));
    }
    return tally.overview();
  }

  /** Stops background work. Blocked receives return empty. */
  @Override
  void close();

  /**
   * Available messages a standard queue keeps in the heap by default ({@link Builder#hotWindow}).
   */
  int DEFAULT_HOT_WINDOW = 4096;

  /** Builds an in-memory engine. */
  final class Builder {
    private Clock clock = Clock.system();
    private int maxQueues = 10_000;
    private Duration housekeepingInterval = Duration.ofMillis(100);
    private Journal journal = NoJournal.INSTANCE;
    private QueueLimits limits = QueueLimits.NONE;
    private int hotWindow = DEFAULT_HOT_WINDOW;

    private Builder() {}

    /** The limits the engine holds its queues to; default {@link QueueLimits#NONE}. */
    public Builder limits(QueueLimits limits) {
      this.limits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /**
     * Makes the engine durable: it recovers its state from the journal on build and writes every
     * change to it. Without one, the engine lives in memory only.
     */
    public Builder journal(Journal journal) {
      this.journal = Objects.requireNonNull(journal, "journal");
      return this;
    }

    /** The clock every timer reads; {@code ManualClock} in tests. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The most queues the engine holds; 1..1000000, default 10000. */
    public Builder maxQueues(int maxQueues) {
      this.maxQueues = QueueRules.checkMaxQueues(maxQueues);
      return this;
    }

    /**
     * How often background work (rate-limited redrives, expiry with no traffic) runs on the system
     * clock; a manual clock runs it on every advance instead. Default 100 ms.
     */
    public Builder housekeepingInterval(Duration interval) {
      this.housekeepingInterval = QueueRules.checkHousekeepingInterval(interval);
      return this;
    }

    /**
     * How many available messages each standard queue keeps in the heap when the journal keeps the
     * orders of every waiting message ({@code Journal#maintainsOrders}): the rest of the backlog
     * stays in the store and is read back in pages of this size ahead of the receivers
     * (docs/design.md, "A backlog bigger than memory"). 0 keeps every message in the heap. With any
     * other journal the heap holds every message whatever this says. 0..1000000, default 4096.
     */
    public Builder hotWindow(int messages) {
      this.hotWindow = QueueRules.checkHotWindow(messages);
      return this;
    }

    public QueueEngine build() {
      return new MemoryQueueEngine(
          clock, maxQueues, housekeepingInterval, journal, limits, hotWindow);
    }
  }
}
