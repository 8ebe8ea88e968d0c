package io.switchboard.storage.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.switchboard.queue.BrowseRequest;
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
import io.switchboard.queue.spi.MessageEventListeners;
import io.switchboard.queue.spi.MessageIds;
import io.switchboard.queue.spi.QueueRules;
import io.switchboard.queue.spi.ReceiptKeys;
import io.switchboard.queue.spi.SystemRecords;
import io.switchboard.time.Clock;
import io.switchboard.time.Scheduler;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A {@link QueueEngine} whose source of truth is a PostgreSQL database, so any number of servers
 * can serve the same queues. Every operation is one short transaction; receives claim with {@code
 * FOR UPDATE SKIP LOCKED} (see {@link Claim} and {@link Taker}), so no message is leased to two
 * consumers at once whichever servers they talk to. The common send, receive and ack are one
 * autocommit statement each, one round trip, against a cached queue row that each statement checks
 * ({@link QueueCache}). Timers need no in-memory state: the other operations on a queue first fire
 * what fell due ({@link Timers}), claims do not depend on it, and housekeeping fires the rest and
 * cleans up in bounded batches ({@link Housekeeping}). The schema is created and migrated on start
 * ({@link Schema}).
 *
 * <p>What is per server rather than shared: blocked receivers wait on their own server (woken
 * across servers by {@code LISTEN/NOTIFY}, see {@link Wakeups}) and {@code waitingReceivers} in
 * stats counts this server's only.
 */
public final class PostgresQueueEngine implements QueueEngine {

  private final Sql sql;
  private final MessageEventListeners events = new MessageEventListeners();
  private final Clock clock;
  private final int maxQueues;
  private final MessageIds ids;
  private final @Nullable HikariDataSource owned;
  private final DataSource ds;
  private final Wakeups wakeups;
  private final long pollMillis;
  private final Scheduler.Repeating housekeeping;
  private final Redrives redrives;
  private final MessageOps ops = new MessageOps(this);
  private final QueueOps queues;
  private final QueueCache cache;
  private final CounterBuffer counters = new CounterBuffer();
  private final Housekeeping housekeeper = new Housekeeping(this);
  private final ReportedTicks ticks = new ReportedTicks("housekeeping", this::tick);
  private final Receiver receiver = new Receiver(this);

  /**
   * Standard queues this server knows to hold group ids (fair queues): it sent one, or a claim
   * returned one. Their receives take {@link FairTake}'s path instead of the one-call claim.
   */
  private final java.util.Set<String> fairQueues =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  private final PostgresSystemRecords systemRecords = new PostgresSystemRecords(this);
  private final ReceiptKeys receiptKeys;
  private final QueueLimits limits;
  private final QueueUse use;
  private volatile boolean closed;
  private volatile MoveCheck moveCheck = MoveCheck.NONE;

  private PostgresQueueEngine(Builder b) {
    this.clock = b.clock;
    this.maxQueues = b.maxQueues;
    this.limits = b.limits;
    this.use = new QueueUse(b.limits);
    this.pollMillis = b.pollInterval.toMillis();
    if (b.dataSource != null) {
      this.ds = b.dataSource;
      this.owned = null;
    } else {
      HikariConfig hc = new HikariConfig();
      hc.setJdbcUrl(b.url);
      hc.setUsername(b.user);
      hc.setPassword(b.password);
      hc.setMaximumPoolSize(b.poolSize);
      hc.setConnectionTimeout(b.connectTimeout.toMillis());
      hc.setInitializationFailTimeout(-1);
      hc.setPoolName("switchboard-pg");
      this.owned = new HikariDataSource(hc);
      this.ds = owned;
    }
    this.sql = new Sql(ds);
    this.cache = new QueueCache(sql);
    try {
      this.ids = new MessageIds(Schema.migrate(ds));
      this.receiptKeys = ReceiptKeys.load(systemRecords);
    } catch (RuntimeException e) {
      if (owned != null) {
        owned.close();
      }
      throw e;
    }
    this.redrives = new Redrives(this);
    this.queues = new QueueOps(this, maxQueues);
    this.wakeups = new Wakeups(this::listenConnection, b.notify);
    // a failed tick fails a test's advance, where it is a finding; on a thread it is reported
    // (problem()) and the next tick tries again, unless it was an Error, which ends the thread
    this.housekeeping =
        clock.every(
            "switchboard-pg-housekeeping",
            b.housekeepingInterval,
            clock.manual() ? this::tick : ticks);
  }

  public static Builder builder() {
    return new Builder();
  }

  private Connection listenConnection() {
    try {
      return ds.getConnection();
    } catch (SQLException e) {
      throw Sql.translate(e, "listening for notifications");
    }
  }

  @Override
  public Clock clock() {
    return clock;
  }

  Sql sql() {
    return sql;
  }

  @Override
  public SystemRecords systemRecords() {
    return systemRecords;
  }

  /** The server's receipt key, from which each queue derives its own (cached per queue). */
  ReceiptKeys receiptKeys() {
    return receiptKeys;
  }

  MessageIds ids() {
    return ids;
  }

  Wakeups wakeups() {
    return wakeups;
  }

  boolean fair(String queue) {
    return fairQueues.contains(queue);
  }

  void markFair(String queue) {
    fairQueues.add(queue);
  }

  QueueCache cache() {
    return cache;
  }

  CounterBuffer counters() {
    return counters;
  }

  Redrives redrives() {
    return redrives;
  }

  /** What each queue holds as last measured, for the per-queue limits. */
  QueueUse use() {
    return use;
  }

  // ---- the operation frame ---------------------------------------------------------------

  /** Work on one locked-in-transaction queue. */
  @FunctionalInterface
  interface QueueWork<T> {
    T run(Op op) throws SQLException;
  }

  /**
   * Work on one queue that answers nothing ({@link #act}): a {@link QueueWork} never returns null.
   */
  @FunctionalInterface
  interface QueueStep {
    void run(Op op) throws SQLException;
  }

  /** Runs {@code step} as one operation on a queue, as {@link #run} does. */
  void act(String queue, String what, QueueStep step) {
    run(
        queue,
        what,
        op -> {
          step.run(op);
          return Boolean.TRUE;
        });
  }

  /** One operation on a queue: read the queue, fire due timers, act, write counters, commit. */
  <T> T run(String queue, String what, QueueWork<T> work) {
    open();
    @Nullable Op[] committed = new Op[1];
    T answer =
        sql.tx(
            what,
            c -> {
              committed[0] = null;
              Op op = Op.begin(c, queue, clock.millis(), ids, receiptKeys, moveCheck);
              cache.put(op.q);
              T result = work.run(op);
              op.finish();
              committed[0] = op;
              return result;
            });
    told(committed[0]);
    return answer;
  }

  /** Tells the listeners what {@code op}, now committed, did to messages; none for null. */
  void told(@Nullable Op op) {
    if (op != null && !op.events.isEmpty()) {
      op.events.forEach(events::tell);
    }
  }

  @Override
  public void onMessageEvent(java.util.function.Consumer<? super MessageEvent> listener) {
    events.add(listener);
  }

  void open() {
    if (closed) {
      throw QueueRules.closed();
    }
  }

  /**
   * Fires due timers of every queue, moves redrives on, and cleans up; see {@link Housekeeping}.
   */
  void tick() {
    if (!closed) {
      housekeeper.tick();
    }
  }

  /**
   * What keeps the engine from working as it should, for {@code /health}: housekeeping failing (the
   * database away, say); empty while all is well.
   */
  public java.util.Optional<String> problem() {
    return ticks.problem();
  }

  // ---- queues (see QueueOps) ---------------------------------------------------------------

  @Override
  public QueueCreation ensureQueue(String name, QueueConfig config) {
    open();
    return queues.ensureQueue(name, config);
  }

  @Override
  public QueueInfo updateQueue(String name, UnaryOperator<QueueConfig> change) {
    open();
    return queues.updateQueue(name, change);
  }

  @Override
  public void deleteQueue(String name) {
    open();
    queues.deleteQueue(name);
  }

  @Override
  public QueueInfo queue(String name) {
    open();
    return queues.queue(name);
  }

  @Override
  public List<QueueInfo> listQueues(String prefix) {
    open();
    return queues.listQueues(prefix);
  }

  /** One indexed query per page, reading the page's rows only ({@link QueueOps#page}). */
  @Override
  public List<QueueInfo> listQueues(String prefix, String after, int limit) {
    open();
    return queues.page(prefix, after, limit);
  }

  /**
   * One pass over the messages grouped by queue, not a transaction per queue ({@link
   * QueueOps#overview}); empty queues are counted, not read.
   */
  @Override
  public QueueOverview overview(int top) {
    open();
    return queues.overview(top, use);
  }

  // ---- send and receive ------------------------------------------------------------------

  @Override
  public SendResult send(String queue, NewMessage message) {
    Objects.requireNonNull(message, "message");
    open();
    return Sender.send(this, queue, List.of(message), -1).get(0);
  }

  @Override
  public List<SendResult> sendBatch(String queue, List<NewMessage> messages) {
    Objects.requireNonNull(messages, "messages");
    QueueRules.checkBatchSize(messages);
    for (int i = 0; i < messages.size(); i++) {
      QueueRules.batchMessage(messages, i);
    }
    open();
    return Sender.send(this, queue, messages, 0);
  }

  @Override
  public QueueLimits limits() {
    return limits;
  }

  /**
   * Queued bytes of one queue as this server last measured them (bodies and stored attributes plus
   * {@link QueueLimits#MESSAGE_OVERHEAD} each) plus its sends since; 0 for a queue this server has
   * not used lately or when no per-queue limit is set. See {@link QueueUse}.
   */
  @Override
  public long queuedBytes(String queue) {
    open();
    return use.bytes(cache.get(queue).id());
  }

  @Override
  public List<Message> receive(String queue, ReceiveRequest request) {
    Objects.requireNonNull(request, "request");
    return receiver.receive(queue, request);
  }

  /**
   * After a change on this server that can make messages eligible in {@code queue}: serve this
   * server's waiters on it now, and tell the other servers.
   */
  void changed(String queue) {
    receiver.changed(queue);
  }

  boolean isClosed() {
    return closed;
  }

  long pollMillis() {
    return pollMillis;
  }

  // ---- operations on one message (see MessageOps) ---------------------------------------

  @Override
  public List<Optional<QueueException>> ackAll(String queue, List<String> receipts) {
    open();
    return ops.ackAll(queue, List.copyOf(receipts));
  }

  @Override
  public void ack(String queue, String receipt) {
    open();
    ops.ack(queue, receipt);
  }

  @Override
  public void release(String queue, String receipt, Duration delay, boolean toBack) {
    ops.release(queue, receipt, delay, toBack);
  }

  @Override
  public Message extend(String queue, String receipt, Duration visibilityTimeout) {
    return ops.extend(queue, receipt, visibilityTimeout, false);
  }

  @Override
  public Message extendAnyLease(String queue, String receipt, Duration visibilityTimeout) {
    return ops.extend(queue, receipt, visibilityTimeout, true);
  }

  @Override
  public void fail(String queue, String receipt) {
    ops.fail(queue, receipt);
  }

  @Override
  public void deadLetter(String queue, String receipt) {
    ops.deadLetter(queue, receipt);
  }

  @Override
  public void deadLetterById(String queue, String id) {
    ops.deadLetterById(queue, id);
  }

  @Override
  public Message update(String queue, String id, MessageUpdate update) {
    return ops.update(queue, id, update);
  }

  @Override
  public Message touch(String queue, String id) {
    return ops.touch(queue, id);
  }

  @Override
  public void remove(String queue, String id) {
    ops.remove(queue, id);
  }

  @Override
  public Message get(String queue, String id) {
    return ops.get(queue, id);
  }

  @Override
  public Page browse(String queue, BrowseRequest request) {
    Objects.requireNonNull(request, "request");
    return run(
        queue, "browsing '" + queue + "'", op -> Browse.page(op, request, limits.maxAnswerBytes()));
  }

  @Override
  public long purge(String queue) {
    return run(
        queue,
        "purging '" + queue + "'",
        op -> {
          int n = Sql.update(op.c, "delete from sb_message where qid = ?", op.q.id());
          // the deduplication ids go too: a message sent again after a purge is delivered (SQS)
          Sql.update(op.c, "delete from sb_dedup where qid = ?", op.q.id());
          op.counters.add(Counters.REMOVED, n);
          return (long) n;
        });
  }

  @Override
  public QueueStats stats(String queue) {
    int waiters = receiver.waiting(queue);
    return run(
        queue,
        "reading stats of '" + queue + "'",
        op -> counters.withPending(op.q.id(), pending -> Browse.stats(op, waiters, pending)));
  }

  // ---- redrive ---------------------------------------------------------------------------

  @Override
  public RedriveTask startRedrive(String source, RedriveRequest request) {
    Objects.requireNonNull(request, "request");
    open();
    RedriveTask t = redrives.start(source, request);
    wakeups.wakeLocal(); // messages went to their source queues
    return t;
  }

  @Override
  public List<RedriveTask> redriveTasks(String source) {
    open();
    return redrives.list(source);
  }

  @Override
  public RedriveTask cancelRedrive(String taskId) {
    open();
    return redrives.cancel(taskId);
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
    Message m = redrives.restore(deadLetterQueue, id);
    wakeups.wakeLocal(); // the message went back to its source queue
    return m;
  }

  // ---- identity and lifecycle ------------------------------------------------------------

  /** The serial an id carries, or 0 when the id was not issued over this database. */
  long serialOf(String id) {
    return ids.serial(id);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    housekeeping.close();
    try {
      counters.flush(sql);
    } catch (RuntimeException e) {
      // the database is away: these counter changes are lost, the messages are not
    }
    receiver.releaseAll();
    wakeups.close();
    if (owned != null) {
      owned.close();
    }
  }

  /** Builds a {@link PostgresQueueEngine}: a JDBC URL with credentials, or a data source. */
  public static final class Builder {
    private @Nullable String url;
    private @Nullable String user;
    private @Nullable String password;
    private @Nullable DataSource dataSource;
    private Clock clock = Clock.system();
    private int maxQueues = 10_000;
    private int poolSize = 16;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration pollInterval = Duration.ofMillis(250);
    private Duration housekeepingInterval = Duration.ofMillis(200);
    private boolean notify = true;
    private QueueLimits limits = QueueLimits.NONE;

    private Builder() {}

    /**
     * The limits the engine holds queues to. Messages live in the database, not in this server's
     * heap, so {@link QueueLimits#maxQueuedBytes} (a share of the heap) does not apply. The
     * per-queue limits do, against counts measured by housekeeping ({@link QueueUse}): {@link
     * QueueLimits#maxQueueBytes}, {@link QueueLimits#defaultMaxDepth} and the in-flight limits.
     * {@link QueueLimits#maxAnswerBytes} does too: a receive takes at most {@link
     * QueueLimits#receiveMax} messages, a browse page ends before it would pass it.
     */
    public Builder limits(QueueLimits limits) {
      this.limits = java.util.Objects.requireNonNull(limits, "limits");
      return this;
    }

    /** A JDBC URL such as {@code jdbc:postgresql://db:5432/switchboard}; the engine owns a pool. */
    public Builder url(String url, @Nullable String user, @Nullable String password) {
      this.url = Objects.requireNonNull(url, "url");
      this.user = user;
      this.password = password;
      return this;
    }

    /** A data source the caller owns (and closes); the engine takes connections from it. */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public Builder maxQueues(int maxQueues) {
      this.maxQueues = QueueRules.checkMaxQueues(maxQueues);
      return this;
    }

    /** Connections in the engine's own pool; 1..1000, default 16. */
    public Builder poolSize(int poolSize) {
      if (poolSize < 1 || poolSize > 1000) {
        throw QueueException.invalid("poolSize must be 1..1000, got " + poolSize);
      }
      this.poolSize = poolSize;
      return this;
    }

    /** How long to wait for a connection before answering "unavailable"; default 5 s. */
    public Builder connectTimeout(Duration connectTimeout) {
      QueueRules.checkRange(
          "connectTimeout", connectTimeout, Duration.ofMillis(250), Duration.ofMinutes(5));
      this.connectTimeout = connectTimeout;
      return this;
    }

    /** How often a blocked receive looks again without a notification; default 250 ms. */
    public Builder pollInterval(Duration pollInterval) {
      QueueRules.checkRange(
          "pollInterval", pollInterval, Duration.ofMillis(1), Duration.ofSeconds(20));
      this.pollInterval = pollInterval;
      return this;
    }

    /** How often timers of idle queues fire and cleanup runs on the system clock; 200 ms. */
    public Builder housekeepingInterval(Duration interval) {
      this.housekeepingInterval = QueueRules.checkHousekeepingInterval(interval);
      return this;
    }

    /**
     * Whether to use {@code LISTEN/NOTIFY} to wake long polls across servers (default on). Turn it
     * off behind a transaction-mode pooler; long polls then rely on polling alone.
     */
    public Builder notifications(boolean notify) {
      this.notify = notify;
      return this;
    }

    public PostgresQueueEngine build() {
      if (url == null && dataSource == null) {
        throw QueueException.invalid("a PostgreSQL engine needs a JDBC URL or a data source");
      }
      return new PostgresQueueEngine(this);
    }
  }
}
