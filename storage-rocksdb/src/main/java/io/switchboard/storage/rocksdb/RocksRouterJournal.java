package io.switchboard.storage.rocksdb;

import io.switchboard.internal.Bytes;
import io.switchboard.queue.QueueException;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.spi.RouterCounters;
import io.switchboard.routing.spi.RouterEntry;
import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.routing.spi.RouterRecordCodec;
import io.switchboard.routing.spi.RouterSnapshot;
import io.switchboard.routing.spi.StoredAgent;
import io.switchboard.routing.spi.StoredContact;
import io.switchboard.routing.spi.StoredInterval;
import io.switchboard.routing.spi.StoredReservation;
import io.switchboard.routing.spi.WorkspaceCodec;
import io.switchboard.routing.spi.WorkspaceStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WALRecoveryMode;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * A {@link RouterJournal} in its own RocksDB store, by default the {@code routing} directory inside
 * the server's data directory (the queue store and the router store are independent, so each has
 * its own log and neither waits for the other's syncs). Keys are the record kind and id: {@code
 * a:<agent>}, {@code c:<contact>}, {@code r:<reservation>}, the statistics intervals {@code
 * i:<start>/<scope>/<name>} ({@link StoredInterval#key()}: by start first, so the retention deletes
 * one key range, and a query reads one key per interval of its range), plus {@code counters} and
 * {@code format}; the server's store also keeps the workspaces' definitions, {@code w:<workspace>}
 * ({@link #workspaceStore()}). One writer thread writes each appended batch whole and in order, in
 * one RocksDB write batch per group of appends, and durable appends share one fsync (group commit),
 * as in {@link RocksJournal}. Values are in core's {@link RouterRecordCodec} format, shared with
 * the PostgreSQL router store.
 */
public final class RocksRouterJournal implements RouterJournal {

  private static final System.Logger LOG = System.getLogger(RocksRouterJournal.class.getName());
  private static final byte[] FORMAT_KEY = bytes("format");
  private static final byte[] COUNTERS_KEY = bytes("counters");

  private final Path dir;
  private final RocksDB db;
  private final Options options;
  private final GroupCommitWriter<RouterEntry> writer;
  private boolean closed;

  private RocksRouterJournal(
      Path dir, RocksDB db, Options options, Durability durability, DiskSpace space) {
    this.dir = dir;
    this.db = db;
    this.options = options;
    this.writer =
        new GroupCommitWriter<>(
            "routing-journal",
            db,
            db::write,
            durability,
            RocksRouterJournal::apply,
            GroupCommitWriter.AWAIT_TIMEOUT,
            space::fullNow);
  }

  /**
   * Opens (creating if needed) the router store in {@code dir}.
   *
   * @throws IllegalStateException when another process holds the directory, it holds a store of
   *     another format, or it cannot be opened; the message says which
   */
  public static RocksRouterJournal open(Path dir, Durability durability) {
    StoreFiles.createPrivateDirectory(dir, "routing directory");
    List<String> walWarnings = WalCheck.beforeOpen(dir);
    Options options =
        new Options()
            .setCreateIfMissing(true)
            .setParanoidChecks(true)
            .setWalRecoveryMode(WALRecoveryMode.PointInTimeRecovery)
            .setAvoidFlushDuringRecovery(true) // opens with a log larger than the free space
            .setKeepLogFileNum(4);
    DiskSpace space = DiskSpace.of(dir);
    space.apply(options);
    RocksDB db;
    try {
      db = RocksDB.open(options, dir.toString());
    } catch (RocksDBException e) {
      options.close();
      String why = String.valueOf(e.getMessage());
      if (StoreDamagedException.isDamage(e)) {
        throw new StoreDamagedException(WalCheck.dataDirOf(dir), dir, why, e);
      }
      if (why.contains("LOCK") || why.contains("Resource temporarily unavailable")) {
        throw new IllegalStateException(
            "routing directory " + dir + " is in use by another Switchboard process (" + why + ")",
            e);
      }
      throw new IllegalStateException("cannot open routing directory " + dir + ": " + why, e);
    }
    RocksRouterJournal journal = new RocksRouterJournal(dir, db, options, durability, space);
    journal.checkFormat();
    for (String w : walWarnings) {
      LOG.log(System.Logger.Level.WARNING, w);
    }
    return journal;
  }

  /**
   * What keeps the router store from writing right now, if anything ({@code "store cannot write"},
   * {@code "store failed"}): for {@code /health}.
   */
  public java.util.Optional<String> problem() {
    return writer.problem();
  }

  private RuntimeException damaged(RocksDBException e) {
    if (StoreDamagedException.isDamage(e)) {
      return new StoreDamagedException(WalCheck.dataDirOf(dir), dir, e.getMessage(), e);
    }
    return new IllegalStateException("cannot read routing directory " + dir + ": " + e, e);
  }

  private void checkFormat() {
    try {
      byte[] format;
      try (ReadOptions verified = new ReadOptions().setVerifyChecksums(true)) {
        format = db.get(verified, FORMAT_KEY);
      }
      if (format == null) {
        db.put(FORMAT_KEY, new Bytes.Writer(4).i(RouterRecordCodec.FORMAT).toArray());
        return;
      }
      int found = new Bytes.Reader(format).i();
      if (found != RouterRecordCodec.FORMAT) {
        close();
        throw new IllegalStateException(
            "routing directory "
                + dir
                + " holds a store of format "
                + found
                + "; this version of Switchboard reads format "
                + RouterRecordCodec.FORMAT
                + " only");
      }
    } catch (RocksDBException e) {
      close();
      throw damaged(e);
    }
  }

  @Override
  public RouterSnapshot load() {
    RouterCounters counters = RouterCounters.zero();
    List<StoredAgent> agents = new ArrayList<>();
    List<StoredContact> contacts = new ArrayList<>();
    List<StoredReservation> reservations = new ArrayList<>();
    List<StoredInterval> intervals;
    try (ReadOptions verified = new ReadOptions().setVerifyChecksums(true);
        RocksIterator it = db.newIterator(verified)) {
      it.seekToFirst();
      while (it.isValid()) {
        byte[] key = it.key();
        if (key.length > 2 && key[1] == ':') {
          switch (key[0]) {
            case 'a' -> agents.add(RouterRecordCodec.agent(it.value()));
            case 'c' -> contacts.add(RouterRecordCodec.contact(it.value()));
            case 'r' -> reservations.add(RouterRecordCodec.reservation(it.value()));
            case 'i' -> {
              // the intervals are read apart (the open one only): skip past them all
              it.seek(bytes("i;"));
              continue;
            }
            case 'w' -> {} // a workspace definition: workspaceStore()'s
            default -> throw corrupt(key);
          }
        } else if (java.util.Arrays.equals(key, COUNTERS_KEY)) {
          counters = RouterRecordCodec.counters(it.value());
        } else if (!java.util.Arrays.equals(key, FORMAT_KEY)) {
          throw corrupt(key);
        }
        it.next();
      }
      check(it); // a scan that stopped on damage must not look like the end
      intervals = openIntervals(it);
    }
    return new RouterSnapshot(counters, agents, contacts, reservations, intervals);
  }

  /**
   * The cumulative figures ({@code i:total/...}) and the latest interval's ({@code i:<start>/...},
   * the greatest start): the closed intervals before it stay in the store.
   */
  private List<StoredInterval> openIntervals(RocksIterator it) {
    List<StoredInterval> out = new ArrayList<>();
    // hex digits sort before 'g', "total" after it
    it.seekForPrev(bytes("i:g"));
    if (it.isValid()) {
      String key = new String(it.key(), StandardCharsets.UTF_8);
      if (key.startsWith("i:") && !key.startsWith("i:total/")) {
        scan(it, key.substring(0, 2 + 16 + 1), out);
      }
    }
    check(it);
    scan(it, "i:" + StoredInterval.startKey(StoredInterval.TOTAL) + "/", out);
    return out;
  }

  /** Adds every interval whose key starts with {@code prefix}. */
  private void scan(RocksIterator it, String prefix, List<StoredInterval> out) {
    byte[] p = bytes(prefix);
    for (it.seek(p); it.isValid() && startsWith(it.key(), p); it.next()) {
      out.add(RouterRecordCodec.interval(it.value()));
    }
    check(it);
  }

  private static boolean startsWith(byte[] key, byte[] prefix) {
    return key.length >= prefix.length
        && java.util.Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
  }

  private void check(RocksIterator it) {
    try {
      it.status();
    } catch (RocksDBException e) {
      throw damaged(e);
    }
  }

  /**
   * One point read per interval start in the range ({@code i:<start>/<scope>/<name>}), after
   * waiting for what was appended before to be written.
   */
  @Override
  public List<StoredInterval> intervals(
      long from, long to, StoredInterval.Scope scope, String name) {
    appendDurable(List.of()).await();
    List<String> keys = StoredInterval.keys(from, to, scope, name);
    List<byte[]> raw = new ArrayList<>(keys.size());
    for (String k : keys) {
      raw.add(key('i', k));
    }
    List<StoredInterval> out = new ArrayList<>();
    try (ReadOptions verified = new ReadOptions().setVerifyChecksums(true)) {
      for (byte[] value : db.multiGetAsList(verified, raw)) {
        if (value != null) {
          out.add(RouterRecordCodec.interval(value));
        }
      }
    } catch (RocksDBException e) {
      if (StoreDamagedException.isDamage(e)) {
        throw damaged(e);
      }
      throw RoutingException.unavailable(
          "routing store " + dir + " could not read statistics: " + e.getMessage(), e);
    }
    return out;
  }

  /**
   * The workspaces' definitions kept in this store under {@code w:<workspace>}, each change written
   * and synced before the call returns ({@link WorkspaceCodec}).
   */
  public WorkspaceStore workspaceStore() {
    return new WorkspaceStore() {
      @Override
      public List<WorkspaceDefinition> load() {
        List<WorkspaceDefinition> out = new ArrayList<>();
        try (ReadOptions verified = new ReadOptions().setVerifyChecksums(true);
            RocksIterator it = db.newIterator(verified)) {
          byte[] prefix = bytes("w:");
          for (it.seek(prefix); it.isValid(); it.next()) {
            byte[] key = it.key();
            if (key.length < 2 || key[0] != 'w' || key[1] != ':') {
              break;
            }
            out.add(WorkspaceCodec.decode(it.value()));
          }
          try {
            it.status();
          } catch (RocksDBException e) {
            throw damaged(e);
          }
        }
        return out;
      }

      @Override
      public void put(WorkspaceDefinition definition) {
        write(key('w', definition.name()), WorkspaceCodec.encode(definition));
      }

      @Override
      public void delete(String name) {
        write(key('w', name), null);
      }
    };
  }

  private void write(byte[] key, byte @Nullable [] value) {
    try (WriteOptions sync = new WriteOptions().setSync(true)) {
      if (value == null) {
        db.delete(sync, key);
      } else {
        db.put(sync, key, value);
      }
    } catch (RocksDBException e) {
      throw RoutingException.unavailable(
          "routing store " + dir + " could not store a workspace: " + e.getMessage(), e);
    }
  }

  private IllegalStateException corrupt(byte[] key) {
    return new IllegalStateException(
        "routing directory "
            + dir
            + " holds an unknown key '"
            + new String(key, StandardCharsets.UTF_8)
            + "'");
  }

  private static void apply(WriteBatch batch, RouterEntry entry) throws RocksDBException {
    switch (entry) {
      case RouterEntry.AgentPut p ->
          batch.put(key('a', p.agent().id()), RouterRecordCodec.encode(p.agent()));
      case RouterEntry.AgentDelete d -> batch.delete(key('a', d.id()));
      case RouterEntry.ContactPut p ->
          batch.put(key('c', p.contact().id()), RouterRecordCodec.encode(p.contact()));
      case RouterEntry.ContactDelete d -> batch.delete(key('c', d.id()));
      case RouterEntry.ReservationPut p ->
          batch.put(key('r', p.reservation().id()), RouterRecordCodec.encode(p.reservation()));
      case RouterEntry.ReservationDelete d -> batch.delete(key('r', d.id()));
      case RouterEntry.IntervalPut p ->
          batch.put(key('i', p.interval().key()), RouterRecordCodec.encode(p.interval()));
      case RouterEntry.IntervalsDropped d -> {
        if (d.before() > 0) { // starts sort by key from the epoch on
          batch.deleteRange(
              key('i', StoredInterval.startKey(0)), key('i', StoredInterval.startKey(d.before())));
        }
      }
      case RouterEntry.CountersPut c ->
          batch.put(COUNTERS_KEY, RouterRecordCodec.encode(c.counters()));
    }
  }

  private static byte[] key(char kind, String id) {
    return bytes(kind + ":" + id);
  }

  @Override
  public void append(List<RouterEntry> entries) {
    try {
      writer.append(entries, false);
    } catch (QueueException e) {
      throw unavailable(e);
    }
  }

  @Override
  public Ticket appendDurable(List<RouterEntry> entries) {
    io.switchboard.queue.spi.Journal.Ticket ticket;
    try {
      ticket = writer.append(entries, true);
    } catch (QueueException e) {
      throw unavailable(e);
    }
    return () -> {
      try {
        ticket.await();
      } catch (QueueException e) {
        throw unavailable(e);
      }
    };
  }

  private static RoutingException unavailable(QueueException e) {
    return RoutingException.unavailable("routing store: " + e.getMessage(), e);
  }

  /** Writes what is queued, flushes the memtables (a fast next open), and closes the store. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    writer.close();
    try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
      db.flush(flush);
    } catch (RocksDBException e) {
      // closing anyway: the log holds everything and the next open replays it
    }
    db.close();
    options.close();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
