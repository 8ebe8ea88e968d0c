package io.switchboard.storage.postgres;

import io.switchboard.queue.QueueException;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.spi.FencedWorkspaceRouters;
import io.switchboard.routing.spi.RouterCounters;
import io.switchboard.routing.spi.RouterEntry;
import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.routing.spi.RouterRecordCodec;
import io.switchboard.routing.spi.RouterSnapshot;
import io.switchboard.routing.spi.StoredInterval;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RouterJournal} in PostgreSQL (tables {@code sb_router_*}), written by the holder of one
 * epoch of the routing lease only ({@link RoutingLeadership}). Each routing workspace has a journal
 * of its own over the same tables: its rows carry its name in column {@code workspace}. Records are
 * stored whole, as {@link RouterRecordCodec} bytes keyed by (workspace, id); the counters are one
 * row per workspace.
 *
 * <p><b>Group commit.</b> One writer thread takes every batch appended since its last write and
 * writes them in one transaction, in append order (a record put twice is written once, as it was
 * last); a durable append's ticket completes when that transaction has committed. A batch is
 * therefore stored whole or not at all, and what is stored is always a prefix of what was appended.
 *
 * <p><b>Fencing.</b> Every write transaction first reads the lease row {@code FOR SHARE} and writes
 * only if the epoch is still this journal's. A takeover (which raises the epoch) waits for a write
 * in progress to commit, and every write after it sees the new epoch and is refused: a deposed
 * leader, however late it wakes up, never overwrites what its successor loaded. A refused or failed
 * write fails every ticket not yet completed and every later append (UNAVAILABLE), which stops the
 * router on top; {@code onFailure} tells the owner to step down.
 *
 * <p><b>Reservation ids.</b> Ids {@code res-N} come from a counter that is stored with each batch,
 * but a leader that dies may have shown ids (in events, in answers) whose batches never committed.
 * So the journal reserves ids durably in blocks of {@value #RESERVATION_BLOCK} before the router
 * hands them out (the router appends the call's counters before anything of the call is seen), and
 * {@link #load} continues above the reserved limit: a new leader never hands out an id that a dead
 * one showed. A graceful {@link #close} gives the unused part of the block back, so a planned
 * handover leaves no gap in the ids.
 */
public final class PostgresRouterJournal implements FencedWorkspaceRouters.Journal {

  /** Reservation ids reserved durably at a time; one extra commit per half block of offers. */
  static final long RESERVATION_BLOCK = 1 << 16;

  private static final long CLOSE_WAIT_MILLIS = 10_000;
  private static final System.Logger LOG = System.getLogger(PostgresRouterJournal.class.getName());

  private final Sql sql;
  private final long epoch;
  private final String workspace;
  private final Runnable onFailure;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition work = lock.newCondition();
  private final Thread writer;
  private List<Pending> queue = new ArrayList<>();
  private List<Pending> inFlight = List.of();
  private boolean closing;
  private volatile @Nullable String failure;
  private long reservationLimit;

  /** One appended batch; {@code done} completes when it is committed. */
  private record Pending(List<RouterEntry> entries, CompletableFuture<Void> done) {}

  /** The lease passed on: the write would overwrite what the new leader loaded. */
  private static final class Fenced extends RuntimeException {
    Fenced(String message) {
      super(message, null, false, false);
    }
  }

  private PostgresRouterJournal(DataSource ds, long epoch, String workspace, Runnable onFailure) {
    this.sql = new Sql(ds);
    this.epoch = epoch;
    this.workspace = workspace;
    this.onFailure = onFailure;
    this.reservationLimit = tx("opening the routing store", this::openState);
    this.writer =
        Thread.ofPlatform()
            .daemon()
            .name("switchboard-routing-pg-writer-" + workspace + "-" + epoch)
            .start(this::writeLoop);
  }

  /**
   * The workspace's reservation-id limit; a workspace opened for the first time gets its counters
   * row here, written under the fence like every other write.
   */
  private long openState(Connection c) throws SQLException {
    if (!stateExists(c, workspace)) {
      fence(c);
      Sql.update(
          c,
          "insert into sb_router_state (workspace, format) values (?, ?) on conflict (workspace)"
              + " do nothing",
          workspace,
          RouterRecordCodec.FORMAT);
    }
    return checkFormat(c, workspace).reservationLimit();
  }

  private static boolean stateExists(Connection c, String workspace) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("select 1 from sb_router_state where workspace = ?")) {
      ps.setString(1, workspace);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /**
   * Opens the store of workspace {@code default}'s router for the holder of lease epoch {@code
   * epoch}; the schema must exist ({@link PostgresQueueEngine} or {@link RoutingLeadership} creates
   * it).
   *
   * @throws RoutingException UNAVAILABLE when the database cannot be reached
   * @throws IllegalStateException when the store holds records of another format
   */
  public static PostgresRouterJournal open(DataSource ds, long epoch) {
    return open(ds, epoch, DEFAULT, () -> {});
  }

  /**
   * As {@link #open(DataSource, long)}, for workspace {@code workspace} (its counters row created
   * if it has none); {@code onFailure} runs once when a write fails.
   */
  static PostgresRouterJournal open(
      DataSource ds, long epoch, String workspace, Runnable onFailure) {
    return new PostgresRouterJournal(ds, epoch, workspace, onFailure);
  }

  /** The workspace whose router state the default {@link #open(DataSource, long)} opens. */
  static final String DEFAULT = io.switchboard.routing.Workspaces.DEFAULT;

  /** The workspace whose router state this journal holds. */
  @Override
  public String workspace() {
    return workspace;
  }

  /**
   * Deletes the stored router state of workspace {@code workspace} (its records and counters), in
   * one transaction fenced by lease epoch {@code epoch}; its journal must be closed.
   *
   * @throws RoutingException UNAVAILABLE when the database cannot be reached or the lease moved on
   */
  static void drop(DataSource ds, long epoch, String workspace) {
    try {
      new Sql(ds)
          .act(
              "deleting the routing store of workspace '" + workspace + "'",
              c -> {
                RouterLease.Row row = RouterLease.fence(c);
                if (row.epoch() != epoch) {
                  throw RoutingException.unavailable(fencedMessage(epoch, row), null);
                }
                for (String table : TABLES) {
                  Sql.update(c, "delete from " + table + " where workspace = ?", workspace);
                }
              });
    } catch (QueueException e) {
      throw RoutingException.unavailable(String.valueOf(e.getMessage()), e);
    }
  }

  private static final List<String> TABLES =
      List.of(
          "sb_router_agent",
          "sb_router_contact",
          "sb_router_reservation",
          "sb_router_interval",
          "sb_router_state");

  /** The lease epoch this journal writes under. */
  public long epoch() {
    return epoch;
  }

  /** Why the journal stopped taking writes, if it did. */
  @Override
  public Optional<String> failure() {
    return Optional.ofNullable(failure);
  }

  // ---- load --------------------------------------------------------------------------------

  private record State(RouterCounters counters, long reservationLimit) {}

  @Override
  public RouterSnapshot load() {
    return tx(
        "loading the routing store",
        c -> {
          Sql.execute(c, "set transaction isolation level repeatable read, read only");
          State state = checkFormat(c, workspace);
          RouterCounters s = state.counters();
          RouterCounters counters =
              new RouterCounters(
                  s.agentSerial(),
                  s.contactSeq(),
                  s.idleSeq(),
                  Math.max(s.reservationSeq(), state.reservationLimit()),
                  s.timerSeq(),
                  s.retireSeq(),
                  s.eventIdLimit());
          return new RouterSnapshot(
              counters,
              rows(c, "sb_router_agent", RouterRecordCodec::agent),
              rows(c, "sb_router_contact", RouterRecordCodec::contact),
              rows(c, "sb_router_reservation", RouterRecordCodec::reservation),
              openIntervals(c));
        });
  }

  /**
   * The cumulative figures ({@code start_ms} null) and the latest interval's: the closed intervals
   * before it stay in the table ({@link #intervals}).
   */
  private List<StoredInterval> openIntervals(Connection c) throws SQLException {
    List<StoredInterval> out = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "select value from sb_router_interval where workspace = ? and (start_ms is null or"
                + " start_ms = (select max(start_ms) from sb_router_interval where workspace = ?))")) {
      ps.setString(1, workspace);
      ps.setString(2, workspace);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(RouterRecordCodec.interval(rs.getBytes(1)));
        }
      }
    }
    return out;
  }

  /**
   * One query by primary key, a key per interval start in the range, after waiting for what was
   * appended before to be committed.
   */
  @Override
  public List<StoredInterval> intervals(
      long from, long to, StoredInterval.Scope scope, String name) {
    appendDurable(List.of()).await();
    List<String> keys = StoredInterval.keys(from, to, scope, name);
    return tx(
        "reading routing statistics",
        c -> {
          List<StoredInterval> out = new ArrayList<>();
          try (PreparedStatement ps =
              c.prepareStatement(
                  "select value from sb_router_interval where workspace = ? and id = any (?)"
                      + " order by start_ms")) {
            ps.setString(1, workspace);
            ps.setArray(2, c.createArrayOf("text", keys.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                out.add(RouterRecordCodec.interval(rs.getBytes(1)));
              }
            }
          }
          return out;
        });
  }

  private static State checkFormat(Connection c, String workspace) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "select format, agent_serial, contact_seq, idle_seq, reservation_seq, timer_seq,"
                + " retire_seq, event_id_limit, reservation_limit from sb_router_state"
                + " where workspace = ?")) {
      ps.setString(1, workspace);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException(
              "the routing store's row of workspace '"
                  + workspace
                  + "' is missing from sb_router_state");
        }
        int format = rs.getInt(1);
        if (format != RouterRecordCodec.FORMAT) {
          throw new IllegalStateException(
              "the routing store in PostgreSQL holds records of format "
                  + format
                  + "; this version of Switchboard reads format "
                  + RouterRecordCodec.FORMAT
                  + " only");
        }
        return new State(
            new RouterCounters(
                rs.getLong(2),
                rs.getLong(3),
                rs.getLong(4),
                rs.getLong(5),
                rs.getLong(6),
                rs.getLong(7),
                rs.getLong(8)),
            rs.getLong(9));
      }
    }
  }

  private <T> List<T> rows(Connection c, String table, Function<byte[], T> decode)
      throws SQLException {
    List<T> out = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement("select value from " + table + " where workspace = ?")) {
      ps.setString(1, workspace);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(decode.apply(rs.getBytes(1)));
        }
      }
    }
    return out;
  }

  // ---- append ------------------------------------------------------------------------------

  @Override
  public void append(List<RouterEntry> entries) {
    enqueue(entries);
  }

  @Override
  public Ticket appendDurable(List<RouterEntry> entries) {
    CompletableFuture<Void> done = enqueue(entries);
    return () -> {
      try {
        done.join();
      } catch (CompletionException e) {
        // the writer fails a ticket with completeExceptionally(cause): join wraps that cause
        Throwable cause = Objects.requireNonNull(e.getCause(), "a failed ticket's cause");
        throw RoutingException.unavailable(String.valueOf(cause.getMessage()), cause);
      }
    };
  }

  private CompletableFuture<Void> enqueue(List<RouterEntry> entries) {
    refuseIfFailed();
    reserveReservationIds(entries);
    Pending p = new Pending(entries, new CompletableFuture<>());
    lock.lock();
    try {
      refuseIfFailed();
      queue.add(p);
      work.signal();
    } finally {
      lock.unlock();
    }
    return p.done;
  }

  private void refuseIfFailed() {
    String f = failure;
    if (f != null) {
      throw RoutingException.unavailable(f, null);
    }
  }

  /**
   * Called with the router's lock held, before the call's ids are seen by anyone: if the batch's
   * reservation counter comes within half a block of the reserved limit, reserves the next block
   * and waits until that is committed.
   */
  private synchronized void reserveReservationIds(List<RouterEntry> entries) {
    long seq = -1;
    for (RouterEntry e : entries) {
      if (e instanceof RouterEntry.CountersPut c) {
        seq = Math.max(seq, c.counters().reservationSeq());
      }
    }
    if (seq < 0 || seq + RESERVATION_BLOCK / 2 <= reservationLimit) {
      return;
    }
    long limit = seq + RESERVATION_BLOCK;
    try {
      tx(
          "reserving reservation ids",
          c -> {
            fence(c);
            return Sql.update(
                c,
                "update sb_router_state set reservation_limit = greatest(reservation_limit, ?)"
                    + " where workspace = ?",
                limit,
                workspace);
          });
    } catch (RuntimeException e) {
      fail(describe(e), e);
      throw RoutingException.unavailable(describe(e), e);
    }
    reservationLimit = limit;
  }

  // ---- the writer --------------------------------------------------------------------------

  private void writeLoop() {
    while (true) {
      List<Pending> group;
      lock.lock();
      try {
        while (queue.isEmpty() && !closing && failure == null) {
          work.awaitUninterruptibly();
        }
        if (failure != null || queue.isEmpty()) {
          return;
        }
        group = queue;
        queue = new ArrayList<>();
        inFlight = group;
      } finally {
        lock.unlock();
      }
      try {
        write(group);
      } catch (RuntimeException e) {
        fail(describe(e), e);
        return;
      }
      lock.lock();
      try {
        inFlight = List.of();
      } finally {
        lock.unlock();
      }
      group.forEach(p -> p.done.complete(null));
    }
  }

  /** Writes a group of batches in one fenced transaction. */
  private void write(List<Pending> group) {
    Map<String, RouterEntry> last = new LinkedHashMap<>();
    RouterCounters counters = null;
    long dropBefore = Long.MIN_VALUE; // intervals past the retention: after the puts
    for (Pending p : group) {
      for (RouterEntry e : p.entries()) {
        switch (e) {
          case RouterEntry.AgentPut put -> last.put("a" + put.agent().id(), e);
          case RouterEntry.AgentDelete d -> last.put("a" + d.id(), e);
          case RouterEntry.ContactPut put -> last.put("c" + put.contact().id(), e);
          case RouterEntry.ContactDelete d -> last.put("c" + d.id(), e);
          case RouterEntry.ReservationPut put -> last.put("r" + put.reservation().id(), e);
          case RouterEntry.ReservationDelete d -> last.put("r" + d.id(), e);
          case RouterEntry.IntervalPut put -> last.put("i" + put.interval().key(), e);
          case RouterEntry.IntervalsDropped d -> dropBefore = Math.max(dropBefore, d.before());
          case RouterEntry.CountersPut put -> counters = put.counters();
        }
      }
    }
    RouterCounters finalCounters = counters;
    long finalDropBefore = dropBefore;
    act(
        "storing routing changes",
        c -> {
          fence(c);
          Rows rows = new Rows(workspace);
          last.values().forEach(rows::add);
          rows.write(c);
          if (finalDropBefore != Long.MIN_VALUE) {
            Sql.update(
                c,
                "delete from sb_router_interval where workspace = ? and start_ms < ?",
                workspace,
                finalDropBefore);
          }
          if (finalCounters != null) {
            writeCounters(c, workspace, finalCounters);
          }
        });
  }

  /** The upserts and deletes of one write, per table, sent as JDBC batches. */
  private static final class Rows {
    private final String workspace;
    private final Map<String, List<Object[]>> puts = new LinkedHashMap<>();
    private final Map<String, List<String>> deletes = new LinkedHashMap<>();
    private final List<StoredInterval> intervals = new ArrayList<>();

    Rows(String workspace) {
      this.workspace = workspace;
    }

    void add(RouterEntry e) {
      switch (e) {
        case RouterEntry.AgentPut p ->
            put("sb_router_agent", p.agent().id(), RouterRecordCodec.encode(p.agent()));
        case RouterEntry.AgentDelete d -> delete("sb_router_agent", d.id());
        case RouterEntry.ContactPut p ->
            put("sb_router_contact", p.contact().id(), RouterRecordCodec.encode(p.contact()));
        case RouterEntry.ContactDelete d -> delete("sb_router_contact", d.id());
        case RouterEntry.ReservationPut p ->
            put(
                "sb_router_reservation",
                p.reservation().id(),
                RouterRecordCodec.encode(p.reservation()));
        case RouterEntry.ReservationDelete d -> delete("sb_router_reservation", d.id());
        case RouterEntry.IntervalPut p -> intervals.add(p.interval());
        case RouterEntry.IntervalsDropped d -> {
          // one delete by start per transaction, after the puts
        }
        case RouterEntry.CountersPut c -> {
          // written separately, once per transaction
        }
      }
    }

    private void put(String table, String id, byte[] value) {
      puts.computeIfAbsent(table, t -> new ArrayList<>()).add(new Object[] {id, value});
    }

    private void delete(String table, String id) {
      deletes.computeIfAbsent(table, t -> new ArrayList<>()).add(id);
    }

    void write(Connection c) throws SQLException {
      if (!intervals.isEmpty()) {
        try (PreparedStatement ps =
            c.prepareStatement(
                "insert into sb_router_interval (workspace, id, start_ms, value) values (?, ?, ?,"
                    + " ?) on conflict (workspace, id) do update set value = excluded.value")) {
          for (StoredInterval i : intervals) {
            ps.setString(1, workspace);
            ps.setString(2, i.key());
            if (i.start() == StoredInterval.TOTAL) {
              ps.setNull(3, java.sql.Types.BIGINT);
            } else {
              ps.setLong(3, i.start());
            }
            ps.setBytes(4, RouterRecordCodec.encode(i));
            ps.addBatch();
          }
          ps.executeBatch();
        }
      }
      for (var table : puts.entrySet()) {
        try (PreparedStatement ps =
            c.prepareStatement(
                "insert into "
                    + table.getKey()
                    + " (workspace, id, value) values (?, ?, ?) on conflict (workspace, id) do"
                    + " update set value = excluded.value")) {
          for (Object[] row : table.getValue()) {
            ps.setString(1, workspace);
            ps.setString(2, (String) row[0]);
            ps.setBytes(3, (byte[]) row[1]);
            ps.addBatch();
          }
          ps.executeBatch();
        }
      }
      for (var table : deletes.entrySet()) {
        try (PreparedStatement ps =
            c.prepareStatement(
                "delete from " + table.getKey() + " where workspace = ? and id = any (?)")) {
          ps.setString(1, workspace);
          ps.setArray(2, c.createArrayOf("text", table.getValue().toArray()));
          ps.executeUpdate();
        }
      }
    }
  }

  private static void writeCounters(Connection c, String workspace, RouterCounters k)
      throws SQLException {
    Sql.update(
        c,
        "update sb_router_state set agent_serial = ?, contact_seq = ?, idle_seq = ?,"
            + " reservation_seq = ?, timer_seq = ?, retire_seq = ?, event_id_limit = ? where"
            + " workspace = ?",
        k.agentSerial(),
        k.contactSeq(),
        k.idleSeq(),
        k.reservationSeq(),
        k.timerSeq(),
        k.retireSeq(),
        k.eventIdLimit(),
        workspace);
  }

  /** Inside a write transaction: refuses it unless this journal's epoch still holds the lease. */
  private void fence(Connection c) throws SQLException {
    RouterLease.Row row = RouterLease.fence(c);
    if (row.epoch() != epoch) {
      throw new Fenced(fencedMessage(epoch, row));
    }
  }

  static String fencedMessage(long epoch, RouterLease.Row row) {
    return "this server no longer holds the routing lease (it held epoch "
        + epoch
        + "; epoch "
        + row.epoch()
        + " is held by "
        + row.holder()
        + "), so it stores nothing more";
  }

  // ---- failure and close -------------------------------------------------------------------

  private static String describe(RuntimeException e) {
    if (e instanceof Fenced || e instanceof RoutingException) {
      return String.valueOf(e.getMessage());
    }
    return "the routing store failed: " + e.getMessage();
  }

  /**
   * Stops taking writes: every batch not yet committed fails its ticket with UNAVAILABLE, as does
   * every later append. The first failure runs {@code onFailure}.
   */
  private void fail(String message, @Nullable Throwable cause) {
    List<Pending> unfinished = new ArrayList<>();
    boolean first;
    String why; // the first failure's message, which every later one repeats
    lock.lock();
    try {
      String was = failure;
      first = was == null;
      why = was == null ? message : was;
      if (first) {
        failure = message;
      }
      unfinished.addAll(inFlight);
      unfinished.addAll(queue);
      queue = new ArrayList<>();
      work.signalAll();
    } finally {
      lock.unlock();
    }
    RoutingException e = RoutingException.unavailable(why, cause);
    unfinished.forEach(p -> p.done.completeExceptionally(e));
    if (first && !closing) {
      LOG.log(System.Logger.Level.WARNING, "routing store stopped: " + message);
      onFailure.run();
    }
  }

  /**
   * Writes what was appended, then, if all of it was stored under this epoch, gives back the unused
   * reservation ids of the reserved block. Close the router first: it must append nothing more.
   * Waits at most 10 s for the writer; batches not stored by then fail their tickets.
   */
  @Override
  public void close() {
    lock.lock();
    try {
      closing = true;
      work.signalAll();
    } finally {
      lock.unlock();
    }
    try {
      writer.join(CLOSE_WAIT_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (writer.isAlive()) {
      fail("the routing store did not finish writing within 10 s of closing", null);
    } else if (failure == null) {
      giveBackReservationIds();
    }
    fail("the routing store is closed", null);
  }

  private void giveBackReservationIds() {
    try {
      tx(
          "closing the routing store",
          c -> {
            fence(c);
            return Sql.update(
                c,
                "update sb_router_state set reservation_limit = reservation_seq where workspace ="
                    + " ?",
                workspace);
          });
    } catch (RuntimeException e) {
      // the next leader starts above the reserved limit instead: a gap in the ids, nothing worse
    }
  }

  /**
   * Stops without writing what is queued, as a process that dies would (tests of a leader's death):
   * what the writer is committing right now may still commit, nothing after it does.
   */
  @Override
  public void abandon() {
    lock.lock();
    try {
      closing = true;
    } finally {
      lock.unlock();
    }
    fail("the routing store was abandoned", null);
  }

  // ---- transactions ------------------------------------------------------------------------

  /** One transaction; database errors become UNAVAILABLE routing errors. */
  private <T> T tx(String what, Sql.Work<T> work) {
    try {
      return sql.tx(what, work);
    } catch (QueueException e) {
      throw RoutingException.unavailable(String.valueOf(e.getMessage()), e);
    }
  }

  /** One transaction that answers nothing; database errors become UNAVAILABLE routing errors. */
  private void act(String what, Sql.Step step) {
    try {
      sql.act(what, step);
    } catch (QueueException e) {
      throw RoutingException.unavailable(String.valueOf(e.getMessage()), e);
    }
  }
}
