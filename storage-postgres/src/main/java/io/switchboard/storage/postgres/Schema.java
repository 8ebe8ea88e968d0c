package io.switchboard.storage.postgres;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The engine's tables, created and migrated on start. Each migration runs once, in version order,
 * all of them in one transaction, recorded in {@code sb_schema_version}; servers starting together
 * serialize on an advisory lock. A version missing from the table is applied even when a higher one
 * is there, so migrations written on parallel branches (each its own version) apply in any order
 * they arrive. A database whose schema is newer than this build knows is refused, so an old server
 * never writes to a layout it does not understand.
 *
 * <p>Bloat control is part of the layout (see {@link #V4} and docs/deploy.md, "Bloat and vacuum"):
 * {@code sb_message} leaves room on each page (fillfactor 70) and no index holds a column that a
 * lease changes, so receives, extends and returns are HOT updates; lease timers live in the narrow
 * {@code sb_lease}.
 */
final class Schema {

  /** The newest schema version this build knows. */
  static final int VERSION = 41;

  private static final long MIGRATION_LOCK = 0x5357_4244_4d49_4752L;

  private static final List<String> V1 =
      List.of(
          "create table sb_meta (key text primary key, value text not null)",
          "create table sb_queue (id bigserial primary key, name text not null unique,"
              + " grouped boolean not null, config text not null, created_at bigint not null,"
              + " receipt_key bigint not null, back_seq bigint not null default 0)",
          "create table sb_counter (qid bigint not null, slot int not null,"
              + " sent bigint not null default 0, duplicates bigint not null default 0,"
              + " received bigint not null default 0, acked bigint not null default 0,"
              + " released bigint not null default 0, failed bigint not null default 0,"
              + " expired bigint not null default 0, shed bigint not null default 0,"
              + " dead_lettered bigint not null default 0, removed bigint not null default 0,"
              + " primary key (qid, slot)) with (fillfactor = 50)",
          "create sequence sb_seq",
          "create table sb_message (serial bigint primary key, qid bigint not null,"
              + " seq bigint not null, priority int not null, leased boolean not null default"
              + " false, visible_at bigint not null default 0, expires_at bigint not null,"
              + " lease_epoch int not null default 0, leased_at bigint not null default 0,"
              + " receive_count int not null default 0, first_received_at bigint not null"
              + " default 0, sent_at bigint not null, group_id text, dedup_id text, dl_source"
              + " text, body bytea not null, attrs bytea, arrival bigint not null)"
              + " with (fillfactor = 70)",
          "create index sb_message_fifo on sb_message (qid, priority desc, seq)",
          "create index sb_message_lifo on sb_message (qid, priority desc, seq desc)",
          "create index sb_message_due on sb_message (qid, visible_at) where leased",
          "create index sb_message_expiry on sb_message (qid, expires_at)",
          "create index sb_message_group on sb_message (qid, group_id, seq)"
              + " where group_id is not null",
          "create table sb_dedup (qid bigint not null, key text not null, serial bigint not null,"
              + " seq bigint not null, until bigint not null, primary key (qid, key))",
          "create index sb_dedup_until on sb_dedup (until)",
          "create table sb_history (qid bigint not null, serial bigint not null, state text not"
              + " null, until bigint not null, seq bigint not null, priority int not null,"
              + " sent_at bigint not null, first_received_at bigint not null, receive_count int"
              + " not null, expires_at bigint not null, group_id text, dedup_id text, dl_source"
              + " text, body bytea not null, attrs bytea, primary key (qid, serial))",
          "create index sb_history_until on sb_history (until)",
          "create table sb_redrive (id text primary key, created bigserial, source text not null,"
              + " destination text, max_per_second int, status text not null, moved bigint not"
              + " null, to_move bigint not null, started_at bigint not null, failure text,"
              + " serials bigint[] not null, next int not null default 0)",
          "create index sb_redrive_source on sb_redrive (source, created)");

  /** Version 2: indexed attributes as tokens under a GIN index, for filtered receive. */
  private static final List<String> V2 =
      List.of(
          "alter table sb_message add column idx text[]",
          "create index sb_message_idx on sb_message using gin (idx) where idx is not null");

  /**
   * Version 3: the router's durable state and the routing leader's lease ({@link RouterLease},
   * {@link PostgresRouterJournal}). Records are {@code RouterRecordCodec} bytes keyed by id; the
   * counters and the reservation-id limit are one row; the lease is one row whose epoch fences
   * every write of the router.
   */
  private static final List<String> V3 =
      List.of(
          "create table sb_router_leader (id int primary key check (id = 1), epoch bigint not"
              + " null, holder text, url text, expires_at timestamptz not null, changed_at"
              + " timestamptz not null default now())",
          "insert into sb_router_leader (id, epoch, expires_at) values (1, 0, '-infinity')",
          "create table sb_router_state (id int primary key check (id = 1), format int not null,"
              + " agent_serial bigint not null default 0, contact_seq bigint not null default 0,"
              + " idle_seq bigint not null default 0, reservation_seq bigint not null default 0,"
              + " timer_seq bigint not null default 0, retire_seq bigint not null default 0,"
              + " event_id_limit bigint not null default 0, reservation_limit bigint not null"
              + " default 0)",
          "insert into sb_router_state (id, format) values (1, 1)",
          "create table sb_router_agent (id text primary key, value bytea not null)",
          "create table sb_router_contact (id text primary key, value bytea not null)",
          "create table sb_router_reservation (id text primary key, value bytea not null)");

  /**
   * Version 4 (2026-11-24), HOT leases and one-statement operations:
   *
   * <ul>
   *   <li>{@code sb_lease} holds one row per lease, (queue, lease end, serial), under {@code
   *       sb_lease_due}; it replaces the partial index {@code sb_message_due}, whose columns
   *       ({@code leased}, {@code visible_at}) changed on every receive and so made every lease
   *       update a non-HOT update that added an entry to each of the message table's indexes. A row
   *       can outlive its lease (an extend adds a newer one, a return or ack leaves the message
   *       unleased): timers drop such rows when they fall due.
   *   <li>{@code sb_queue.revision} counts configuration changes, so a server may keep queue rows
   *       in memory and every statement checks in passing that the row it used is still current.
   *   <li>{@code sb_claim} is a receive on a standard queue as one call: claim in delivery order
   *       {@code FOR UPDATE SKIP LOCKED}, lease, arm the timers, count. It is a function only to
   *       pin its plan: with sorts and bitmap scans off, the only plan left walks the ordering
   *       index from the head and stops after {@code max} rows. Left to itself the planner picks
   *       "bitmap scan of the whole queue, then sort" whenever its statistics say the queue is
   *       small, which they do for every new queue until autovacuum analyzes the table: each
   *       receive then reads the whole backlog (seen with auto_explain: 4–8 ms per claim with
   *       1,000–2,500 queued, growing with the backlog).
   *   <li>Autovacuum starts on {@code sb_message} and {@code sb_lease} after 2 % of the rows (not
   *       20 %) have changed: dead index entries at the head of a queue are what a claim walks
   *       over.
   * </ul>
   */
  private static final List<String> V4 =
      List.of(
          "alter table sb_queue add column revision bigint not null default 0",
          "create table sb_lease (qid bigint not null, until bigint not null, serial bigint not"
              + " null) with (autovacuum_vacuum_scale_factor = 0.02,"
              + " autovacuum_analyze_scale_factor = 0.02)",
          "create index sb_lease_due on sb_lease (qid, until)",
          "insert into sb_lease (qid, until, serial) select qid, visible_at, serial from sb_message"
              + " where leased",
          "drop index sb_message_due",
          "alter table sb_message set (autovacuum_vacuum_scale_factor = 0.02,"
              + " autovacuum_analyze_scale_factor = 0.02)",
          Claim.FUNCTION_V4);

  /**
   * Version 5 (2026-11-25): {@code sb_system}, the server's records ({@link PostgresSystemRecords}:
   * access keys, the receipt key), shared by every server on the database.
   */
  private static final List<String> V5 =
      List.of("create table sb_system (key text primary key, value bytea not null)");

  /**
   * Version 6 (2026-11-25): {@code sb_workspace}, the routing workspaces' definitions ({@link
   * PostgresWorkspaceStore}).
   */
  private static final List<String> V6 =
      List.of("create table sb_workspace (name text primary key, value bytea not null)");

  /**
   * Version 8 (2026-11-26): the router tables hold the state of every routing workspace, keyed by a
   * {@code workspace} column (the rows of before are workspace {@code default}'s); one lease still
   * fences them all ({@link io.switchboard.routing.spi.FencedWorkspaceRouters}). {@code
   * sb_router_state} has one row per workspace, keyed by its name instead of the constant {@code id
   * = 1}.
   */
  private static final List<String> V8 =
      List.of(
          "alter table sb_router_state add column workspace text not null default 'default'",
          "alter table sb_router_state drop column id",
          "alter table sb_router_state add primary key (workspace)",
          "alter table sb_router_state alter column workspace drop default",
          "alter table sb_router_agent add column workspace text not null default 'default'",
          "alter table sb_router_agent drop constraint sb_router_agent_pkey",
          "alter table sb_router_agent add primary key (workspace, id)",
          "alter table sb_router_agent alter column workspace drop default",
          "alter table sb_router_contact add column workspace text not null default 'default'",
          "alter table sb_router_contact drop constraint sb_router_contact_pkey",
          "alter table sb_router_contact add primary key (workspace, id)",
          "alter table sb_router_contact alter column workspace drop default",
          "alter table sb_router_reservation add column workspace text not null default"
              + " 'default'",
          "alter table sb_router_reservation drop constraint sb_router_reservation_pkey",
          "alter table sb_router_reservation add primary key (workspace, id)",
          "alter table sb_router_reservation alter column workspace drop default");

  /**
   * Version 27 (2026-11-26): {@code sb_router_interval}, the router's lasting statistics: one row
   * per workspace, 15-minute interval and scope (and the cumulative figures), keyed by the
   * workspace (as the other router tables since version 8) and {@code StoredInterval.key()}, {@code
   * RouterRecordCodec} bytes, written by the routing leader with the rest of its state. (27, not 7:
   * versions on parallel branches must differ.)
   */
  private static final List<String> V27 =
      List.of(
          "create table sb_router_interval (workspace text not null, id text not null,"
              + " value bytea not null, primary key (workspace, id))");

  /**
   * Version 31 (2026-11-26): {@code sb_router_interval.start_ms}, an interval's start (null for the
   * cumulative figures), indexed with the workspace: a router loads the latest interval only, and
   * drops those past the retention by a range of starts. Rows of before get it from their id (16
   * hex digits, then {@code /}). (31, not 9: versions on parallel branches must differ.)
   */
  private static final List<String> V31 =
      List.of(
          "alter table sb_router_interval add column start_ms bigint",
          "update sb_router_interval set start_ms = ('x' || substr(id, 1, 16))::bit(64)::bigint"
              + " where id not like 'total/%'",
          "create index sb_router_interval_start on sb_router_interval (workspace, start_ms)");

  /**
   * Version 33 (2026-11-26, docs/bench-history/postgresql.md): the LIFO ordering index holds the
   * messages of LIFO queues only. Every message was in both {@code sb_message_fifo} and {@code
   * sb_message_lifo}, though a queue claims through one of them: one index entry written per send
   * for nothing (of four), and one more index to vacuum. {@code sb_message.lifo} says whether the
   * message's queue is LIFO (set on send, on a move to another queue, and for all of a queue's
   * messages when its order changes); {@code sb_message_lifo} is partial, {@code where lifo}, and
   * the LIFO claim of {@code sb_claim} and every other ordered scan of a LIFO queue ({@link
   * Op.Q#ofQueue}) ask for {@code lifo} so they can walk it. {@code sb_message_fifo} stays whole
   * (LIFO queues are the rare case). {@code sb_claim} and the new {@code sb_ack} (the common ack,
   * one receipt or a batch) keep one generic plan per connection, pinned to index lookups ({@link
   * Claim#FUNCTION}, {@link MessageOps#ACK_FUNCTION_V33}). (33, not 9: versions on parallel
   * branches must differ.)
   */
  private static final List<String> V33 =
      List.of(
          "alter table sb_message add column lifo boolean not null default false",
          "update sb_message m set lifo = true from sb_queue q where m.qid = q.id and not"
              + " q.grouped and q.config like 'order=LIFO;%'",
          "drop index sb_message_lifo",
          "create index sb_message_lifo on sb_message (qid, priority desc, seq desc) where lifo",
          Claim.FUNCTION,
          MessageOps.ACK_FUNCTION_V33);

  /**
   * Version 34 (2026-11-26, docs/bench-history/postgresql.md): {@code sb_ack} finds every row it
   * deletes by its key, so an ack's cost no longer grows with the queue's backlog when the
   * connection's plan was made from statistics that called the tables small ({@link
   * MessageOps#ACK_FUNCTION}). (34: versions on parallel branches must differ.)
   */
  private static final List<String> V34 = List.of(MessageOps.ACK_FUNCTION);

  /**
   * Version 36 (2026-12-02, docs/decisions.md#2026-12-02-postgres-queue-pages): {@code
   * sb_queue_name_c}, the queue names in byte order ({@code collate "C"}, which is Java's order for
   * queue names, whatever the database's collation), so a page of queues ({@link QueueOps#page}) is
   * one walk of the index from its cursor. (36, not 35: versions on parallel branches must differ.)
   */
  private static final List<String> V36 =
      List.of("create index sb_queue_name_c on sb_queue (name collate \"C\")");

  /**
   * Version 38 (2026-12-02, docs/decisions.md#2026-12-02-postgres-counts-its-queues): {@code
   * sb_queue_count}, the number of queues in one row, started from the queues there are; a creation
   * raises it and a deletion lowers it in the transaction that writes the queue's row, so creation
   * checks {@code max-queues} without counting {@code sb_queue} ({@link QueueOps#ensureQueue}).
   * (38: versions on parallel branches must differ.)
   */
  private static final List<String> V38 =
      List.of(
          "create table sb_queue_count (id int primary key check (id = 1), n bigint not null)",
          "insert into sb_queue_count (id, n) select 1, count(*) from sb_queue");

  /**
   * Version 41 (2026-12-02, docs/design.md, "Limits per key"): {@code sb_counter.key_limited}, the
   * receives that passed over a message group at the queue's {@code keyLimit}. (41: versions on
   * parallel branches must differ.)
   */
  private static final List<String> V41 =
      List.of("alter table sb_counter add column key_limited bigint not null default 0");

  /** Every version's statements, applied in version order. */
  private static final SortedMap<Integer, List<String>> MIGRATIONS =
      new TreeMap<>(
          Map.ofEntries(
              Map.entry(1, V1),
              Map.entry(2, V2),
              Map.entry(3, V3),
              Map.entry(4, V4),
              Map.entry(5, V5),
              Map.entry(6, V6),
              Map.entry(8, V8),
              Map.entry(27, V27),
              Map.entry(31, V31),
              Map.entry(33, V33),
              Map.entry(34, V34),
              Map.entry(36, V36),
              Map.entry(38, V38),
              Map.entry(41, V41)));

  private Schema() {}

  /** The versions this build applies (not necessarily contiguous: see the class comment). */
  static Set<Integer> versions() {
    return MIGRATIONS.keySet();
  }

  /** Creates or migrates the schema; returns the database's id prefix for message ids. */
  static long migrate(DataSource ds) {
    return migrate(ds, VERSION);
  }

  /** Applies the migrations up to {@code upTo} only (tests build older layouts with it). */
  static long migrate(DataSource ds, int upTo) {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.execute("select pg_advisory_xact_lock(" + MIGRATION_LOCK + ")");
        s.execute(
            "create table if not exists sb_schema_version (version int primary key,"
                + " applied_at timestamptz not null default now())");
        Set<Integer> applied = new HashSet<>();
        try (ResultSet rs = s.executeQuery("select version from sb_schema_version")) {
          while (rs.next()) {
            applied.add(rs.getInt(1));
          }
        }
        int current = applied.stream().mapToInt(Integer::intValue).max().orElse(0);
        if (current > VERSION) {
          throw new QueueException(
              ErrorCode.UNAVAILABLE,
              "the database schema is version "
                  + current
                  + ", newer than this server knows (at most "
                  + VERSION
                  + "); upgrade the server, or point it at another database");
        }
        for (Map.Entry<Integer, List<String>> m : MIGRATIONS.entrySet()) {
          if (applied.contains(m.getKey()) || m.getKey() > upTo) {
            continue;
          }
          for (String ddl : m.getValue()) {
            s.execute(ddl);
          }
          if (m.getKey() == 1) {
            s.execute(
                "insert into sb_meta values ('id_prefix', '"
                    + UUID.randomUUID().getMostSignificantBits()
                    + "')");
          }
          s.execute("insert into sb_schema_version (version) values (" + m.getKey() + ")");
        }
        long prefix;
        try (ResultSet rs = s.executeQuery("select value from sb_meta where key = 'id_prefix'")) {
          rs.next();
          prefix = Long.parseLong(rs.getString(1));
        }
        c.commit();
        return prefix;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw Sql.translate(e, "preparing the schema");
    }
  }
}
