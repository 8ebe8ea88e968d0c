package io.switchboard.storage.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.DedupScope;
import io.switchboard.queue.EngineSupport;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.Page;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import io.switchboard.queue.SendResult;
import io.switchboard.time.Clock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * A {@link QueueEngine} whose source of truth is a PostgreSQL database, so any number of servers
 * can serve the same queues. Every operation is one short transaction; receives claim with {@code
 * FOR UPDATE SKIP LOCKED} (see {@link Taker}), so no message is leased to two consumers at once
 * whichever servers they talk to. Timers need no in-memory state: every operation on a queue first
 * fires what fell due, and a housekeeping task does the same for idle queues and cleans up in
 * bounded batches. The schema is created and migrated on start ({@link Schema}).
 *
 * <p>What is per server rather than shared: blocked receivers wait on their own server (woken
 * across servers by {@code LISTEN/NOTIFY}, see {@link Wakeups}) and {@code waitingReceivers} in
 * stats counts this server's only.
 */
public final class PostgresQueueEngine implements QueueEngine {

  private final Sql sql;
  private final Clock clock;
  private final int maxQueues;
  private final long idPrefix;
  private final HikariDataSource owned;
  private final DataSource ds;
  private final Wakeups wakeups;
  private final long pollMillis;
  private final ScheduledExecutorService housekeeping;
  private final Redrives redrives;
  private final WaitLines lines = new WaitLines();
  private volatile boolean closed;

  private PostgresQueueEngine(Builder b) {
    this.clock = b.clock;
    this.maxQueues = b.maxQueues;
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
    try {
      this.idPrefix = Schema.migrate(ds);
    } catch (RuntimeException e) {
      if (owned != null) {
        owned.close();
      }
      throw e;
    }
    this.redrives = new Redrives(this);
    this.wakeups = new Wakeups(this::listenConnection, b.notify);
    if (b.clock instanceof io.switchboard.time.ManualClock) {
      clock.onAdvance(this::tick);
      this.housekeeping = null;
    } else {
      this.housekeeping =
          Executors.newSingleThreadScheduledExecutor(
              r -> Thread.ofPlatform().daemon().name("switchboard-pg-housekeeping").unstarted(r));
      long every = b.housekeepingInterval.toMillis();
      housekeeping.scheduleWithFixedDelay(this::tickQuietly, every, every, TimeUnit.MILLISECONDS);
    }
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

  Clock clock() {
    return clock;
  }

  Sql sql() {
    return sql;
  }

  long idPrefix() {
    return idPrefix;
  }

  Wakeups wakeups() {
    return wakeups;
  }

  // ---- the operation frame ---------------------------------------------------------------

  /** Work on one locked-in-transaction queue. */
  @FunctionalInterface
  interface QueueWork<T> {
    T run(Op op) throws SQLException;
  }

  /** One operation on a queue: read the queue, fire due timers, act, write counters, commit. */
  <T> T run(String queue, String what, QueueWork<T> work) {
    open();
    return sql.tx(
        what,
        c -> {
          Op op = new Op(c, clock.millis(), Op.requireQueue(c, queue), idPrefix);
          op.advance();
          T result = work.run(op);
          op.finish();
          return result;
        });
  }

  private void open() {
    if (closed) {
      throw new QueueException(ErrorCode.UNAVAILABLE, "the queue engine is closed");
    }
  }

  /** Fires due timers of every queue, moves redrives on, and cleans up; a bounded batch each. */
  void tick() {
    if (closed) {
      return;
    }
    List<String> names = new ArrayList<>();
    sql.tx(
        "housekeeping",
        c -> {
          long now = clock.millis();
          Sql.update(
              c,
              "delete from sb_dedup where ctid in (select ctid from sb_dedup where until <= ?"
                  + " limit 1000)",
              now);
          Sql.update(
              c,
              "delete from sb_history where ctid in (select ctid from sb_history where until <= ?"
                  + " limit 1000)",
              now);
          try (PreparedStatement ps =
              c.prepareStatement(
                  "select distinct q.name from sb_queue q join sb_message m on m.qid = q.id"
                      + " where (m.visible_at > 0 and m.visible_at <= ?) or m.expires_at <= ?"); ) {
            ps.setLong(1, now);
            ps.setLong(2, now);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                names.add(rs.getString(1));
              }
            }
          }
          return null;
        });
    for (String name : names) {
      try {
        run(name, "firing timers", op -> null);
      } catch (QueueException gone) {
        // deleted meanwhile
      }
    }
    redrives.progress();
    wakeups.wakeLocal();
  }

  private void tickQuietly() {
    try {
      tick();
    } catch (RuntimeException e) {
      // the database is away; the next tick tries again
    }
  }

  // ---- queues ----------------------------------------------------------------------------

  @Override
  public QueueInfo createQueue(String name, QueueConfig config) {
    open();
    EngineSupport.checkQueueName(name, "name");
    Objects.requireNonNull(config, "config");
    return sql.tx(
        "creating queue '" + name + "'",
        c -> {
          Sql.execute(c, "select pg_advisory_xact_lock(?, ?)", 0x5342, 0);
          checkConfig(c, name, config);
          Op.Q existing = Op.findQueue(c, name);
          if (existing != null) {
            if (existing.config().equals(config)) {
              return existing.info();
            }
            throw new QueueException(
                ErrorCode.QUEUE_ALREADY_EXISTS,
                "queue '" + name + "' exists with a different configuration");
          }
          if (Sql.queryLong(c, "select count(*) from sb_queue") >= maxQueues) {
            throw new QueueException(
                ErrorCode.TOO_MANY_QUEUES,
                "the engine holds its maximum of " + maxQueues + " queues; delete one first");
          }
          Sql.update(
              c,
              "insert into sb_queue (name, grouped, config, created_at, receipt_key)"
                  + " values (?, ?, ?, ?, ?)",
              name,
              EngineSupport.isGrouped(name),
              Codecs.encodeConfig(config),
              clock.millis(),
              java.util.concurrent.ThreadLocalRandom.current().nextLong());
          return Op.findQueue(c, name).info();
        });
  }

  private static void checkConfig(Connection c, String name, QueueConfig config)
      throws SQLException {
    boolean grouped = EngineSupport.isGrouped(name);
    if (grouped && config.order() != Order.FIFO) {
      throw EngineSupport.invalid(
          "order must be fifo on grouped queue '"
              + name
              + "' (order within a group is fixed), got lifo");
    }
    if (!grouped && config.dedupScope() == DedupScope.GROUP) {
      throw EngineSupport.invalid(
          "dedupScope=group needs a grouped queue (name ending .fifo), got '" + name + "'");
    }
    if (config.deadLetter().isPresent()) {
      String target = config.deadLetter().get().target();
      if (target.equals(name)) {
        throw EngineSupport.invalid(
            "deadLetter.target must be another queue, got '" + name + "' itself");
      }
      Op.Q t = Op.findQueue(c, target);
      if (t == null) {
        throw new QueueException(
            ErrorCode.QUEUE_NOT_FOUND,
            "deadLetter.target '" + target + "' does not exist; create it first");
      }
      if (t.grouped() != grouped) {
        throw EngineSupport.invalid(
            "deadLetter.target of a "
                + (grouped ? "grouped" : "standard")
                + " queue must be "
                + (grouped ? "grouped (.fifo)" : "standard")
                + ", got '"
                + target
                + "'");
      }
    }
  }

  @Override
  public QueueInfo updateQueue(String name, QueueConfig config) {
    Objects.requireNonNull(config, "config");
    open();
    QueueInfo info =
        sql.tx(
            "updating queue '" + name + "'",
            c -> {
              checkConfig(c, name, config);
              Op.Q q = Op.requireQueue(c, name);
              Sql.update(
                  c,
                  "update sb_queue set config = ? where id = ?",
                  Codecs.encodeConfig(config),
                  q.id());
              if (!q.config().indexedAttributes().equals(config.indexedAttributes())) {
                reindex(c, q, config);
              }
              return new QueueInfo(name, q.grouped(), config, q.createdAt());
            });
    wakeups.wakeLocal();
    return info;
  }

  /** Recomputes every message's index tokens after the queue's indexed attributes changed. */
  private void reindex(Connection c, Op.Q q, QueueConfig config) throws SQLException {
    Op.Q next = new Op.Q(q.id(), q.name(), q.grouped(), config, q.createdAt(), q.receiptKey());
    Op op = new Op(c, clock.millis(), q, idPrefix);
    List<Row> rows = op.rows("true");
    for (Row r : rows) {
      Sql.update(c, "update sb_message set idx = ? where serial = ?", op.tokens(r, next), r.serial);
    }
  }

  @Override
  public void deleteQueue(String name) {
    open();
    sql.tx(
        "deleting queue '" + name + "'",
        c -> {
          Op.Q q = Op.requireQueue(c, name);
          for (String table : List.of("sb_message", "sb_dedup", "sb_history", "sb_counter")) {
            Sql.update(c, "delete from " + table + " where qid = ?", q.id());
          }
          Sql.update(c, "delete from sb_queue where id = ?", q.id());
          Sql.update(
              c,
              "update sb_redrive set status = 'FAILED', failure = ? where source = ? and status"
                  + " = 'RUNNING'",
              "source queue '" + name + "' was deleted",
              name);
          return null;
        });
    changed(name);
  }

  @Override
  public QueueInfo queue(String name) {
    open();
    return sql.tx("reading queue '" + name + "'", c -> Op.requireQueue(c, name).info());
  }

  @Override
  public List<QueueInfo> listQueues(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    open();
    List<QueueInfo> out =
        sql.tx(
            "listing queues",
            c -> {
              List<QueueInfo> all = new ArrayList<>();
              try (PreparedStatement ps =
                      c.prepareStatement("select " + Op.QUEUE_COLS + " from sb_queue");
                  ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                  Op.Q q = Op.readQueue(rs);
                  if (q.name().startsWith(prefix)) {
                    all.add(q.info());
                  }
                }
              }
              return all;
            });
    out.sort(Comparator.comparing(QueueInfo::name));
    return out;
  }

  // ---- send and receive ------------------------------------------------------------------

  @Override
  public SendResult send(String queue, NewMessage message) {
    Objects.requireNonNull(message, "message");
    return Sender.send(this, queue, List.of(message), -1).get(0);
  }

  @Override
  public List<SendResult> sendBatch(String queue, List<NewMessage> messages) {
    Objects.requireNonNull(messages, "messages");
    if (messages.isEmpty() || messages.size() > ReceiveRequest.MAX_MESSAGES) {
      throw new QueueException(
          messages.isEmpty() ? ErrorCode.INVALID_ARGUMENT : ErrorCode.BATCH_TOO_LARGE,
          "a send batch must hold 1..1000 messages, got " + messages.size());
    }
    for (int i = 0; i < messages.size(); i++) {
      if (messages.get(i) == null) {
        throw EngineSupport.invalid("messages[" + i + "] is null");
      }
    }
    return Sender.send(this, queue, messages, 0);
  }

  @Override
  public List<Message> receive(String queue, ReceiveRequest request) {
    Objects.requireNonNull(request, "request");
    long[] waitMillis = {0};
    long seen = wakeups.generation();
    List<Message> got =
        run(
            queue,
            "receiving from '" + queue + "'",
            op -> {
              waitMillis[0] = request.waitTime().orElse(op.q.config().receiveWait()).toMillis();
              return take(op, request);
            });
    if (!got.isEmpty() || waitMillis[0] == 0) {
      return got;
    }
    long deadline = clock.millis() + waitMillis[0];
    WaitLines.Waiter w = new WaitLines.Waiter(request);
    lines.add(queue, w);
    while (true) {
      if (w.done()) {
        return w.result();
      }
      long park = clock.parkNanosUntil(deadline);
      if (park == 0 || closed || Thread.currentThread().isInterrupted()) {
        return lines.abandon(queue, w) ? List.of() : w.result();
      }
      try {
        wakeups.await(seen, Math.min(pollMillis, Math.max(1, park / 1_000_000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        continue;
      }
      seen = wakeups.generation();
      if (!closed && !w.done()) {
        lines.serve(queue, this::takeNow);
      }
    }
  }

  /** A receive that does not wait, as a waiter's turn. */
  private List<Message> takeNow(String queue, ReceiveRequest request) {
    return run(queue, "receiving from '" + queue + "'", op -> take(op, request));
  }

  /**
   * After a change on this server that can make messages eligible in {@code queue}: serve this
   * server's waiters on it now, and tell the other servers.
   */
  void changed(String queue) {
    if (lines.size(queue) > 0) {
      try {
        lines.serve(queue, this::takeNow);
      } catch (RuntimeException e) {
        // the change itself is committed; waiters look again on their own
      }
    }
    wakeups.changed(queue);
  }

  private static List<Message> take(Op op, ReceiveRequest request) throws SQLException {
    long visibility =
        request.visibilityTimeout().orElse(op.q.config().visibilityTimeout()).toMillis();
    return Taker.take(op, request.maxMessages(), request.filter().orElse(null), visibility);
  }

  // ---- lease operations ------------------------------------------------------------------

  @Override
  public void ack(String queue, String receipt) {
    run(
        queue,
        "acknowledging in '" + queue + "'",
        op -> {
          Row r = op.leased(receipt, false);
          if (r != null) {
            Sql.update(op.c, "delete from sb_message where serial = ?", r.serial);
            op.counters.add(Counters.ACKED, 1);
            op.remember(r, io.switchboard.queue.MessageState.COMPLETED);
          }
          return null;
        });
    if (EngineSupport.isGrouped(queue)) {
      changed(queue); // the group may be free now
    }
  }

  @Override
  public void release(String queue, String receipt, Duration delay, boolean toBack) {
    Objects.requireNonNull(delay, "delay");
    run(
        queue,
        "releasing in '" + queue + "'",
        op -> {
          EngineSupport.checkRange("delay", delay, Duration.ZERO, QueueConfig.MAX_DELAY);
          if (toBack && op.q.grouped()) {
            throw new QueueException(
                ErrorCode.CONFLICT,
                "release to the back is not allowed on grouped queue '"
                    + queue
                    + "': order within a group is fixed");
          }
          Row r = op.leased(receipt, true);
          op.counters.add(Counters.RELEASED, 1);
          if (op.exhausted(r)) {
            op.deadLetter(r);
            return null;
          }
          long seq = toBack ? op.backSeq(op.q) : r.seq;
          Sql.update(
              op.c,
              "update sb_message set leased = false, visible_at = ?, seq = ? where serial = ?",
              delay.isZero() ? 0 : op.now + delay.toMillis(),
              seq,
              r.serial);
          return null;
        });
    changed(queue);
  }

  @Override
  public Message extend(String queue, String receipt, Duration visibilityTimeout) {
    Objects.requireNonNull(visibilityTimeout, "visibilityTimeout");
    Message m =
        run(
            queue,
            "extending a lease in '" + queue + "'",
            op -> {
              EngineSupport.checkRange(
                  "visibilityTimeout",
                  visibilityTimeout,
                  Duration.ZERO,
                  QueueConfig.MAX_VISIBILITY);
              Row r = op.leased(receipt, true);
              long until = op.now + visibilityTimeout.toMillis();
              long limit = r.leasedAt + QueueConfig.MAX_VISIBILITY.toMillis();
              if (until > limit) {
                throw EngineSupport.invalid(
                    "visibilityTimeout would end the lease "
                        + (until - r.leasedAt) / 1000
                        + " seconds after the receive; at most 43200 seconds (12 h) are allowed,"
                        + " got "
                        + visibilityTimeout.toSeconds());
              }
              if (visibilityTimeout.isZero()) {
                op.counters.add(Counters.RELEASED, 1);
                if (op.exhausted(r)) {
                  Message left =
                      op.view(r, null, io.switchboard.queue.MessageState.DEAD_LETTERED, false);
                  op.deadLetter(r);
                  return left;
                }
                r.leased = false;
                r.visibleAt = 0;
              } else {
                r.visibleAt = until;
              }
              Sql.update(
                  op.c,
                  "update sb_message set leased = ?, visible_at = ? where serial = ?",
                  r.leased,
                  r.visibleAt,
                  r.serial);
              return op.view(r, null);
            });
    if (visibilityTimeout.isZero()) {
      changed(queue);
    }
    return m;
  }

  @Override
  public void fail(String queue, String receipt) {
    run(
        queue,
        "failing a message in '" + queue + "'",
        op -> {
          Row r = op.leased(receipt, true);
          Sql.update(op.c, "delete from sb_message where serial = ?", r.serial);
          op.counters.add(Counters.FAILED, 1);
          op.remember(r, io.switchboard.queue.MessageState.FAILED);
          return null;
        });
  }

  @Override
  public void deadLetter(String queue, String receipt) {
    run(
        queue,
        "dead-lettering in '" + queue + "'",
        op -> {
          op.requireDeadLetterTarget();
          op.deadLetter(op.leased(receipt, true));
          return null;
        });
    changed(queue);
  }

  @Override
  public void deadLetterById(String queue, String id) {
    run(
        queue,
        "dead-lettering in '" + queue + "'",
        op -> {
          op.requireDeadLetterTarget();
          op.deadLetter(op.require(serialOf(id), id));
          return null;
        });
    changed(queue);
  }

  // ---- by id -----------------------------------------------------------------------------

  @Override
  public Message update(String queue, String id, MessageUpdate update) {
    Objects.requireNonNull(update, "update");
    return run(
        queue,
        "updating a message in '" + queue + "'",
        op -> {
          Row r = op.require(serialOf(id), id);
          if (update.attributes().isPresent()) {
            int size =
                r.body.length + EngineSupport.checkedAttributeBytes(update.attributes().get());
            if (size > op.q.config().maxMessageSize()) {
              throw new QueueException(
                  ErrorCode.MESSAGE_TOO_LARGE,
                  "update makes the message "
                      + size
                      + " bytes (body plus attributes); queue '"
                      + queue
                      + "' allows at most "
                      + op.q.config().maxMessageSize());
            }
            String[] tokens =
                Pushdown.tokens(update.attributes().get(), op.q.config().indexedAttributes());
            Sql.update(
                op.c,
                "update sb_message set attrs = ?, idx = ? where serial = ?",
                Codecs.encodeAttributes(update.attributes().get()),
                tokens == null ? null : op.c.createArrayOf("text", tokens),
                r.serial);
          }
          if (update.priority().isPresent()) {
            Sql.update(
                op.c,
                "update sb_message set priority = ? where serial = ?",
                update.priority().get(),
                r.serial);
          }
          return op.view(op.find(r.serial), null);
        });
  }

  @Override
  public Message touch(String queue, String id) {
    return run(
        queue,
        "touching a message in '" + queue + "'",
        op -> {
          if (op.q.grouped()) {
            throw new QueueException(
                ErrorCode.CONFLICT,
                "touch is not allowed on grouped queue '"
                    + queue
                    + "': order within a group is fixed");
          }
          Row r = op.require(serialOf(id), id);
          r.seq = op.backSeq(op.q);
          Sql.update(op.c, "update sb_message set seq = ? where serial = ?", r.seq, r.serial);
          return op.view(r, null);
        });
  }

  @Override
  public void remove(String queue, String id) {
    run(
        queue,
        "removing a message from '" + queue + "'",
        op -> {
          Row r = op.require(serialOf(id), id);
          Sql.update(op.c, "delete from sb_message where serial = ?", r.serial);
          op.counters.add(Counters.REMOVED, 1);
          return null;
        });
  }

  @Override
  public Message get(String queue, String id) {
    return run(
        queue,
        "reading a message in '" + queue + "'",
        op -> {
          long serial = serialOf(id);
          Row r = op.find(serial);
          if (r != null) {
            return op.view(r, null);
          }
          Message h = serial == 0 ? null : Browse.history(op, serial);
          if (h == null) {
            throw EngineSupport.messageNotFound(queue, id);
          }
          return h;
        });
  }

  @Override
  public Page browse(String queue, BrowseRequest request) {
    Objects.requireNonNull(request, "request");
    return run(queue, "browsing '" + queue + "'", op -> Browse.page(op, request));
  }

  @Override
  public long purge(String queue) {
    return run(
        queue,
        "purging '" + queue + "'",
        op -> {
          int n = Sql.update(op.c, "delete from sb_message where qid = ?", op.q.id());
          op.counters.add(Counters.REMOVED, n);
          return (long) n;
        });
  }

  @Override
  public QueueStats stats(String queue) {
    int waiters = lines.size(queue);
    return run(queue, "reading stats of '" + queue + "'", op -> Browse.stats(op, waiters));
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
  public Message restore(String deadLetterQueue, String id) {
    Message m = redrives.restore(deadLetterQueue, id);
    wakeups.wakeLocal(); // the message went back to its source queue
    return m;
  }

  // ---- identity and lifecycle ------------------------------------------------------------

  /** The serial an id carries, or 0 when the id was not issued over this database. */
  long serialOf(String id) {
    if (id == null || id.length() != 36) {
      return 0;
    }
    try {
      UUID uuid = UUID.fromString(id);
      return uuid.getMostSignificantBits() == idPrefix ? uuid.getLeastSignificantBits() : 0;
    } catch (IllegalArgumentException e) {
      return 0;
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (housekeeping != null) {
      housekeeping.shutdownNow();
    }
    lines.releaseAll();
    wakeups.close();
    if (owned != null) {
      owned.close();
    }
  }

  /** Builds a {@link PostgresQueueEngine}: a JDBC URL with credentials, or a data source. */
  public static final class Builder {
    private String url;
    private String user;
    private String password;
    private DataSource dataSource;
    private Clock clock = Clock.system();
    private int maxQueues = 10_000;
    private int poolSize = 16;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration pollInterval = Duration.ofMillis(250);
    private Duration housekeepingInterval = Duration.ofMillis(200);
    private boolean notify = true;

    private Builder() {}

    /** A JDBC URL such as {@code jdbc:postgresql://db:5432/switchboard}; the engine owns a pool. */
    public Builder url(String url, String user, String password) {
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
      if (maxQueues < 1 || maxQueues > 1_000_000) {
        throw EngineSupport.invalid("maxQueues must be 1..1000000, got " + maxQueues);
      }
      this.maxQueues = maxQueues;
      return this;
    }

    /** Connections in the engine's own pool; 1..1000, default 16. */
    public Builder poolSize(int poolSize) {
      if (poolSize < 1 || poolSize > 1000) {
        throw EngineSupport.invalid("poolSize must be 1..1000, got " + poolSize);
      }
      this.poolSize = poolSize;
      return this;
    }

    /** How long to wait for a connection before answering "unavailable"; default 5 s. */
    public Builder connectTimeout(Duration connectTimeout) {
      EngineSupport.checkRange(
          "connectTimeout", connectTimeout, Duration.ofMillis(250), Duration.ofMinutes(5));
      this.connectTimeout = connectTimeout;
      return this;
    }

    /** How often a blocked receive looks again without a notification; default 250 ms. */
    public Builder pollInterval(Duration pollInterval) {
      EngineSupport.checkRange(
          "pollInterval", pollInterval, Duration.ofMillis(1), Duration.ofSeconds(20));
      this.pollInterval = pollInterval;
      return this;
    }

    /** How often timers of idle queues fire and cleanup runs on the system clock; 200 ms. */
    public Builder housekeepingInterval(Duration interval) {
      EngineSupport.checkRange(
          "housekeepingInterval", interval, Duration.ofMillis(1), Duration.ofMinutes(1));
      this.housekeepingInterval = interval;
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
        throw EngineSupport.invalid("a PostgreSQL engine needs a JDBC URL or a data source");
      }
      return new PostgresQueueEngine(this);
    }
  }
}
