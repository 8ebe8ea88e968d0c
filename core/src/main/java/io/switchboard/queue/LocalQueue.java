package io.switchboard.queue;

import io.switchboard.queue.spi.CheckedMessage;
import io.switchboard.queue.spi.DeadLetterRules;
import io.switchboard.queue.spi.Journal;
import io.switchboard.queue.spi.JournalEntry;
import io.switchboard.queue.spi.MessageRecord;
import io.switchboard.queue.spi.MessageRules;
import io.switchboard.queue.spi.Messages;
import io.switchboard.queue.spi.Place;
import io.switchboard.queue.spi.QueueRules;
import io.switchboard.queue.spi.Receipt;
import io.switchboard.queue.spi.ReceiptKey;
import io.switchboard.queue.spi.Snapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * One queue of the in-memory engine: its configuration, messages, deduplication window, history,
 * counters and blocked receivers. Every method runs under {@link #lock}, which the engine takes
 * around each operation after calling {@link #begin}; moves to other queues are left in the outbox
 * for the engine to carry out once the lock is released, so no thread ever holds two queue locks.
 */
final class LocalQueue {

  /** A message on its way to another queue. */
  /** A message dead-lettered to {@code target}, for the engine to attach once the lock is free. */
  record Transfer(
      StoredMessage message, String target, MessageEvent.Cause cause, LocalQueue from) {}

  final String name;
  final boolean grouped;

  /** When the queue was made, in epoch milliseconds (not an {@link Instant}: 24 bytes less). */
  final long createdAt;

  final QueueLock lock;

  private final MemoryQueueEngine engine;
  final long receiptKey;

  /** Derived from the server's key, {@link #name} and {@link #receiptKey} on first use. */
  private @Nullable ReceiptKey receipts;

  /**
   * The queue's messages and every structure that finds them; null until the queue first holds a
   * message, and again once it stayed empty for a housekeeping interval ({@link #dropIfIdle}), so
   * an idle queue costs the heap none of them. Read through the null-safe helpers below; {@link
   * #table()} makes it.
   */
  private @Nullable MessageTable table;

  /** {@link MessageTable#inserts} when the last housekeeping tick found the table empty. */
  private long insertsAtIdleTick = -1;

  private final QueueJournal journal;

  /**
   * The hot window over the store's backlog; null when the heap holds every message, or while
   * {@link #table} is null (the queue holds nothing, hot or cold).
   */
  private @Nullable HotWindow hot;

  // The deduplication window, history, wait line, outbox, counters (and the receipt key above) are
  // made by their first use (QueueStateOnFirstUseTest): an idle queue of a million holds none of
  // them, which is what a restart has to build and the collector to copy (docs/design.md,
  // "Recovery streams the queues").
  private @Nullable DedupWindow dedup;
  private @Nullable History history;
  private @Nullable WaitLine waiters;
  private @Nullable WaitView waitLineView;

  /** The queue as its wait line sees it; made with the line. */
  private final class WaitView implements WaitLine.Queue {
    @Override
    public List<Message> take(
        int max, @Nullable MessageFilter filter, long visibility, long now, @Nullable Scan scan) {
      return LocalQueue.this.take(max, filter, visibility, now, scan);
    }

    @Override
    public Scan newScan() {
      return LocalQueue.this.newScan();
    }

    @Override
    public boolean hasEligible() {
      MessageTable t = table;
      // a grouped queue's groups with cold messages have their heads in the heap
      return (t != null && t.ordering().hasEligible()) || (!grouped && cold() > 0);
    }

    @Override
    public boolean isEligible(StoredMessage m) {
      MessageTable t = table;
      return t != null && t.get(m.serial) == m && t.ordering().isEligible(m);
    }
  }

  private @Nullable List<Transfer> outbox;
  private @Nullable QueueCounters counters;
  private volatile QueueConfig config;
  private boolean deleted;
  private long backSeq;

  /** Messages of sends waiting for their journal write; they count toward maxDepth. */
  private long pendingSends;

  /** Queued bytes of those sends; they count toward the byte limits. */
  private long pendingBytes;

  /** This queue's share of the engine's queued bytes as last added to it ({@link #reportBytes}). */
  private long reportedBytes;

  /**
   * Send time of its oldest message at the end of the last operation, -1 if none ({@link #tally}).
   */
  private long oldestSentAt = -1;

  LocalQueue(
      MemoryQueueEngine engine,
      String name,
      QueueConfig config,
      Instant createdAt,
      long receiptKey) {
    this.engine = engine;
    this.lock = new QueueLock(engine.lockHolds(), engine.clock());
    this.name = name;
    this.grouped = QueueRules.isGrouped(name);
    this.config = config;
    this.createdAt = createdAt.toEpochMilli();
    this.receiptKey = receiptKey;
    this.journal = new QueueJournal(engine.journal(), engine.durable(), engine.placements(), name);
  }

  /** The queue's table, made (with its hot window) when the queue has none. */
  private MessageTable table() {
    MessageTable t = table;
    if (t != null) {
      return t;
    }
    QueueConfig c = config;
    t =
        new MessageTable(
            grouped,
            c.order(),
            c.indexedAttributes(),
            engine.durable(),
            engine.placements(),
            lock.work);
    t.keyLimit(c.keyLimit().orElse(0));
    table = t;
    journal.attach(t);
    io.switchboard.queue.spi.Orders orders = engine.orders();
    if (orders != null && engine.hotWindow() > 0) {
      hot =
          new HotWindow(
              name,
              engine.hotWindow(),
              engine.hotBudget(),
              orders,
              t,
              journal,
              grouped ? Order.FIFO : c.order());
    }
    return t;
  }

  /**
   * The queue's receipt key. Deterministic, and all its fields final: two threads that both make it
   * make equal keys, and either's is kept.
   */
  private ReceiptKey receipts() {
    ReceiptKey r = receipts;
    return r != null ? r : (receipts = engine.receiptKeys().derive(name, receiptKey));
  }

  private DedupWindow dedup() {
    DedupWindow d = dedup;
    return d != null ? d : (dedup = new DedupWindow());
  }

  private History history() {
    History h = history;
    return h != null ? h : (history = new History());
  }

  private WaitLine waiters() {
    WaitLine w = waiters;
    if (w == null) {
      waitLineView = new WaitView();
      w = waiters = new WaitLine();
    }
    return w;
  }

  private List<Transfer> outbox() {
    List<Transfer> o = outbox;
    return o != null ? o : (outbox = new ArrayList<>());
  }

  private QueueCounters counters() {
    QueueCounters c = counters;
    return c != null ? c : (counters = new QueueCounters());
  }

  /**
   * Whether the queue has made the state it makes on first use (tests: an idle queue, created or
   * restored, has none of it).
   */
  boolean hasLazyState() {
    return dedup != null
        || history != null
        || waiters != null
        || outbox != null
        || counters != null
        || receipts != null;
  }

  /** Whether the queue has its message table now (tests: an idle queue has none). */
  boolean hasTable() {
    return table != null;
  }

  /**
   * Gives the table and the hot window back to the heap when the queue held nothing at this
   * housekeeping tick and at the last one, and took no message in between: so a queue that empties
   * for good costs what an idle one costs, and a busy queue that runs dry between messages keeps
   * its table. Called under the lock, after the journal was flushed.
   */
  void dropIfIdle() {
    MessageTable t = table;
    if (t == null) {
      return;
    }
    if (t.size() > 0
        || cold() > 0
        || coldDelayed() > 0
        || pendingSends > 0
        || !t.newlyEligible.isEmpty()) {
      insertsAtIdleTick = -1;
      return;
    }
    if (insertsAtIdleTick != t.inserts()) {
      insertsAtIdleTick = t.inserts();
      return;
    }
    if (hot != null) {
      hot.release();
      hot = null;
    }
    journal.attach(null);
    table = null;
    insertsAtIdleTick = -1;
  }

  /**
   * Whether a housekeeping tick has anything to do here: the queue holds messages (or its table,
   * not yet dropped), sends waiting for their write, deduplication ids or history records that
   * expire, or blocked receivers. A queue without any is left out of the ticks ({@link #ticked}),
   * so idle queues cost the housekeeping thread nothing however many there are. Under the lock.
   */
  boolean needsTicks() {
    return table != null
        || hot != null
        || pendingSends > 0
        || (dedup != null && dedup.size() > 0)
        || (history != null && !history.isEmpty())
        || (waiters != null && waiters.size() > 0)
        || (outbox != null && !outbox.isEmpty());
  }

  /** Whether the engine's housekeeping ticks this queue; changed under the lock, read without. */
  volatile boolean ticked;

  static long newReceiptKey() {
    return ThreadLocalRandom.current().nextLong();
  }

  QueueJournal journal() {
    return journal;
  }

  JournalEntry.QueuePut journalRecord() {
    return new JournalEntry.QueuePut(name, config, createdAt, receiptKey);
  }

  QueueConfig config() {
    return config;
  }

  QueueInfo info() {
    return new QueueInfo(name, grouped, config, Instant.ofEpochMilli(createdAt));
  }

  void reconfigure(QueueConfig next) {
    QueueConfig previous = config;
    config = next;
    journal.emit(journalRecord());
    boolean attributesChanged = !previous.indexedAttributes().equals(next.indexedAttributes());
    if (previous.order() != next.order() || attributesChanged) {
      if (hot != null) {
        hot.reorder(next.order(), attributesChanged);
      }
      if (table != null) {
        table.rebuild(next.order(), next.indexedAttributes());
      }
      if (hot != null) {
        hot.reordered();
      }
    }
    if (table != null) {
      table.keyLimit(next.keyLimit().orElse(0)); // a group it no longer holds wakes waiters
    }
  }

  // ---- operation frame -------------------------------------------------------------------

  /** Starts an operation: refuses a deleted queue, fires due timers, serves waiters first. */
  void begin(long now) {
    if (deleted) {
      throw QueueException.queueNotFound(name);
    }
    advance(now);
  }

  /** Ends an operation: hands what became eligible to waiters, tidies the indexes. */
  void end(long now) {
    if (hot != null) {
      hot.endOperation();
    }
    dispatch(now);
    MessageTable t = table;
    if (t != null) {
      t.compact();
    }
    if (waiters != null) {
      waiters.wakeFirst();
    }
    reportBytes();
    oldestSentAt = t == null ? -1 : t.oldestSentAt();
  }

  /** Queued bytes of the queue: its messages and the sends waiting for their journal write. */
  long queuedBytes() {
    MessageTable t = table;
    return (t == null ? 0 : t.bytes()) + pendingBytes;
  }

  // the table's counts, zero while the queue has no table

  private long size() {
    MessageTable t = table;
    return t == null ? 0 : t.size();
  }

  private long available() {
    MessageTable t = table;
    return t == null ? 0 : t.available();
  }

  /** Delayed messages, those kept only in the store ({@link HotWindow}) included. */
  private long delayed() {
    MessageTable t = table;
    return (t == null ? 0 : t.delayed()) + coldDelayed();
  }

  private long inFlight() {
    MessageTable t = table;
    return t == null ? 0 : t.inFlight();
  }

  /**
   * Adds this queue's counts to {@code tally}, read without the lock ({@link
   * MemoryQueueEngine#overview}): plain reads of fields written under it, for figures that may be a
   * moment old. Available counts the cold messages of a {@link HotWindow} too; the oldest send time
   * is the heap's (finding the oldest cold one reads the store: {@link #stats} does, under the
   * lock).
   */
  void tally(QueueTally tally) {
    tally.add(
        name,
        grouped,
        config.maxDepth().isEmpty(),
        available() + cold(),
        delayed(),
        inFlight(),
        reportedBytes,
        oldestSentAt);
  }

  /** Brings the engine's total of queued bytes up to date with this queue's. */
  void reportBytes() {
    long bytes = deleted ? 0 : queuedBytes(); // a deleted queue's late sends never arrive
    if (bytes != reportedBytes) {
      engine.addQueuedBytes(bytes - reportedBytes);
      reportedBytes = bytes;
    }
  }

  List<Transfer> drainOutbox() {
    List<Transfer> outbox = this.outbox;
    if (outbox == null || outbox.isEmpty()) {
      return List.of();
    }
    List<Transfer> out = List.copyOf(outbox);
    outbox.clear();
    return out;
  }

  /**
   * Fires visibility and expiry timers due by {@code now} in the order they fell due (an expiry
   * first when both fall on the same millisecond), so the outcome does not depend on how late the
   * timers are fired: a message that expired during its lease expires, it is not released first.
   * Then serves waiters.
   */
  void advance(long now) {
    if (hot != null) {
      hot.promoteExpired(now); // cold messages due now join the heap's expiry timers
    }
    MessageTable table = this.table;
    while (table != null) {
      StoredMessage m = table.firstVisibleBy(now);
      long expiryDue = table.nextExpiryDue();
      if (expiryDue <= now && (m == null || expiryDue <= m.visibleAt)) {
        expire(table.expiredBy(expiryDue), now);
        continue;
      }
      if (m == null) {
        if (hot != null && hot.promoteDelayed(now)) {
          continue; // cold delayed messages due by now were read in: their timers fire above
        }
        break;
      }
      if (m.state == StoredMessage.IN_FLIGHT) {
        counters().released++;
        if (exhausted(m) && deadLetter(m, now, MessageEvent.Cause.MAX_RECEIVES)) {
          continue;
        }
      }
      table.setState(m, StoredMessage.AVAILABLE, 0);
    }
    if (dedup != null) {
      dedup.expire(now, key -> journal.emit(new JournalEntry.DedupDelete(name, key)));
    }
    if (history != null) {
      history.expire(now, serial -> journal.emit(new JournalEntry.HistoryDelete(name, serial)));
    }
    dispatch(now);
    if (waiters != null) {
      waiters.expire(now);
    }
  }

  private void expire(List<StoredMessage> expired, long now) {
    for (StoredMessage m : expired) {
      if (config.onExpire() == ExpiryAction.DEAD_LETTER) {
        if (deadLetter(m, now, MessageEvent.Cause.EXPIRED)) {
          counters().expired++; // a refused move leaves it unexpired, its expiry put off
        }
      } else {
        counters().expired++;
        table().detach(m);
        engine.events().tell(() -> new MessageEvent.Expired(name, view(m, null, null)));
      }
    }
  }

  long nextDue() {
    MessageTable t = table;
    if (t == null) {
      return Long.MAX_VALUE;
    }
    return hot == null ? t.nextDue() : Math.min(t.nextDue(), hot.nextDue());
  }

  /**
   * Trims the queue's hot window to its share of the engine's hot budget ({@link HotBudget#trim});
   * the caller ends the operation as any other.
   */
  void trimHot() {
    if (hot != null) {
      hot.trim();
    }
  }

  // ---- send ------------------------------------------------------------------------------

  /** A send in memory only: the messages are queued at once. */
  List<SendResult> send(List<CheckedMessage> batch, long now) {
    PendingSend send = prepareSend(batch, now);
    pendingBytes -= send.bytes;
    for (StoredMessage m : send.messages) {
      table().insert(m, false);
    }
    counters().sent += send.messages.size();
    return send.results;
  }

  /**
   * A journaled send, step one: everything decided (duplicates, room, sequence numbers) and the
   * messages written to the journal, but not queued until the write is durable ({@link
   * #completeSend}); if it fails, {@link #abortSend}. So a send that fails leaves no trace, and no
   * consumer sees a message that could vanish in a crash.
   */
  PendingSend beginSend(List<CheckedMessage> batch, long now) {
    PendingSend send = prepareSend(batch, now);
    List<JournalEntry> entries = new ArrayList<>(send.messages.size() * 2);
    boolean placements = journal.placements();
    for (StoredMessage m : send.messages) {
      entries.add(new JournalEntry.MessagePut(name, QueueJournal.record(m)));
      if (placements) {
        entries.add(new JournalEntry.Placement(name, m.serial, null, table().place(m)));
      }
    }
    for (int i = 0; i < send.dedupKeys.size(); i++) {
      SendResult r = send.dedupResults.get(i);
      entries.add(
          new JournalEntry.DedupPut(
              name,
              send.dedupKeys.get(i),
              engine.ids().serial(r.id()),
              r.sequence(),
              now + MessageRules.DEDUP_WINDOW_MILLIS));
    }
    pendingSends += send.messages.size();
    if (!send.messages.isEmpty()) {
      table(); // the send's messages join it when their write completes
    }
    if (hot != null) {
      hot.sending(send.messages);
    }
    try {
      send.ticket = journal.flushDurable(entries);
    } catch (RuntimeException e) {
      abortSend(send); // a journal that refuses at once: nothing stays reserved
      throw e;
    }
    return send;
  }

  List<SendResult> completeSend(PendingSend send) {
    pendingSends -= send.messages.size();
    if (hot != null) {
      hot.sent(send.messages);
    }
    pendingBytes -= send.bytes;
    for (StoredMessage m : send.messages) {
      table().insert(m, false);
    }
    counters().sent += send.messages.size();
    return send.results;
  }

  void abortSend(PendingSend send) {
    pendingSends -= send.messages.size();
    if (hot != null) {
      hot.sent(send.messages);
    }
    pendingBytes -= send.bytes;
    reportBytes();
    for (String key : send.dedupKeys) {
      dedup().forget(key);
    }
  }

  /** What a send decided before anything is queued. */
  static final class PendingSend {
    final List<StoredMessage> messages = new ArrayList<>();
    final List<SendResult> results = new ArrayList<>();
    final List<String> dedupKeys = new ArrayList<>();
    final List<SendResult> dedupResults = new ArrayList<>();
    Journal.Ticket ticket = Journal.DONE;

    /** Queued bytes of {@link #messages}, reserved in the engine's total until they are queued. */
    long bytes;
  }

  /**
   * Decides a send: refuses it when it would pass a limit (queue bytes, server bytes, depth),
   * changing nothing; otherwise reserves its bytes in the engine's total and makes its messages.
   */
  private PendingSend prepareSend(List<CheckedMessage> batch, long now) {
    Fresh fresh = countFresh(batch, now);
    QueueLimits limits = engine.limits();
    long queued = queuedBytes();
    if (fresh.bytes > 0 && queued + fresh.bytes > limits.maxQueueBytes()) {
      throw limits.queueBytesFull(name, queued, fresh.bytes);
    }
    engine.reserveQueuedBytes(fresh.bytes);
    try {
      makeRoom(fresh.count);
    } catch (RuntimeException e) {
      engine.addQueuedBytes(-fresh.bytes);
      throw e;
    }
    pendingBytes += fresh.bytes;
    reportedBytes += fresh.bytes;
    PendingSend send = new PendingSend();
    send.bytes = fresh.bytes;
    long seq = engine.nextSequences(fresh.count);
    for (CheckedMessage p : batch) {
      SendResult dup = p.dedupKey() == null ? null : dedup().find(p.dedupKey(), now);
      if (dup != null) {
        counters().duplicates++;
        send.results.add(new SendResult(dup.id(), dup.sequence(), true));
        continue;
      }
      StoredMessage m = store(p, seq++, now);
      send.messages.add(m);
      SendResult result = new SendResult(engine.ids().id(m.serial), m.seq, false);
      if (p.dedupKey() != null) {
        dedup().remember(p.dedupKey(), result, now);
        send.dedupKeys.add(p.dedupKey());
        send.dedupResults.add(result);
      }
      send.results.add(result);
    }
    return send;
  }

  /** How many messages of a send, and how many queued bytes, are not duplicates. */
  private record Fresh(int count, long bytes) {}

  /** Sends that are not duplicates (of the window or of an earlier entry of the same batch). */
  private Fresh countFresh(List<CheckedMessage> batch, long now) {
    int fresh = 0;
    long bytes = 0;
    java.util.Set<String> seen = null; // made for the first deduplication key only
    for (CheckedMessage p : batch) {
      String key = p.dedupKey();
      if (key != null) {
        if (dedup != null && dedup.find(key, now) != null) {
          continue;
        }
        if (seen == null) {
          seen = new java.util.HashSet<>();
        }
        if (!seen.add(key)) {
          continue;
        }
      }
      fresh++;
      bytes += QueueLimits.charge(p.body().length + AttributeMap.bytes(p.attributes()));
    }
    return new Fresh(fresh, bytes);
  }

  private void makeRoom(int fresh) {
    if (fresh == 0) {
      return;
    }
    long max = engine.limits().maxDepth(config);
    long excess = size() + cold() + coldDelayed() + pendingSends + fresh - max;
    if (excess <= 0) {
      return;
    }
    long droppable = available() + cold() + delayed();
    if (config.overflow() == Overflow.REJECT || droppable < excess || fresh > max) {
      throw new QueueException(
          ErrorCode.QUEUE_FULL,
          "queue '"
              + name
              + "' is full: maxDepth is "
              + max
              + (config.maxDepth().isEmpty() ? " (the server's default-max-depth)" : "")
              + ", it holds "
              + (size() + cold() + coldDelayed() + pendingSends)
              + ", and the send adds "
              + fresh);
    }
    MessageTable table = table(); // droppable > 0: it has one
    for (long i = 0; i < excess; i++) {
      table.detach(
          Objects.requireNonNull(
              cold() + coldDelayed() > 0
                  ? Objects.requireNonNull(hot).oldestNotInFlight()
                  : table.oldestNotInFlight()));
      counters().shed++;
    }
  }

  private StoredMessage store(CheckedMessage p, long seq, long now) {
    NewMessage src = p.source();
    String groupId = src.groupId().map(g -> table().sharedGroupId(g)).orElse(null);
    Object[] attributes = AttributeMap.flatten(p.attributes());
    StoredMessage m =
        new StoredMessage(
            seq, seq, now, p.body(), attributes, src.priority(), groupId, p.dedupId());
    m.expiresAt = now + p.ttlMillis();
    if (p.delayMillis() > 0) {
      m.state = StoredMessage.DELAYED;
      m.visibleAt = now + p.delayMillis();
    } else {
      m.state = StoredMessage.AVAILABLE;
    }
    return m;
  }

  // ---- receive ---------------------------------------------------------------------------

  /**
   * A filtered scan with a fresh budget for the current lock hold; {@link #startHold} renews it in
   * each later hold.
   */
  Scan newScan() {
    Scan scan = new Scan(engine.scanLimits(), engine.clock());
    startHold(scan);
    return scan;
  }

  void startHold(Scan scan) {
    MessageTable t = table;
    scan.startHold(t == null ? 0 : t.eligible(), lock.work);
  }

  /**
   * Takes and leases eligible messages now; empty when none. A filtered take tests at most what
   * {@code scan} may still spend in this hold, from where it stopped.
   */
  List<Message> take(
      int max,
      @Nullable MessageFilter filter,
      long visibilityMillis,
      long now,
      @Nullable Scan scan) {
    QueueLimits limits = engine.limits();
    max = (int) Math.min(max, inFlightRoom(limits));
    if (hot != null && max > 0) {
      hot.fill(max, filter);
    }
    MessageTable table = this.table;
    if (max <= 0 || table == null || !table.ordering().hasEligible()) {
      if (scan != null) {
        scan.finish();
      }
      if (max > 0 && table != null && table.ordering().anyHeld()) {
        counters().keyLimited++; // only groups at their limit have messages waiting
      }
      return List.of();
    }
    List<StoredMessage> taken =
        table.take(max, filter, now, scan, new AnswerBudget(limits.maxAnswerBytes()));
    if (table.ordering().skippedKey) {
      counters().keyLimited++;
    }
    if (taken.isEmpty()) {
      return List.of();
    }
    List<Message> out = new ArrayList<>(taken.size());
    for (StoredMessage m : taken) {
      table.lease(m, now, visibilityMillis);
      counters().received++;
      Receipt.Issued receipt = new Receipt(m.serial, m.leaseEpoch).issue(receipts());
      m.leaseTag = receipt.tag();
      out.add(view(m, receipt.handle(), null));
    }
    return out;
  }

  /** How many more messages may be in flight in this queue. */
  private long inFlightRoom(QueueLimits limits) {
    return limits.maxInFlight(grouped) - inFlight();
  }

  /** Refuses a receive while the queue is at its in-flight limit (a waiter just gets nothing). */
  void checkInFlight() {
    QueueLimits limits = engine.limits();
    if (inFlightRoom(limits) <= 0) {
      throw limits.overLimit(name, grouped, inFlight());
    }
  }

  long visibilityMillis(ReceiveRequest request) {
    return request.visibilityTimeout().orElse(config.visibilityTimeout()).toMillis();
  }

  long waitMillis(ReceiveRequest request) {
    return request.waitTime().orElse(config.receiveWait()).toMillis();
  }

  Waiter enqueueWaiter(ReceiveRequest request, long now) {
    Waiter w =
        new Waiter(
            request.maxMessages(),
            visibilityMillis(request),
            request.filter().orElse(null),
            now + waitMillis(request));
    waiters().add(w);
    return w;
  }

  /** Gives up a wait (deadline or interrupt); false if a handover beat it. */
  boolean abandon(Waiter w) {
    return waiters().abandon(w);
  }

  /** Takes a waiter out of the line to answer it with what its own scan found. */
  boolean removeWaiter(Waiter w) {
    return waiters().remove(w);
  }

  /** Whether {@code w} is first in line, and so the one that wakes for timers. */
  boolean isTimerWaiter(Waiter w) {
    return waiters().isFirst(w);
  }

  private void dispatch(long now) {
    MessageTable t = table;
    if (t != null) {
      WaitLine w = waiters;
      if (w == null) {
        t.newlyEligible.clear(); // no one waits: as the line does when it is empty
        t.ordering().keyFreed = false;
      } else {
        w.dispatch(t.newlyEligible, java.util.Objects.requireNonNull(waitLineView), now);
        if (t.ordering().keyFreed) {
          t.ordering().keyFreed = false;
          w.rescanFiltered(); // a freed key's other messages may match a filtered waiter
        }
      }
    }
  }

  int waiterCount() {
    WaitLine w = waiters;
    return w == null ? 0 : w.size();
  }

  /** Ends every wait (queue deleted or engine closed). */
  void releaseWaiters() {
    if (waiters != null) {
      waiters.releaseAll();
    }
  }

  // ---- lease operations ------------------------------------------------------------------

  void ack(String receipt, long now) {
    StoredMessage m = leased(receipt, false);
    if (m == null) {
      return;
    }
    if (grouped && m.state != StoredMessage.IN_FLIGHT) {
      // the lease ended and its group reopened: as SQS FIFO, its receipt no longer deletes
      throw MessageRules.notInFlight(engine.ids().id(m.serial), m.publicState());
    }
    table().detach(m);
    counters().acked++;
    remember(m, MessageState.COMPLETED, now);
  }

  void fail(String receipt, long now) {
    StoredMessage m = Objects.requireNonNull(leased(receipt, true)); // strict: never null
    table().detach(m);
    counters().failed++;
    remember(m, MessageState.FAILED, now);
  }

  void release(String receipt, Duration delay, boolean toBack, long now) {
    MessageRules.checkRelease(name, grouped, delay, toBack);
    StoredMessage m = Objects.requireNonNull(leased(receipt, true)); // strict: never null
    counters().released++;
    if (exhausted(m) && deadLetter(m, now, MessageEvent.Cause.MAX_RECEIVES)) {
      return;
    }
    if (toBack) {
      table().setSeq(m, backSeq());
    }
    if (delay.isZero()) {
      table().setState(m, StoredMessage.AVAILABLE, 0);
    } else {
      table().setState(m, StoredMessage.DELAYED, now + delay.toMillis());
    }
  }

  Message extend(String receipt, Duration visibility, long now) {
    return extend(receipt, visibility, false, now);
  }

  /**
   * Extend; with {@code anyLease}, a receipt of an earlier lease of the message acts on its current
   * one (SQS's ChangeMessageVisibility) instead of being stale.
   */
  Message extend(String receipt, Duration visibility, boolean anyLease, long now) {
    MessageRules.checkExtend(visibility);
    StoredMessage m = leased(receipt, false, anyLease);
    if (m == null) {
      throw MessageRules.leaseGone(name);
    }
    long until = MessageRules.extendedUntil(visibility, m.leasedAt, now);
    if (m.state == StoredMessage.AVAILABLE) {
      // The lease ran out and nobody received the message since: the receipt is still the latest,
      // so (as SQS) it may hide the message again; zero leaves it available.
      if (!visibility.isZero()) {
        table().setState(m, StoredMessage.IN_FLIGHT, until);
      }
      return view(m, null, null);
    }
    if (m.state != StoredMessage.IN_FLIGHT) {
      throw MessageRules.notInFlight(engine.ids().id(m.serial), m.publicState());
    }
    if (visibility.isZero()) {
      counters().released++;
      if (exhausted(m)) {
        Message left = view(m, null, MessageState.DEAD_LETTERED);
        if (deadLetter(m, now, MessageEvent.Cause.MAX_RECEIVES)) {
          return DeadLetterRules.deadLettersToItself(name, config) ? view(m, null, null) : left;
        }
        // the move was refused: it stays, released as any other
      }
      table().setState(m, StoredMessage.AVAILABLE, 0);
    } else {
      table().setState(m, StoredMessage.IN_FLIGHT, until);
    }
    return view(m, null, null);
  }

  void deadLetterLeased(String receipt, long now) {
    requireDeadLetterTarget();
    deadLetter(
        Objects.requireNonNull(leased(receipt, true)), now, MessageEvent.Cause.REQUESTED); // strict
  }

  /**
   * The leased message a receipt names. With {@code strict}, a message gone or no longer in flight
   * is an error; otherwise (ack) null means "already gone, nothing to do".
   */
  private @Nullable StoredMessage leased(String receipt, boolean strict) {
    return leased(receipt, strict, false);
  }

  /** {@link #leased(String, boolean)}; with {@code anyLease}, any lease's receipt names it. */
  private @Nullable StoredMessage leased(String receipt, boolean strict, boolean anyLease) {
    Receipt.Presented h = Receipt.parse(receipt, name);
    StoredMessage m = find(h.serial());
    byte[] issued = m == null ? null : m.leaseTag;
    if (m == null || issued == null || m.leaseEpoch != h.leaseEpoch() || !h.carries(issued)) {
      h.verify(receipts(), receipt, name); // not the handle issued for this lease: its MAC decides
    }
    if (m == null) {
      if (strict) {
        throw MessageRules.leaseGone(name);
      }
      return null;
    }
    if (m.leaseEpoch != h.leaseEpoch() && !anyLease) {
      throw MessageRules.staleReceipt(engine.ids().id(m.serial));
    }
    if (strict && m.state != StoredMessage.IN_FLIGHT) {
      throw MessageRules.notInFlight(engine.ids().id(m.serial), m.publicState());
    }
    return m;
  }

  // ---- by-id operations ------------------------------------------------------------------

  StoredMessage require(long serial, String id) {
    StoredMessage m = serial == 0 ? null : find(serial);
    if (m == null) {
      throw QueueException.messageNotFound(name, id);
    }
    return m;
  }

  Message get(long serial, String id) {
    StoredMessage m = serial == 0 ? null : find(serial);
    if (m != null) {
      return view(m, null, null);
    }
    Message h = serial == 0 || history == null ? null : history.find(serial);
    if (h == null) {
      throw QueueException.messageNotFound(name, id);
    }
    return h;
  }

  Message update(long serial, String id, MessageUpdate update) {
    StoredMessage m = require(serial, id);
    Object[] attributes = null;
    if (update.attributes().isPresent()) {
      int size = m.body.length + MessageRules.attributeBytes(update.attributes().get(), "update");
      MessageRules.checkUpdateSize(size, name, config);
      attributes = AttributeMap.flatten(update.attributes().get());
    }
    if (attributes != null) {
      table().setAttributes(m, attributes);
    }
    update.priority().ifPresent(p -> table().setPriority(m, p));
    return view(m, null, null);
  }

  Message touch(long serial, String id) {
    MessageRules.checkTouch(name, grouped);
    StoredMessage m = require(serial, id);
    table().setSeq(m, backSeq());
    return view(m, null, null);
  }

  void remove(long serial, String id) {
    table().detach(require(serial, id));
    counters().removed++;
  }

  void deadLetterById(long serial, String id, long now) {
    requireDeadLetterTarget();
    deadLetter(require(serial, id), now, MessageEvent.Cause.REQUESTED);
  }

  long purge() {
    long n = size() + cold() + coldDelayed();
    if (hot != null) {
      hot.clear();
    }
    journal.emit(new JournalEntry.QueuePurge(name));
    if (table != null) {
      table.clear();
    }
    if (dedup != null) {
      dedup.clear();
    }
    if (n > 0) {
      counters().removed += n;
    }
    return n;
  }

  // ---- moves between queues --------------------------------------------------------------

  private boolean exhausted(StoredMessage m) {
    return DeadLetterRules.exhausted(config, m.receiveCount);
  }

  private void requireDeadLetterTarget() {
    DeadLetterRules.requireTarget(name, config);
  }

  /**
   * Takes {@code m} out and puts it in the outbox for the dead-letter target; when the queue is its
   * own target, it stays where it is, available, with its receive count reset
   * (DeadLetterRules.deadLettersToItself).
   */
  private boolean deadLetter(StoredMessage m, long now, MessageEvent.Cause cause) {
    if (DeadLetterRules.deadLettersToItself(name, config)) {
      counters().deadLettered++;
      m.receiveCount = 0;
      table().setState(m, StoredMessage.AVAILABLE, 0);
      engine
          .events()
          .tell(() -> new MessageEvent.DeadLettered(name, name, view(m, null, null), cause));
      return true;
    }
    String target = config.deadLetter().get().target();
    if (cause != MessageEvent.Cause.REQUESTED && refused(m, target, cause, now)) {
      return false;
    }
    table().detach(m);
    counters().deadLettered++;
    remember(m, MessageState.DEAD_LETTERED, now);
    m.deadLetterSource = name;
    journalMove(m, target);
    outbox().add(new Transfer(m, target, cause, this));
    return true;
  }

  /**
   * Whether the engine's {@link MoveCheck} refuses a move to the dead-letter target that no request
   * makes; if so the message stays ({@link MoveCheck#deadLetterRefusal}): after its last receive,
   * available with its receive count kept; expired, as it was, its expiry put off.
   */
  private boolean refused(StoredMessage m, String target, MessageEvent.Cause cause, long now) {
    String refusal = engine.moveCheck().deadLetterRefusal(name, target, engine.ids().id(m.serial));
    if (refusal == null) {
      return false;
    }
    if (cause == MessageEvent.Cause.EXPIRED) {
      table().setExpiry(m, now + DeadLetterRules.REFUSED_EXPIRY_RETRY_MILLIS);
    } else {
      table().setState(m, StoredMessage.AVAILABLE, 0);
    }
    return true;
  }

  /**
   * Journals the arrival of a detached message in {@code target} in the same append as its
   * departure from here, so that a crash in between loses nothing (the target rewrites it whole
   * when it takes it in).
   */
  private void journalMove(StoredMessage m, String target) {
    if (!journal.enabled()) {
      return;
    }
    byte state = m.state;
    m.state = StoredMessage.AVAILABLE;
    journal.emit(new JournalEntry.MessagePut(target, QueueJournal.record(m)));
    m.state = state;
    if (journal.placements()) {
      journal.emit(
          new JournalEntry.Placement(
              target, m.serial, null, MessageTable.movedPlaceOf(m, engine.partitionIn(target, m))));
    }
  }

  /**
   * Detaches a message for a redrive to {@code target} (null: its dead-letter source); null when it
   * is gone or leased (it stays).
   */
  @Nullable StoredMessage detachForRedrive(long serial, @Nullable String target) {
    StoredMessage m = find(serial);
    if (m == null || m.state == StoredMessage.IN_FLIGHT) {
      return null;
    }
    table().detach(m);
    String to = target != null ? target : m.deadLetterSource;
    if (to != null) {
      journalMove(m, to);
    }
    return m;
  }

  /**
   * One step of a redrive's snapshot: appends to {@code out} the serials of the messages after
   * {@code after} in delivery order (null: from the start) whose seq is below {@code seqBound} (so
   * that messages dead-lettered into the queue after the snapshot began stay out), examining at
   * most {@code max}. Returns the place to go on from in the next hold, or null when it reached the
   * end.
   */
  @Nullable StoredMessage snapshotInOrder(
      @Nullable StoredMessage after, long seqBound, int max, List<Long> out) {
    int examined = 0;
    StoredMessage last = null;
    MessageTable table = this.table;
    if (table == null) {
      return null; // nothing to redrive
    }
    Iterable<StoredMessage> inOrder =
        cold() + coldDelayed() > 0
            ? BrowseMerge.merge(
                cold() > 0
                    ? Objects.requireNonNull(hot).availableAfter(after)
                    : table.ordering().candidates(after, null),
                invisibleAfter(after),
                table.order())
            : table.inOrder(after);
    for (StoredMessage m : inOrder) {
      if (examined == max) {
        return Scan.positionOf(
            Objects.requireNonNull(last)); // the next hold goes on right after the last one read
      }
      examined++;
      lock.work.examined(1);
      if (m.seq < seqBound) {
        out.add(m.serial);
      }
      last = m;
    }
    return null;
  }

  /**
   * Receives a message moved from another queue. A dead-lettered message arrives as the newest; a
   * redriven or restored one goes to the back, which in a LIFO queue is behind everything.
   */
  Message accept(StoredMessage m, boolean redrive, long now) {
    // what the move journaled here, before any change
    Place moved = MessageTable.movedPlaceOf(m, partitionOf(m));
    m.seq = redrive ? backSeq() : engine.nextSequences(1);
    m.state = StoredMessage.AVAILABLE;
    m.visibleAt = 0;
    m.expiresAt = now + config.retention().toMillis();
    if (redrive) {
      m.receiveCount = 0;
      m.deadLetterSource = null;
    }
    m.leaseEpoch++;
    m.leaseTag = null;
    MessageTable table = table();
    if (hot != null) {
      hot.arriving(m.serial);
    }
    table.insertMoved(m, moved);
    return view(m, null, null);
  }

  /**
   * The attribute partition the journal files {@code m} under in this queue ({@link
   * MessageTable#partitionOf}); null when it files none.
   */
  @Nullable String partitionOf(StoredMessage m) {
    if (grouped || !journal.placements() || config.indexedAttributes().isEmpty()) {
      return null;
    }
    return io.switchboard.queue.spi.Partitions.encode(
        config.indexedAttributes(), m::attributeOrNull);
  }

  /** Puts back a message whose move to {@code target} failed (it vanished); it keeps its place. */
  void putBack(StoredMessage m, String target) {
    // what the move journaled in the target
    Place moved = MessageTable.movedPlaceOf(m, engine.partitionIn(target, m));
    m.state = StoredMessage.AVAILABLE;
    m.visibleAt = 0;
    table().insertMoved(m, null);
    journal.emit(new JournalEntry.MessageDelete(target, m.serial));
    if (journal.placements()) {
      journal.emit(new JournalEntry.Placement(target, m.serial, moved, null));
    }
  }

  // ---- recovery --------------------------------------------------------------------------

  /**
   * Rebuilds the queue's contents from a journal snapshot, without journaling them again; returns
   * the highest serial or sequence number seen.
   */
  long restore(Snapshot.QueueState state, long now) {
    List<StoredMessage> messages = new ArrayList<>();
    long highest = 0;
    // the table is made by the first message: an empty queue restores without one
    MessageTable table = null;
    HotWindow window = null;
    boolean windowed = engine.orders() != null && engine.hotWindow() > 0;
    Snapshot.Indexed indexed = windowed ? state.indexed() : null;
    if (indexed != null && indexed.counts().available() > 0) {
      table = table(); // a backlog only the store holds: the queue has messages all the same
      window = hot;
    }
    // with the store's counts the available messages are not read at all: the store summarises
    // them, the records read are those the heap keeps (docs/design.md, "Recovery does not read
    // the backlog"); their serials and seqs are below the snapshot's sequence limit
    java.util.Map<Integer, Long> coldByPriority =
        indexed == null ? null : new java.util.HashMap<>(indexed.counts().byPriority());
    // the delayed messages held: a prefix of the timer order, up to its last (at, serial)
    long heldDelayed = 0;
    long lastDelayedAt = Long.MIN_VALUE;
    long lastDelayedSerial = Long.MIN_VALUE;
    long heldAvailable = 0;
    for (MessageRecord r : indexed == null ? state.messages() : indexed.held()) {
      if (table == null) {
        table = table();
        window = hot;
      }
      highest = Math.max(highest, Math.max(r.serial(), r.seq()));
      if (coldByPriority != null && grouped) {
        // a grouped queue's held messages (the first of each group, every one in flight or
        // delayed) stay in the heap, available ones too
        coldByPriority.merge(r.priority(), -1L, Long::sum);
        if (r.state() == MessageRecord.AVAILABLE) {
          heldAvailable++;
        }
        messages.add(QueueJournal.restore(r));
        continue;
      }
      if (coldByPriority != null) {
        if (r.state() == MessageRecord.AVAILABLE) {
          continue; // the counts hold it among the available ones already
        }
        coldByPriority.merge(r.priority(), -1L, Long::sum); // held, so not cold
        if (r.state() == MessageRecord.DELAYED) {
          heldDelayed++;
          if (r.visibleAt() > lastDelayedAt
              || (r.visibleAt() == lastDelayedAt && r.serial() > lastDelayedSerial)) {
            lastDelayedAt = r.visibleAt();
            lastDelayedSerial = r.serial();
          }
        }
      }
      if (window != null && r.state() == MessageRecord.AVAILABLE) {
        // counted cold, not kept: the window is read from the store's order below, so a backlog
        // larger than the heap does not have to fit in it while the server starts
        window.restoredCold(r);
        backSeq = Math.min(backSeq, r.seq());
        continue;
      }
      messages.add(QueueJournal.restore(r));
    }
    messages.sort(java.util.Comparator.comparingLong(m -> m.seq));
    long latestSend = Long.MIN_VALUE;
    for (StoredMessage m : messages) {
      if (m.sentAt < latestSend) {
        table().insertMoved(m, null); // arrived by a move: older than messages sent before it
      } else {
        table().insert(m, false);
        latestSend = m.sentAt;
      }
      backSeq = Math.min(backSeq, m.seq);
    }
    for (JournalEntry.DedupPut d : state.dedup()) {
      dedup()
          .restore(d.key(), new SendResult(engine.ids().id(d.serial()), d.seq(), false), d.until());
    }
    List<JournalEntry.HistoryPut> records = new ArrayList<>(state.history());
    records.sort(java.util.Comparator.comparingLong(JournalEntry.HistoryPut::until));
    for (JournalEntry.HistoryPut h : records) {
      StoredMessage m = QueueJournal.restore(h.message());
      history().add(m.serial, view(m, null, MessageState.valueOf(h.state())), h.until());
    }
    if (table != null) {
      table.drainDirty((m, mark, before) -> {});
    }
    long coldDelayed = indexed == null || grouped ? 0 : indexed.counts().delayed() - heldDelayed;
    if (indexed != null && coldDelayed > 0 && window == null) {
      table = table(); // delayed messages only the store holds
      window = hot;
    }
    if (indexed != null && window != null && coldByPriority != null) {
      // what the counts hold beyond the messages read, by priority: the cold available messages
      // and the cold delayed ones together (the window reports their sum)
      window.restoredCold(
          indexed.counts().available() - heldAvailable,
          coldDelayed,
          coldByPriority,
          indexed.expiryFloor(),
          lastDelayedAt,
          lastDelayedSerial);
      backSeq = Math.min(backSeq, indexed.lowestSeq());
    }
    if (hot != null) {
      hot.restored(); // reads the window's first page; the rest stays in the store only
    }
    reportBytes();
    return highest;
  }

  // ---- browse and stats ------------------------------------------------------------------

  Page browse(BrowseRequest request, long now) {
    return Browser.page(
        table(),
        cold() > 0 ? Objects.requireNonNull(hot)::availableAfter : null,
        this::invisibleAfter,
        request,
        now,
        m -> view(m, null, null),
        newScan(),
        engine.limits().maxAnswerBytes(),
        lock.work);
  }

  QueueStats stats(long now) {
    MessageTable table = this.table;
    long oldest =
        cold() + coldDelayed() > 0
            ? Objects.requireNonNull(hot).oldestSentAt()
            : table == null ? -1 : table.oldestSentAt();
    java.util.Map<Integer, Long> byPriority =
        table == null ? java.util.Map.of() : table.countsByPriority();
    if (cold() + coldDelayed() > 0) {
      java.util.TreeMap<Integer, Long> all =
          new java.util.TreeMap<>(java.util.Comparator.reverseOrder());
      all.putAll(byPriority);
      Objects.requireNonNull(hot).addCountsByPriority(all);
      byPriority = new java.util.LinkedHashMap<>(all);
    }
    return new QueueStats(
        available() + cold(),
        delayed(),
        inFlight(),
        oldest < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(Math.max(0, now - oldest))),
        byPriority,
        waiterCount(),
        (counters == null ? new QueueCounters() : counters).snapshot());
  }

  /** Message groups with a message in the queue (tests: nothing is kept for a group gone). */
  int groupCount() {
    return table == null ? 0 : table.groupCount();
  }

  /** Distinct attribute names and values shared among the queue's messages (tests). */
  int sharedAttributeCount() {
    return table == null ? 0 : table.sharedAttributeCount();
  }

  void markDeleted() {
    deleted = true;
    releaseWaiters();
    if (table != null) {
      table.clear();
    }
    if (hot != null) {
      hot.clear();
      hot.release();
    }
    if (history != null) {
      history.clear();
    }
    reportBytes(); // sends still waiting for their write report theirs when they end
  }

  // ---- helpers ---------------------------------------------------------------------------

  /**
   * The message {@code serial} of this queue, read back from the store when it is cold; or null.
   */
  private @Nullable StoredMessage find(long serial) {
    MessageTable t = table;
    if (t == null) {
      return null; // no message, hot or cold
    }
    StoredMessage m = t.get(serial);
    return m != null || hot == null ? m : hot.promote(serial);
  }

  /** Available messages kept only in the store ({@link HotWindow}). */
  private long cold() {
    return hot == null ? 0 : hot.cold();
  }

  /** Delayed messages kept only in the store ({@link HotWindow}). */
  private long coldDelayed() {
    return hot == null ? 0 : hot.coldDelayed();
  }

  /**
   * The delayed and in-flight messages in delivery order strictly after {@code after} (null: from
   * the start), cold delayed ones included (read from the store, not kept).
   */
  private Iterable<StoredMessage> invisibleAfter(@Nullable StoredMessage after) {
    MessageTable t = table();
    return coldDelayed() > 0
        ? Objects.requireNonNull(hot).invisibleAfter(after)
        : t.invisibleAfter(after);
  }

  private long backSeq() {
    return config.order() == Order.FIFO ? engine.nextSequences(1) : --backSeq;
  }

  private void remember(StoredMessage m, MessageState state, long now) {
    if (config.historyRetention().isZero()) {
      return;
    }
    long until = now + config.historyRetention().toMillis();
    history().add(m.serial, view(m, null, state), until);
    journal.emit(new JournalEntry.HistoryPut(name, QueueJournal.record(m), state.name(), until));
  }

  Message view(StoredMessage m, @Nullable String receipt, @Nullable MessageState override) {
    return Messages.view(
        engine.ids().id(m.serial),
        m.body,
        AttributeMap.of(m.attributes),
        m.groupId,
        m.dedupId,
        m.sentAt,
        QueueJournal.stateRecord(m),
        override != null ? override : m.publicState(),
        receipt);
  }
}
