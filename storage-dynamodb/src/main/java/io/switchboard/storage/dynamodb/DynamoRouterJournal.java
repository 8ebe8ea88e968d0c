package io.switchboard.storage.dynamodb;

import io.switchboard.queue.QueueException;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.Workspaces;
import io.switchboard.routing.spi.FencedWorkspaceRouters;
import io.switchboard.routing.spi.RouterCounters;
import io.switchboard.routing.spi.RouterEntry;
import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.routing.spi.RouterRecordCodec;
import io.switchboard.routing.spi.RouterSnapshot;
import io.switchboard.routing.spi.StoredInterval;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
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
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * A {@link RouterJournal} in the DynamoDB store's table, written by the holder of one epoch of the
 * routing lease only ({@link DynamoRoutingLeadership}); {@code docs/design.md}, "Routing on
 * DynamoDB". Each routing workspace has a journal of its own: its items' partition keys carry its
 * name. Records are stored whole, as {@link RouterRecordCodec} bytes in attribute {@code v}:
 *
 * <ul>
 *   <li>{@code rt#<ws>}/{@code state}: the record format, the counters, the reserved reservation-id
 *       limit;
 *   <li>{@code rt#<ws>#a#<shard>}, {@code #c#}, {@code #r#}/{@code <id>}: agents, contacts and
 *       reservations, spread over {@value #SHARDS} partitions each by the id's hash, so a busy
 *       router does not write one partition past DynamoDB's per-partition rate;
 *   <li>{@code rt#<ws>#i}/{@code <interval key>}: statistics intervals (keys sort by start).
 * </ul>
 *
 * <p><b>Group commit.</b> One writer thread takes every batch appended since its last write and
 * writes them in order, whole batches per transaction ({@code TransactWriteItems}, at most {@value
 * #MAX_WRITES} item writes and a condition check), a record put twice in one transaction written
 * once, as it was last. A batch is therefore stored whole or not at all, and what is stored is a
 * prefix of what was appended, except for one batch of more than {@value #MAX_WRITES} distinct
 * records, which no transaction holds: it is written over several, in order, and a crash between
 * them leaves a part of it. A durable append's ticket completes when its transaction committed.
 *
 * <p><b>Fencing.</b> Every transaction's first action is a condition check on the lease item that
 * its epoch is still this journal's: DynamoDB decides it with the writes, atomically, so a deposed
 * leader, however late it wakes up, never overwrites what its successor loaded. A refused or failed
 * write fails every ticket not yet completed and every later append (UNAVAILABLE), which stops the
 * router on top; {@code onFailure} tells the owner to step down. A transaction cancelled by a
 * conflict (another request on the lease item at the same moment, such as a renewal) is retried.
 *
 * <p><b>Reservation ids</b> are reserved durably in blocks of {@value #RESERVATION_BLOCK}, as over
 * PostgreSQL: {@link #load} continues above the reserved limit, so a new leader never hands out an
 * id that a dead one showed, and a graceful {@link #close} gives the unused part back.
 */
public final class DynamoRouterJournal implements FencedWorkspaceRouters.Journal {

  /** Reservation ids reserved durably at a time. */
  static final long RESERVATION_BLOCK = 1 << 16;

  /** Partitions per kind of record. */
  static final int SHARDS = 4;

  /** Item writes per transaction, beside the fence (DynamoDB allows 100 actions). */
  static final int MAX_WRITES = 98;

  private static final int CONFLICT_RETRIES = 6;
  private static final long CLOSE_WAIT_MILLIS = 10_000;
  private static final String STATE = "state";
  private static final System.Logger LOG = System.getLogger(DynamoRouterJournal.class.getName());

  private final Store store;
  private final RouterLease lease;
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
  private long storedReservationSeq;

  /** One appended batch; {@code done} completes when it is stored. */
  private record Pending(List<RouterEntry> entries, CompletableFuture<Void> done) {}

  /** The lease passed on: the write would overwrite what the new leader loaded. */
  private static final class Fenced extends RuntimeException {
    Fenced(String message) {
      super(message, null, false, false);
    }
  }

  private DynamoRouterJournal(Store store, long epoch, String workspace, Runnable onFailure) {
    this.store = store;
    this.lease = new RouterLease(store);
    this.epoch = epoch;
    this.workspace = workspace;
    this.onFailure = onFailure;
    this.reservationLimit = openState();
    this.writer =
        Thread.ofPlatform()
            .daemon()
            .name("switchboard-routing-dynamodb-writer-" + workspace + "-" + epoch)
            .start(this::writeLoop);
  }

  /**
   * Opens the journal of workspace {@code workspace} for the holder of lease epoch {@code epoch}
   * (its state item written, under the fence, if it has none); {@code onFailure} runs once when a
   * write fails.
   *
   * @throws RoutingException UNAVAILABLE when DynamoDB cannot be reached or the lease moved on
   * @throws IllegalStateException when the store holds records of another format
   */
  static DynamoRouterJournal open(Store store, long epoch, String workspace, Runnable onFailure) {
    return new DynamoRouterJournal(store, epoch, workspace, onFailure);
  }

  /** The workspace whose router state this journal holds. */
  @Override
  public String workspace() {
    return workspace;
  }

  /** The lease epoch this journal writes under. */
  public long epoch() {
    return epoch;
  }

  /** Why the journal stopped taking writes, if it did. */
  @Override
  public Optional<String> failure() {
    return Optional.ofNullable(failure);
  }

  // ---- keys --------------------------------------------------------------------------------

  static String statePartition(String workspace) {
    return "rt#" + workspace;
  }

  private static String recordPartition(String workspace, char kind, String id) {
    return "rt#" + workspace + "#" + kind + "#" + Math.floorMod(id.hashCode(), SHARDS);
  }

  static String intervalPartition(String workspace) {
    return "rt#" + workspace + "#i";
  }

  /** Every partition of a workspace's records (not its state item's). */
  static List<String> recordPartitions(String workspace) {
    List<String> out = new ArrayList<>();
    for (char kind : new char[] {'a', 'c', 'r'}) {
      for (int s = 0; s < SHARDS; s++) {
        out.add("rt#" + workspace + "#" + kind + "#" + s);
      }
    }
    out.add(intervalPartition(workspace));
    return out;
  }

  // ---- open and load -----------------------------------------------------------------------

  private record State(RouterCounters counters, long reservationLimit) {}

  private long openState() {
    Map<String, AttributeValue> item = read(() -> store.get(statePartition(workspace), STATE));
    if (item == null) {
      Map<String, AttributeValue> fresh =
          new HashMap<>(Store.key(statePartition(workspace), STATE));
      fresh.put("format", Store.n(RouterRecordCodec.FORMAT));
      fresh.put("c", bytes(RouterRecordCodec.encode(RouterCounters.zero())));
      fresh.put("rl", Store.n(0));
      transact(
          "opening the routing store",
          List.of(
              TransactWriteItem.builder()
                  .put(p -> p.tableName(store.table()).item(fresh))
                  .build()));
      return 0;
    }
    State s = state(item);
    storedReservationSeq = s.counters().reservationSeq();
    return s.reservationLimit();
  }

  private State state(@Nullable Map<String, AttributeValue> item) {
    if (item == null) {
      throw new IllegalStateException(
          "the routing store's state item of workspace '"
              + workspace
              + "' ("
              + statePartition(workspace)
              + "/state) is missing");
    }
    long format = Store.num(item, "format");
    if (format != RouterRecordCodec.FORMAT) {
      throw new IllegalStateException(
          "the routing store in DynamoDB holds records of format "
              + format
              + "; this version of Switchboard reads format "
              + RouterRecordCodec.FORMAT
              + " only");
    }
    return new State(RouterRecordCodec.counters(Store.bytes(item, "c")), Store.num(item, "rl"));
  }

  /** Strongly consistent queries of each partition, then the state item. */
  @Override
  public RouterSnapshot load() {
    return read(
        () -> {
          State state = state(store.get(statePartition(workspace), STATE));
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
              records('a', RouterRecordCodec::agent),
              records('c', RouterRecordCodec::contact),
              records('r', RouterRecordCodec::reservation),
              openIntervals());
        });
  }

  private <T> List<T> records(char kind, Function<byte[], T> decode) {
    List<T> out = new ArrayList<>();
    for (int s = 0; s < SHARDS; s++) {
      String pk = "rt#" + workspace + "#" + kind + "#" + s;
      query(
              b ->
                  b.keyConditionExpression("pk = :p")
                      .expressionAttributeValues(Map.of(":p", Store.s(pk))))
          .forEach(item -> out.add(decode.apply(Store.bytes(item, "v"))));
    }
    return out;
  }

  /**
   * The cumulative figures and the latest interval's; the closed ones stay ({@link #intervals}).
   */
  private List<StoredInterval> openIntervals() {
    String pk = intervalPartition(workspace);
    List<StoredInterval> out = new ArrayList<>();
    query(
            b ->
                b.keyConditionExpression("pk = :p AND begins_with(sk, :t)")
                    .expressionAttributeValues(
                        Map.of(
                            ":p",
                            Store.s(pk),
                            ":t",
                            Store.s(StoredInterval.startKey(StoredInterval.TOTAL)))))
        .forEach(item -> out.add(RouterRecordCodec.interval(Store.bytes(item, "v"))));
    QueryResponse last =
        store.call(
            d ->
                d.query(
                    b ->
                        b.tableName(store.table())
                            .consistentRead(true)
                            .keyConditionExpression("pk = :p AND sk < :t")
                            .expressionAttributeValues(
                                Map.of(
                                    ":p",
                                    Store.s(pk),
                                    ":t",
                                    Store.s(StoredInterval.startKey(StoredInterval.TOTAL))))
                            .scanIndexForward(false)
                            .limit(1)));
    if (!last.items().isEmpty()) {
      String sk = Store.text(last.items().get(0), "sk");
      String start = sk.substring(0, sk.indexOf('/') + 1);
      query(
              b ->
                  b.keyConditionExpression("pk = :p AND begins_with(sk, :s)")
                      .expressionAttributeValues(Map.of(":p", Store.s(pk), ":s", Store.s(start))))
          .forEach(item -> out.add(RouterRecordCodec.interval(Store.bytes(item, "v"))));
    }
    return out;
  }

  /** Every item a query finds, page after page, read strongly consistent. */
  private List<Map<String, AttributeValue>> query(
      java.util.function.Consumer<QueryRequest.Builder> q) {
    List<Map<String, AttributeValue>> out = new ArrayList<>();
    Map<String, AttributeValue> start = null;
    do {
      Map<String, AttributeValue> from = start;
      QueryResponse r =
          store.call(
              d ->
                  d.query(
                      b -> {
                        b.tableName(store.table()).consistentRead(true);
                        q.accept(b);
                        if (from != null) {
                          b.exclusiveStartKey(from);
                        }
                      }));
      out.addAll(r.items());
      start =
          r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
    } while (start != null);
    return out;
  }

  /**
   * One strongly consistent batch read by key, a key per interval start in the range, after waiting
   * for what was appended before to be stored.
   */
  @Override
  public List<StoredInterval> intervals(
      long from, long to, StoredInterval.Scope scope, String name) {
    appendDurable(List.of()).await();
    List<String> keys = StoredInterval.keys(from, to, scope, name);
    String pk = intervalPartition(workspace);
    return read(
        () -> {
          List<StoredInterval> out = new ArrayList<>();
          for (int i = 0; i < keys.size(); i += 100) {
            List<Map<String, AttributeValue>> wanted = new ArrayList<>();
            for (String k : keys.subList(i, Math.min(keys.size(), i + 100))) {
              wanted.add(Store.key(pk, k));
            }
            while (!wanted.isEmpty()) {
              List<Map<String, AttributeValue>> ask = wanted;
              var r =
                  store.call(
                      d ->
                          d.batchGetItem(
                              b ->
                                  b.requestItems(
                                      Map.of(
                                          store.table(),
                                          KeysAndAttributes.builder()
                                              .keys(ask)
                                              .consistentRead(true)
                                              .build()))));
              r.responses()
                  .getOrDefault(store.table(), List.of())
                  .forEach(item -> out.add(RouterRecordCodec.interval(Store.bytes(item, "v"))));
              KeysAndAttributes left = r.unprocessedKeys().get(store.table());
              wanted = left == null ? List.of() : left.keys();
            }
          }
          out.sort(Comparator.comparingLong(StoredInterval::start));
          return out;
        });
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
   * reservation counter comes within half a block of the reserved limit, reserves the next block (a
   * fenced transaction) and waits until it is stored.
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
      transact("reserving reservation ids", List.of(setLimit(limit)));
    } catch (RuntimeException e) {
      fail(describe(e), e);
      throw RoutingException.unavailable(describe(e), e);
    }
    reservationLimit = limit;
  }

  private TransactWriteItem setLimit(long limit) {
    return TransactWriteItem.builder()
        .update(
            u ->
                u.tableName(store.table())
                    .key(Store.key(statePartition(workspace), STATE))
                    .updateExpression("SET rl = :l")
                    .expressionAttributeValues(Map.of(":l", Store.n(limit))))
        .build();
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
    }
  }

  /**
   * The writes of one transaction: the last entry per record, the last counters, and the batches
   * whose tickets complete when it commits.
   */
  private static final class Chunk {
    final Map<String, RouterEntry> last = new LinkedHashMap<>();
    @Nullable RouterCounters counters;
    long dropBefore = Long.MIN_VALUE;
    final List<Pending> batches = new ArrayList<>();

    int writes() {
      return last.size() + (counters == null ? 0 : 1);
    }
  }

  private static @Nullable String recordKey(RouterEntry e) {
    return switch (e) {
      case RouterEntry.AgentPut put -> "a" + put.agent().id();
      case RouterEntry.AgentDelete d -> "a" + d.id();
      case RouterEntry.ContactPut put -> "c" + put.contact().id();
      case RouterEntry.ContactDelete d -> "c" + d.id();
      case RouterEntry.ReservationPut put -> "r" + put.reservation().id();
      case RouterEntry.ReservationDelete d -> "r" + d.id();
      case RouterEntry.IntervalPut put -> "i" + put.interval().key();
      case RouterEntry.IntervalsDropped d -> null;
      case RouterEntry.CountersPut put -> null;
    };
  }

  /** Writes a group of batches, whole batches per transaction, in order. */
  private void write(List<Pending> group) {
    Chunk chunk = new Chunk();
    for (Pending p : group) {
      int fresh = 0;
      for (RouterEntry e : p.entries()) {
        String k = recordKey(e);
        if (k != null && !chunk.last.containsKey(k)) {
          fresh++;
        }
      }
      if (!chunk.batches.isEmpty() && chunk.writes() + fresh + 1 > MAX_WRITES) {
        commit(chunk);
        chunk = new Chunk();
      }
      for (RouterEntry e : p.entries()) {
        if (chunk.writes() + 1 > MAX_WRITES) {
          commit(chunk); // one batch larger than a transaction: written over several
          chunk = new Chunk();
        }
        switch (e) {
          case RouterEntry.IntervalsDropped d ->
              chunk.dropBefore = Math.max(chunk.dropBefore, d.before());
          case RouterEntry.CountersPut put -> chunk.counters = put.counters();
          default -> {
            chunk.last.put(Objects.requireNonNull(recordKey(e)), e);
          }
        }
      }
      chunk.batches.add(p);
    }
    commit(chunk);
  }

  private void commit(Chunk chunk) {
    List<TransactWriteItem> writes = new ArrayList<>();
    for (RouterEntry e : chunk.last.values()) {
      writes.add(itemWrite(e));
    }
    RouterCounters counters = chunk.counters;
    if (counters != null) {
      writes.add(
          TransactWriteItem.builder()
              .update(
                  u ->
                      u.tableName(store.table())
                          .key(Store.key(statePartition(workspace), STATE))
                          .updateExpression("SET c = :c")
                          .expressionAttributeValues(
                              Map.of(":c", bytes(RouterRecordCodec.encode(counters)))))
              .build());
    }
    if (!writes.isEmpty()) {
      transact("storing routing changes", writes);
    }
    if (counters != null) {
      storedReservationSeq = counters.reservationSeq();
    }
    if (chunk.dropBefore != Long.MIN_VALUE) {
      dropIntervals(chunk.dropBefore);
    }
    chunk.batches.forEach(p -> p.done.complete(null));
  }

  /** Deletes the intervals that start before {@code before}, in fenced transactions. */
  private void dropIntervals(long before) {
    String pk = intervalPartition(workspace);
    List<Map<String, AttributeValue>> old =
        query(
            b ->
                b.keyConditionExpression("pk = :p AND sk < :k")
                    .expressionAttributeValues(
                        Map.of(":p", Store.s(pk), ":k", Store.s(StoredInterval.startKey(before))))
                    .projectionExpression("pk, sk"));
    deleteAll("dropping routing statistics", old);
  }

  private void deleteAll(String what, List<Map<String, AttributeValue>> keys) {
    for (int i = 0; i < keys.size(); i += MAX_WRITES) {
      List<TransactWriteItem> deletes = new ArrayList<>();
      for (Map<String, AttributeValue> k : keys.subList(i, Math.min(keys.size(), i + MAX_WRITES))) {
        Map<String, AttributeValue> key = Map.of("pk", k.get("pk"), "sk", k.get("sk"));
        deletes.add(
            TransactWriteItem.builder().delete(d -> d.tableName(store.table()).key(key)).build());
      }
      transact(what, deletes);
    }
  }

  private TransactWriteItem itemWrite(RouterEntry e) {
    return switch (e) {
      case RouterEntry.AgentPut p -> put('a', p.agent().id(), RouterRecordCodec.encode(p.agent()));
      case RouterEntry.AgentDelete d -> delete('a', d.id());
      case RouterEntry.ContactPut p ->
          put('c', p.contact().id(), RouterRecordCodec.encode(p.contact()));
      case RouterEntry.ContactDelete d -> delete('c', d.id());
      case RouterEntry.ReservationPut p ->
          put('r', p.reservation().id(), RouterRecordCodec.encode(p.reservation()));
      case RouterEntry.ReservationDelete d -> delete('r', d.id());
      case RouterEntry.IntervalPut p -> {
        Map<String, AttributeValue> item =
            new HashMap<>(Store.key(intervalPartition(workspace), p.interval().key()));
        item.put("v", bytes(RouterRecordCodec.encode(p.interval())));
        yield TransactWriteItem.builder().put(b -> b.tableName(store.table()).item(item)).build();
      }
      case RouterEntry.IntervalsDropped d -> throw new IllegalArgumentException("not an item");
      case RouterEntry.CountersPut c -> throw new IllegalArgumentException("not an item");
    };
  }

  private TransactWriteItem put(char kind, String id, byte[] value) {
    Map<String, AttributeValue> item =
        new HashMap<>(Store.key(recordPartition(workspace, kind, id), id));
    item.put("v", bytes(value));
    return TransactWriteItem.builder().put(b -> b.tableName(store.table()).item(item)).build();
  }

  private TransactWriteItem delete(char kind, String id) {
    return TransactWriteItem.builder()
        .delete(
            b ->
                b.tableName(store.table()).key(Store.key(recordPartition(workspace, kind, id), id)))
        .build();
  }

  private static AttributeValue bytes(byte[] value) {
    return AttributeValue.fromB(SdkBytes.fromByteArray(value));
  }

  // ---- transactions ------------------------------------------------------------------------

  /**
   * One transaction of {@code writes} behind the fence. A cancelled transaction is judged by the
   * lease as it now reads: another epoch means this journal was deposed ({@link Fenced}); the same
   * epoch means a conflict with a concurrent request, retried a few times with backoff.
   */
  private void transact(String what, List<TransactWriteItem> writes) {
    transact(store, lease, epoch, what, writes);
  }

  static void transact(
      Store store, RouterLease lease, long epoch, String what, List<TransactWriteItem> writes) {
    List<TransactWriteItem> all = new ArrayList<>(writes.size() + 1);
    all.add(lease.fence(epoch));
    all.addAll(writes);
    for (int attempt = 0; ; attempt++) {
      try {
        store.call(d -> d.transactWriteItems(b -> b.transactItems(all)));
        return;
      } catch (TransactionCanceledException cancelled) {
        RouterLease.Row now = lease.read();
        if (now == null || now.epoch() != epoch) {
          throw new Fenced(RouterLease.fencedMessage(epoch, now));
        }
        if (attempt >= CONFLICT_RETRIES) {
          throw RoutingException.unavailable(
              what
                  + " in DynamoDB failed: the transaction was cancelled "
                  + (attempt + 1)
                  + " times ("
                  + cancelled.getMessage()
                  + ")",
              cancelled);
        }
      } catch (QueueException e) {
        if (attempt >= CONFLICT_RETRIES) {
          throw RoutingException.unavailable(what + " in DynamoDB failed: " + e.getMessage(), e);
        }
      }
      backoff(attempt);
    }
  }

  private static void backoff(int attempt) {
    try {
      Thread.sleep((long) (10 * Math.pow(2, attempt) * (0.5 + Math.random())));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw RoutingException.unavailable("interrupted while storing routing changes", e);
    }
  }

  /** A read; DynamoDB's failures become UNAVAILABLE routing errors. */
  private static <T> T read(java.util.function.Supplier<T> read) {
    try {
      return read.get();
    } catch (QueueException e) {
      throw RoutingException.unavailable(String.valueOf(e.getMessage()), e);
    }
  }

  /**
   * Deletes the stored router state of workspace {@code workspace} (records, intervals and state
   * item) in transactions fenced by lease epoch {@code epoch}; its journal must be closed.
   */
  static void drop(Store store, long epoch, String workspace) {
    RouterLease lease = new RouterLease(store);
    List<Map<String, AttributeValue>> keys = new ArrayList<>();
    List<String> partitions = new ArrayList<>(recordPartitions(workspace));
    partitions.add(statePartition(workspace));
    read(
        () -> {
          for (String pk : partitions) {
            Map<String, AttributeValue> start = null;
            do {
              Map<String, AttributeValue> from = start;
              QueryResponse r =
                  store.call(
                      d ->
                          d.query(
                              b -> {
                                b.tableName(store.table())
                                    .consistentRead(true)
                                    .keyConditionExpression("pk = :p")
                                    .expressionAttributeValues(Map.of(":p", Store.s(pk)))
                                    .projectionExpression("pk, sk");
                                if (from != null) {
                                  b.exclusiveStartKey(from);
                                }
                              }));
              keys.addAll(r.items());
              start =
                  r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty()
                      ? r.lastEvaluatedKey()
                      : null;
            } while (start != null);
          }
          return null;
        });
    try {
      for (int i = 0; i < keys.size(); i += MAX_WRITES) {
        List<TransactWriteItem> deletes = new ArrayList<>();
        for (Map<String, AttributeValue> k :
            keys.subList(i, Math.min(keys.size(), i + MAX_WRITES))) {
          Map<String, AttributeValue> key = Map.of("pk", k.get("pk"), "sk", k.get("sk"));
          deletes.add(
              TransactWriteItem.builder().delete(d -> d.tableName(store.table()).key(key)).build());
        }
        transact(
            store,
            lease,
            epoch,
            "deleting the routing store of workspace '" + workspace + "'",
            deletes);
      }
    } catch (Fenced e) {
      throw RoutingException.unavailable(String.valueOf(e.getMessage()), null);
    }
  }

  // ---- failure and close -------------------------------------------------------------------

  private static String describe(RuntimeException e) {
    if (e instanceof Fenced || e instanceof RoutingException) {
      return String.valueOf(e.getMessage());
    }
    return "the routing store failed: " + e.getMessage();
  }

  private void fail(String message, @Nullable Throwable cause) {
    List<Pending> unfinished = new ArrayList<>();
    boolean first;
    String why;
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
   * reservation ids of the reserved block. Close the router first. Waits at most 10 s for the
   * writer; batches not stored by then fail their tickets.
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
      try {
        transact("closing the routing store", List.of(setLimit(storedReservationSeq)));
      } catch (RuntimeException e) {
        // the next leader starts above the reserved limit instead: a gap in the ids, nothing worse
      }
    }
    fail("the routing store is closed", null);
  }

  /**
   * Stops without writing what is queued, as a process that dies would (tests of a leader's death):
   * what the writer is storing right now may still be stored, nothing after it is.
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

  /** The workspace whose state a server opens as {@code default}. */
  static final String DEFAULT = Workspaces.DEFAULT;
}
