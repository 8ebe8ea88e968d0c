package io.switchboard.storage.rocksdb;

import io.switchboard.internal.Bytes;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Order;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.spi.Journal;
import io.switchboard.queue.spi.JournalEntry;
import io.switchboard.queue.spi.MessageRecord;
import io.switchboard.queue.spi.Orders;
import io.switchboard.queue.spi.Place;
import io.switchboard.queue.spi.QueueRules;
import io.switchboard.queue.spi.Snapshot;
import io.switchboard.queue.spi.SystemRecords;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompactRangeOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.SstFileManager;
import org.rocksdb.TablePropertiesCollectorFactory;
import org.rocksdb.WALRecoveryMode;
import org.rocksdb.WriteBatch;

/**
 * The embedded durable journal: RocksDB in the data directory. Column families hold queues, message
 * bodies, message states (so a receive rewrites 60 bytes, not the body), deduplication entries,
 * history, redrive tasks and their progress. One writer thread applies appended entries in order,
 * many appends to one write batch, with one fsync for all the sends in it (group commit).
 *
 * <p>Opening refuses a directory that another process holds (RocksDB's lock file) and a store of
 * another format version, each with a message that says so.
 */
public final class RocksJournal implements Journal {

  static {
    RocksDB.loadLibrary();
  }

  private static final System.Logger LOG = System.getLogger(RocksJournal.class.getName());

  private static final byte[] FORMAT_KEY = bytes("format");
  private static final byte[] ID_PREFIX_KEY = bytes("idPrefix");
  private static final byte[] SEQUENCE_KEY = bytes("sequence");
  private static final List<String> FAMILIES =
      List.of("queues", "bodies", "states", "dedup", "history", "tasks", "progress");

  /** The order index's family, present only while it is maintained. */
  static final String ORDERS = "orders";

  /**
   * In the default family while the {@code orders} family is complete, with the value {@link
   * #ORDERS_WITH_COUNTS}: an index marked complete with another value (an empty one, {@code
   * counts-1} to {@code counts-4}) was built before its counters were reliable, before it kept the
   * attribute partitions' lines and counts, before it kept the delayed messages' delivery order
   * ({@code D}), before it kept grouped queues' available messages in {@code A} (their browse
   * order), or before it kept standard queues' tenant lines and counts ({@code F}), and is built
   * again.
   */
  static final byte[] ORDERS_COMPLETE_KEY = bytes("ordersComplete");

  /**
   * The value of {@link #ORDERS_COMPLETE_KEY}: the index, each queue's counts, its attribute
   * partitions' lines and counts, its delayed messages' delivery order, grouped queues' {@code A}
   * keys and standard queues' tenant lines and counts ({@code F}) are complete.
   */
  static final byte[] ORDERS_WITH_COUNTS = bytes("counts-5");

  private static final byte[] EMPTY = new byte[0];

  private final Path dir;
  private final RocksDB db;
  private final DBOptions dbOptions;
  private final ColumnFamilyOptions cfOptions;
  private final List<ColumnFamilyHandle> handles;
  private final Map<String, ColumnFamilyHandle> cf = new HashMap<>();
  private final GroupCommitWriter<JournalEntry> writer;
  private final List<QueueScan> openScans = new ArrayList<>();
  private final List<String> recoveryWarnings = new ArrayList<>();
  private final ReadOptions verified = new ReadOptions().setVerifyChecksums(true);
  private final java.util.concurrent.atomic.AtomicBoolean closed =
      new java.util.concurrent.atomic.AtomicBoolean();
  private final Object recordsLock = new Object();
  private final RocksSystemRecords records;
  private final DiskSpace space;
  private final @Nullable SstFileManager sstFiles;

  private final OrderIndex orderIndex;

  /** The {@code orders} family while the index is maintained, else null. */
  private @Nullable ColumnFamilyHandle orders;

  private final RocksOrders ordersReader = new RocksOrders();

  /** The most the store may take on disk before sends are refused ({@link #limitDisk}). */
  private volatile long maxDisk = Long.MAX_VALUE;

  /** What the store takes on disk now, in bytes ({@link #storeBytes}; tests inject sizes). */
  private volatile java.util.function.LongSupplier storeSize = new StoreSize();

  private RocksJournal(
      Path dir,
      DiskSpace space,
      @Nullable SstFileManager sstFiles,
      RocksDB db,
      DBOptions dbOptions,
      ColumnFamilyOptions cfOptions,
      List<ColumnFamilyHandle> handles,
      Durability durability,
      java.util.function.Function<RocksDB, GroupCommitWriter.Sink> sink,
      OrderIndex orderIndex) {
    this.dir = dir;
    this.space = space;
    this.sstFiles = sstFiles;
    this.orderIndex = orderIndex;
    this.db = db;
    this.dbOptions = dbOptions;
    this.cfOptions = cfOptions;
    this.handles = handles;
    this.records = new RocksSystemRecords(db, recordsLock, closed::get);
    for (int i = 0; i < FAMILIES.size(); i++) {
      cf.put(FAMILIES.get(i), handles.get(i + 1));
    }
    if (handles.size() > FAMILIES.size() + 1) {
      this.orders = handles.get(FAMILIES.size() + 1);
    }
    this.writer =
        new GroupCommitWriter<>(
            "journal",
            db,
            sink.apply(db),
            durability,
            this::apply,
            GroupCommitWriter.AWAIT_TIMEOUT,
            space::fullNow);
  }

  /**
   * Opens (creating if needed) the store in {@code dir}. A new directory is made readable by its
   * owner only (0700, where the file system has POSIX permissions).
   *
   * <p>Checksums are verified on recovery: RocksDB's paranoid checks at open, and every record read
   * by {@link #load} with its checksum verified and each scan's status checked. A damaged store is
   * refused with a {@link StoreDamagedException} that names the damaged file (when RocksDB names
   * it) and the way out. A write-ahead log that ends in an incomplete record (the write a crash
   * interrupted) is recovered up to that record, and what was dropped is logged ({@link
   * #recoveryWarnings}).
   *
   * @throws IllegalStateException when another process holds the directory, or it holds a store of
   *     another format, or it cannot be opened; the message says which
   * @throws StoreDamagedException when the store is damaged
   */
  public static RocksJournal open(Path dir, Durability durability) {
    return open(dir, durability, OrderIndex.NONE);
  }

  /**
   * As {@link #open(Path, Durability)}, keeping the order index of every waiting message or not
   * ({@link OrderIndex}; docs/design.md, "A backlog bigger than memory"). Opened with {@link
   * OrderIndex#MAINTAINED}, a store without a complete index builds it first (one pass over its
   * messages); opened with {@link OrderIndex#NONE}, a store with one drops it.
   */
  public static RocksJournal open(Path dir, Durability durability, OrderIndex orderIndex) {
    return open(dir, durability, db -> db::write, orderIndex);
  }

  /** As {@link #open(Path, Durability)}, writing through {@code sink} (tests inject faults). */
  static RocksJournal open(
      Path dir,
      Durability durability,
      java.util.function.Function<RocksDB, GroupCommitWriter.Sink> sink) {
    return open(dir, durability, sink, OrderIndex.NONE);
  }

  /** As {@link #open(Path, Durability, OrderIndex)}, writing through {@code sink}. */
  static RocksJournal open(
      Path dir,
      Durability durability,
      java.util.function.Function<RocksDB, GroupCommitWriter.Sink> sink,
      OrderIndex orderIndex) {
    return open(dir, durability, sink, orderIndex, DiskSpace::of);
  }

  /** As above, reading free space through {@code spaceOf} (tests set a disk's free space). */
  static RocksJournal open(
      Path dir,
      Durability durability,
      java.util.function.Function<RocksDB, GroupCommitWriter.Sink> sink,
      OrderIndex orderIndex,
      java.util.function.Function<Path, DiskSpace> spaceOf) {
    StoreFiles.createPrivateDirectory(dir, "data directory");
    List<String> walWarnings = WalCheck.beforeOpen(dir);
    DiskSpace space = spaceOf.apply(dir);
    DBOptions dbOptions =
        new DBOptions()
            .setCreateIfMissing(true)
            .setCreateMissingColumnFamilies(true)
            .setParanoidChecks(true)
            .setWalRecoveryMode(WALRecoveryMode.PointInTimeRecovery)
            // recovery replays the log into memtables and does not write it out as table files
            // first: a store whose log is larger than the free space still opens (docs/storage.md,
            // "Disk space")
            .setAvoidFlushDuringRecovery(true)
            .setMaxBackgroundJobs(2)
            .setKeepLogFileNum(4);
    ColumnFamilyOptions cfOptions = columnFamilyOptions();
    SstFileManager sstFiles = space.apply(dbOptions, cfOptions);
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions));
    for (String name : FAMILIES) {
      descriptors.add(new ColumnFamilyDescriptor(bytes(name), cfOptions));
    }
    boolean hadOrders = hasFamily(dir, ORDERS);
    if (hadOrders || orderIndex == OrderIndex.MAINTAINED) {
      descriptors.add(new ColumnFamilyDescriptor(bytes(ORDERS), cfOptions));
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    RocksDB db;
    try {
      db = RocksDB.open(dbOptions, dir.toString(), descriptors, handles);
    } catch (RocksDBException e) {
      dbOptions.close();
      cfOptions.close();
      if (sstFiles != null) {
        sstFiles.close();
      }
      String why = String.valueOf(e.getMessage());
      if (StoreDamagedException.isDamage(e)) {
        throw new StoreDamagedException(WalCheck.dataDirOf(dir), dir, why, e);
      }
      if (why.contains("LOCK") || why.contains("Resource temporarily unavailable")) {
        throw new IllegalStateException(
            "data directory " + dir + " is in use by another Switchboard process (" + why + ")", e);
      }
      throw new IllegalStateException("cannot open data directory " + dir + ": " + why, e);
    }
    RocksJournal journal =
        new RocksJournal(
            dir, space, sstFiles, db, dbOptions, cfOptions, handles, durability, sink, orderIndex);
    journal.checkFormat();
    journal.setUpOrders();
    journal.recoveryWarnings.addAll(walWarnings);
    for (String w : walWarnings) {
      LOG.log(System.Logger.Level.WARNING, w);
    }
    return journal;
  }

  /**
   * What recovery dropped, one sentence each: a write-ahead log's incomplete last record (a write
   * that a crash interrupted). Empty after a clean shutdown. Also logged at open.
   */
  public List<String> recoveryWarnings() {
    return List.copyOf(recoveryWarnings);
  }

  /**
   * What keeps the store from writing right now, if anything: {@code "disk full"} while less than
   * {@link DiskSpace#floor} is free (read anew: {@link DiskSpace#fullNow}; the store then writes
   * nothing), {@code "store cannot write"} while writes fail (an I/O error, a disk filled between
   * the check and the write), {@code "store failed"} once the writer has stopped. For {@code
   * /health}, and the engine refuses changes while there is one.
   */
  @Override
  public Optional<String> problem() {
    Optional<String> writing = writer.problem();
    if (writing.isEmpty() && space.fullNow()) {
      return Optional.of("disk full");
    }
    return writing;
  }

  /**
   * True while the store cannot write or its disk has less than its reserve free ({@link
   * DiskSpace}): then the engine waits for each ack, delete and visibility change to be stored
   * before it answers, so that none is acknowledged and then lost with the memory that held it.
   */
  @Override
  public boolean confirmChanges() {
    return writer.problem().isPresent() || space.low();
  }

  /**
   * A queue writes a key once and deletes it soon after, so its files fill with tombstones that
   * plain leveled compaction drops only when it happens to reach them. The compact-on-deletion
   * collector marks a file for compaction as soon as half of any 10,000 consecutive entries in it
   * are deletions, which keeps the store's size proportional to what is live.
   */
  private static ColumnFamilyOptions columnFamilyOptions() {
    try (Options base = new Options()) {
      base.setCompressionType(CompressionType.LZ4_COMPRESSION);
      base.setTablePropertiesCollectorFactory(
          List.of(
              TablePropertiesCollectorFactory.NewCompactOnDeletionCollectorFactory(
                  10_000, 5_000, 0.5)));
      return new ColumnFamilyOptions(base).setMergeOperator(COUNTS_ADD);
    }
  }

  /**
   * Adds the order index's counters ({@link OrderKeys#COUNTER}). Set on every family, so a store
   * opened by any of this version's tools reads them; process-wide, never closed.
   */
  static final org.rocksdb.UInt64AddOperator COUNTS_ADD = new org.rocksdb.UInt64AddOperator();

  private void checkFormat() {
    try {
      byte[] format = db.get(FORMAT_KEY);
      if (format == null) {
        db.put(FORMAT_KEY, new Bytes.Writer(4).i(Codec.FORMAT).toArray());
        return;
      }
      int found = new Bytes.Reader(format).i();
      if (found != Codec.FORMAT) {
        close();
        throw new IllegalStateException(
            "data directory "
                + dir
                + " holds a store of format "
                + found
                + "; this version of Switchboard reads format "
                + Codec.FORMAT
                + " only");
      }
    } catch (RocksDBException e) {
      close();
      throw damaged(e);
    }
  }

  // ---- load ------------------------------------------------------------------------------

  @Override
  public Snapshot load() {
    try {
      byte[] prefix = db.get(verified, ID_PREFIX_KEY);
      byte[] sequence = db.get(verified, SEQUENCE_KEY);
      Bytes.Strings strings = new Bytes.Strings();
      Map<String, List<JournalEntry.DedupPut>> dedup = new HashMap<>();
      forEach(
          "dedup",
          (k, v) ->
              dedup
                  .computeIfAbsent(Codec.queueOf(k), q -> new ArrayList<>())
                  .add(Codec.dedup(Codec.queueOf(k), Codec.suffixOf(k), v)));
      Map<String, List<JournalEntry.HistoryPut>> history = new HashMap<>();
      forEach(
          "history",
          (k, v) ->
              history
                  .computeIfAbsent(Codec.queueOf(k), q -> new ArrayList<>())
                  .add(Codec.history(Codec.queueOf(k), v)));
      List<JournalEntry.TaskPut> tasks = new ArrayList<>();
      forEach(
          "tasks",
          (k, v) -> {
            try {
              tasks.add(Codec.taskStart(v, db.get(cf.get("progress"), verified, k)));
            } catch (RocksDBException e) {
              throw damaged(e);
            }
          });
      return new Snapshot(
          prefix == null ? OptionalLong.empty() : OptionalLong.of(new Bytes.Reader(prefix).l()),
          sequence == null ? 0 : new Bytes.Reader(sequence).l(),
          () -> new QueueStream(dedup, history, strings),
          estimatedQueues(),
          tasks);
    } catch (RocksDBException e) {
      throw damaged(e);
    }
  }

  /** RocksDB's estimate of the number of queues (keys of {@code queues}), to size maps by. */
  private int estimatedQueues() {
    try {
      long n = db.getLongProperty(cf.get("queues"), "rocksdb.estimate-num-keys");
      return (int) Math.max(0, Math.min(n, Integer.MAX_VALUE - 8));
    } catch (RocksDBException e) {
      return 0; // only a size hint
    }
  }

  /**
   * The queues of a {@link #load}, decoded one at a time as recovery iterates them (docs/design.md,
   * "Recovery streams the queues"): one iterator walks the {@code queues} family in key order and,
   * beside it, recovery's one ordered pass over the order index ({@link IndexPass}) reads what the
   * index says of each standard queue. Nothing of a queue is kept once it is handed out, so a
   * million queues are never decoded at once; equal configurations are decoded once and shared.
   * Both iterators see the store as it was when the stream began and are closed when it ends; every
   * block read has its checksum verified, and a pass that stopped on damage refuses the start like
   * a damaged message file.
   */
  private final class QueueStream implements java.util.Iterator<Snapshot.QueueState> {
    private final Map<String, List<JournalEntry.DedupPut>> dedup;
    private final Map<String, List<JournalEntry.HistoryPut>> history;
    private final Bytes.Strings strings;
    private final Map<java.nio.ByteBuffer, io.switchboard.queue.QueueConfig> configs =
        new HashMap<>();
    private final RocksIterator queues;
    private final @Nullable ReadOptions indexOptions;
    private final @Nullable RocksIterator index;
    private final @Nullable IndexPass pass;

    /** What a standard queue without a key in the index is (most idle queues): shared. */
    private final Snapshot.Indexed empty =
        new Snapshot.Indexed(
            IndexPass.EMPTY.counts(),
            List.of(),
            IndexPass.EMPTY.expiryFloor(),
            IndexPass.EMPTY.lowestSeq());

    private boolean open = true;

    QueueStream(
        Map<String, List<JournalEntry.DedupPut>> dedup,
        Map<String, List<JournalEntry.HistoryPut>> history,
        Bytes.Strings strings) {
      this.dedup = dedup;
      this.history = history;
      this.strings = strings;
      this.queues = db.newIterator(cf.get("queues"), verified);
      ColumnFamilyHandle family = orders;
      if (family == null) {
        indexOptions = null;
        index = null;
        pass = null;
      } else {
        indexOptions = new ReadOptions().setVerifyChecksums(true).setFillCache(false);
        index = db.newIterator(family, indexOptions);
        pass = new IndexPass(index);
      }
      queues.seekToFirst();
      if (!queues.isValid()) {
        finish();
      }
    }

    @Override
    public boolean hasNext() {
      return open;
    }

    @Override
    public Snapshot.QueueState next() {
      if (!open) {
        throw new java.util.NoSuchElementException();
      }
      JournalEntry.QueuePut q;
      Snapshot.@Nullable Indexed indexed;
      try {
        q = Codec.queue(queues.value(), configs);
        indexed = indexed(q.name()); // before the end closes the index's iterator
        queues.next();
        if (!queues.isValid()) {
          finish();
        }
      } catch (RuntimeException e) {
        if (open) {
          finish();
        }
        throw e;
      }
      String name = q.name();
      return new Snapshot.QueueState(
          q,
          messagesOf(name, strings),
          dedup.getOrDefault(name, List.of()),
          history.getOrDefault(name, List.of()),
          indexed);
    }

    /** What the index says of {@code name}; null without the index. */
    private Snapshot.@Nullable Indexed indexed(String name) {
      IndexPass p = pass;
      if (p == null) {
        return null;
      }
      IndexPass.Summary s = p.next(name); // in key order: the queues family's
      return s == IndexPass.EMPTY
          ? empty
          : new Snapshot.Indexed(
              s.counts(), heldOf(name, s.held(), strings), s.expiryFloor(), s.lowestSeq());
    }

    /** Checks both scans (damage must not look like the end) and closes them. */
    private void finish() {
      open = false;
      try {
        checkStatus(queues);
        if (index != null) {
          checkStatus(index);
        }
      } finally {
        queues.close();
        if (index != null) {
          index.close();
        }
        if (indexOptions != null) {
          indexOptions.close();
        }
      }
    }
  }

  /**
   * The records of {@code serials} (messages in flight and delayed), read lazily when recovery
   * iterates them, in batches of one {@code multiGet} each; a serial without both records (left
   * over from an interrupted move) is skipped.
   */
  private Iterable<MessageRecord> heldOf(String queue, long[] serials, Bytes.Strings strings) {
    if (serials.length == 0) {
      return List.of();
    }
    return () ->
        new java.util.Iterator<>() {
          private final java.util.ArrayDeque<MessageRecord> batch = new java.util.ArrayDeque<>();
          private int read;

          @Override
          public boolean hasNext() {
            while (batch.isEmpty() && read < serials.length) {
              readBatch();
            }
            return !batch.isEmpty();
          }

          @Override
          public MessageRecord next() {
            if (!hasNext()) {
              throw new java.util.NoSuchElementException();
            }
            return batch.removeFirst();
          }

          private void readBatch() {
            int n = Math.min(1024, serials.length - read);
            List<ColumnFamilyHandle> families = new ArrayList<>(2 * n);
            List<byte[]> keys = new ArrayList<>(2 * n);
            for (int i = 0; i < n; i++) {
              families.add(cf.get("bodies"));
              keys.add(Codec.messageKey(queue, serials[read + i]));
            }
            for (int i = 0; i < n; i++) {
              families.add(cf.get("states"));
              keys.add(keys.get(i));
            }
            read += n;
            List<byte[]> values;
            try {
              values = db.multiGetAsList(verified, families, keys);
            } catch (RocksDBException e) {
              throw damaged(e);
            }
            for (int i = 0; i < n; i++) {
              byte[] body = values.get(i);
              byte[] state = values.get(n + i);
              if (body != null && state != null) {
                batch.addLast(Codec.message(body, Codec.state(state), strings));
              }
            }
          }
        };
  }

  /** A failed read during recovery: damage (named, with the way out) or another read error. */
  private RuntimeException damaged(RocksDBException e) {
    if (StoreDamagedException.isDamage(e)) {
      return new StoreDamagedException(dir, dir, e.getMessage(), e);
    }
    return new IllegalStateException("cannot read data directory " + dir + ": " + e, e);
  }

  /** Checks a finished scan: a scan that stopped on damage must not look like the end. */
  private void checkStatus(RocksIterator it) {
    try {
      it.status();
    } catch (RocksDBException e) {
      throw damaged(e);
    }
  }

  /**
   * One queue's messages, read lazily: bodies and states share keys and so sort alike, and are
   * joined in one pass over the queue's key range. A state without a body is left over from an
   * interrupted move and is skipped. Reading lazily keeps a million records from sitting in memory
   * beside the million messages the engine makes of them (recovery time is mostly GC otherwise).
   */
  private Iterable<MessageRecord> messagesOf(String queue, Bytes.Strings strings) {
    return () -> new QueueScan(queue, strings, null);
  }

  /** The iterators of one queue's scan; closed when exhausted, or with the journal. */
  private final class QueueScan implements java.util.Iterator<MessageRecord> {
    private final byte[] prefix;
    private final Bytes.Strings strings;
    // The iterators stop at the queue's last key, and read ahead only once they read on in
    // order (RocksDB's own read-ahead, growing from 8 KiB): a fixed read-ahead made every queue's
    // two seeks read megabytes from each table file, an empty queue's too, so a restart with
    // 200,000 queues took minutes.
    private final Slice end;
    private final ReadOptions options;
    private final RocksIterator bodies;
    private final RocksIterator states;
    private @Nullable MessageRecord next;

    /** A scan of the store as it is, or as it was at {@code snapshot} (null: as it is). */
    QueueScan(String queue, Bytes.Strings strings, org.rocksdb.@Nullable Snapshot snapshot) {
      this.prefix = Codec.queuePrefix(queue);
      this.strings = strings;
      this.end = new Slice(Codec.queueEnd(queue));
      this.options =
          new ReadOptions().setVerifyChecksums(true).setFillCache(false).setIterateUpperBound(end);
      if (snapshot != null) {
        options.setSnapshot(snapshot);
      }
      this.bodies = db.newIterator(cf.get("bodies"), options);
      this.states = db.newIterator(cf.get("states"), options);
      synchronized (openScans) {
        openScans.add(this);
      }
      bodies.seek(prefix);
      states.seek(prefix);
      next = advance();
    }

    private @Nullable MessageRecord advance() {
      while (bodies.isValid() && hasPrefix(bodies.key(), prefix)) {
        byte[] key = bodies.key();
        while (states.isValid() && Arrays.compareUnsigned(states.key(), key) < 0) {
          states.next();
        }
        MessageRecord found = null;
        if (states.isValid() && Arrays.equals(states.key(), key)) {
          found = Codec.message(bodies.value(), Codec.state(states.value()), strings);
        }
        bodies.next();
        if (found != null) {
          return found;
        }
      }
      try {
        checkStatus(bodies);
        checkStatus(states);
      } finally {
        close();
      }
      return null;
    }

    @Override
    public boolean hasNext() {
      return next != null;
    }

    @Override
    public MessageRecord next() {
      if (next == null) {
        throw new java.util.NoSuchElementException();
      }
      MessageRecord out = next;
      next = advance();
      return out;
    }

    void close() {
      bodies.close();
      states.close();
      options.close();
      end.close();
      synchronized (openScans) {
        openScans.remove(this);
      }
    }
  }

  /** Whether {@code key} is a message key of the queue whose {@link Codec#queuePrefix} is given. */
  private static boolean hasPrefix(byte[] key, byte[] prefix) {
    return key.length == prefix.length + 8
        && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
  }

  private void forEach(String family, java.util.function.BiConsumer<byte[], byte[]> action) {
    try (RocksIterator it = db.newIterator(cf.get(family), verified)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        action.accept(it.key(), it.value());
      }
      checkStatus(it);
    }
  }

  // ---- append ----------------------------------------------------------------------------

  @Override
  public void append(List<JournalEntry> entries) {
    writer.append(entries, false);
  }

  /**
   * Appends; a send (entries with a {@link JournalEntry.MessagePut}) is refused at once with {@code
   * UNAVAILABLE} while the disk has less than its reserve free ({@link DiskSpace}).
   */
  @Override
  public Ticket appendDurable(List<JournalEntry> entries) {
    for (JournalEntry e : entries) {
      if (e instanceof JournalEntry.MessagePut) {
        space.checkRoomToGrow();
        checkDiskLimit();
        break;
      }
    }
    return writer.append(entries, true);
  }

  /**
   * Refuses sends once the store takes {@code maxBytes} or more on disk (its table files and the
   * writes not yet flushed to them), with {@code QUEUE_FULL}: the backlog's bound when the heap
   * keeps only a window of each queue (docs/storage.md, "Disk space"). Acks, deletes and receives
   * go on, and sends are taken again once compaction has brought the store back under it. {@code
   * Long.MAX_VALUE} (the default): no limit.
   *
   * @throws IllegalArgumentException when {@code maxBytes} is not positive
   */
  public void limitDisk(long maxBytes) {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException(
          "the store's disk limit must be positive, got " + maxBytes);
    }
    this.maxDisk = maxBytes;
  }

  /** The size of the file system holding the store, in bytes; 0 when it cannot be read. */
  public long fileSystemBytes() {
    return space.total();
  }

  /** What the store takes on disk now, as {@link #limitDisk} counts it. */
  public long storeBytes() {
    return storeSize.getAsLong();
  }

  /** Reads the store's size on disk from {@code size} instead of RocksDB (tests). */
  void storeSizeFrom(java.util.function.LongSupplier size) {
    this.storeSize = size;
  }

  private void checkDiskLimit() {
    long max = maxDisk;
    if (max == Long.MAX_VALUE) {
      return;
    }
    long used = storeSize.getAsLong();
    if (used >= max) {
      throw new QueueException(
          ErrorCode.QUEUE_FULL,
          "the store takes "
              + DiskSpace.mib(used)
              + " on disk, its limit (max-backlog-disk) is "
              + DiskSpace.mib(max)
              + ": sends are refused until consumers drain the backlog; retry later");
    }
  }

  /**
   * The store's size on disk from RocksDB: the live table files of every family and the memtables
   * (whose writes the write-ahead log holds), read at most every 50 ms.
   */
  private final class StoreSize implements java.util.function.LongSupplier {
    private static final long RECHECK_NANOS =
        java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(50);
    private volatile long readAt = System.nanoTime() - 2 * RECHECK_NANOS;
    private volatile long bytes;

    @Override
    public long getAsLong() {
      long now = System.nanoTime();
      if (now - readAt >= RECHECK_NANOS) {
        synchronized (this) {
          if (now - readAt >= RECHECK_NANOS) {
            bytes = read();
            readAt = System.nanoTime();
          }
        }
      }
      return bytes;
    }

    private long read() {
      if (closed.get()) {
        return 0; // a closed store is not asked (the writer refuses its sends)
      }
      try {
        return db.getAggregatedLongProperty("rocksdb.live-sst-files-size")
            + db.getAggregatedLongProperty("rocksdb.cur-size-all-mem-tables");
      } catch (RocksDBException e) {
        return 0; // cannot tell: let sends through (the disk's own reserve still holds)
      }
    }
  }

  /** Adds one entry to a write batch. */
  private void apply(WriteBatch batch, JournalEntry e) throws RocksDBException {
    switch (e) {
      case JournalEntry.QueuePut q -> batch.put(cf.get("queues"), bytes(q.name()), Codec.queue(q));
      case JournalEntry.QueueDelete d -> {
        batch.delete(cf.get("queues"), bytes(d.name()));
        for (String family : List.of("bodies", "states", "dedup", "history")) {
          batch.deleteRange(cf.get(family), Codec.queuePrefix(d.name()), Codec.queueEnd(d.name()));
        }
        deleteOrders(batch, d.name());
      }
      case JournalEntry.QueuePurge p -> {
        for (String family : List.of("bodies", "states", "dedup")) {
          batch.deleteRange(cf.get(family), Codec.queuePrefix(p.name()), Codec.queueEnd(p.name()));
        }
        deleteOrders(batch, p.name());
      }
      case JournalEntry.Placement p -> place(batch, p);
      case JournalEntry.MessagePut m -> {
        byte[] key = Codec.messageKey(m.queue(), m.message().serial());
        batch.put(cf.get("bodies"), key, Codec.body(m.message()));
        batch.put(cf.get("states"), key, Codec.state(m.message().stateRecord()));
      }
      case JournalEntry.StatePut s ->
          batch.put(
              cf.get("states"), Codec.messageKey(s.queue(), s.serial()), Codec.state(s.state()));
      case JournalEntry.MessageDelete d -> {
        byte[] key = Codec.messageKey(d.queue(), d.serial());
        batch.delete(cf.get("bodies"), key);
        batch.delete(cf.get("states"), key);
      }
      case JournalEntry.DedupPut d ->
          batch.put(cf.get("dedup"), Codec.stringKey(d.queue(), d.key()), Codec.dedup(d));
      case JournalEntry.DedupDelete d ->
          batch.delete(cf.get("dedup"), Codec.stringKey(d.queue(), d.key()));
      case JournalEntry.HistoryPut h ->
          batch.put(
              cf.get("history"),
              Codec.messageKey(h.queue(), h.message().serial()),
              Codec.history(h));
      case JournalEntry.HistoryDelete h ->
          batch.delete(cf.get("history"), Codec.messageKey(h.queue(), h.serial()));
      case JournalEntry.TaskPut t ->
          batch.put(cf.get("tasks"), bytes(t.task().id()), Codec.taskStart(t));
      case JournalEntry.TaskProgress p ->
          batch.put(cf.get("progress"), bytes(p.task().id()), Codec.taskProgress(p));
      case JournalEntry.SequenceReserve r ->
          batch.put(SEQUENCE_KEY, new Bytes.Writer(8).l(r.limit()).toArray());
      case JournalEntry.IdPrefix p ->
          batch.put(ID_PREFIX_KEY, new Bytes.Writer(8).l(p.prefix()).toArray());
    }
  }

  // ---- the order index -------------------------------------------------------------------

  /** Whether the store in {@code dir} has the column family {@code name} (false: no store yet). */
  private static boolean hasFamily(Path dir, String name) {
    if (!Files.exists(dir.resolve("CURRENT"))) {
      return false;
    }
    try (Options options = new Options()) {
      for (byte[] family : RocksDB.listColumnFamilies(options, dir.toString())) {
        if (Arrays.equals(family, bytes(name))) {
          return true;
        }
      }
      return false;
    } catch (RocksDBException e) {
      return false; // the open that follows reports what is wrong with the store
    }
  }

  /**
   * Brings the {@code orders} family in line with {@link #orderIndex}: dropped when not maintained
   * (a stale index would be worse than none); when maintained and not known complete (a new store,
   * a store kept without it, a build a crash interrupted), emptied and built from the messages.
   */
  private void setUpOrders() {
    ColumnFamilyHandle family = orders;
    if (family == null) {
      return;
    }
    try {
      if (orderIndex == OrderIndex.NONE) {
        db.delete(ORDERS_COMPLETE_KEY);
        db.dropColumnFamily(family);
        handles.remove(family);
        family.close();
        orders = null;
        return;
      }
      if (Arrays.equals(db.get(ORDERS_COMPLETE_KEY), ORDERS_WITH_COUNTS)) {
        return; // recovery reads what it needs of it with checksums verified (QueueStream)
      }
      db.dropColumnFamily(family);
      handles.remove(family);
      family.close();
      ColumnFamilyHandle fresh =
          db.createColumnFamily(new ColumnFamilyDescriptor(bytes(ORDERS), cfOptions));
      handles.add(fresh);
      orders = fresh;
      buildOrders(fresh);
      try (org.rocksdb.WriteOptions synced = new org.rocksdb.WriteOptions().setSync(true)) {
        db.put(synced, ORDERS_COMPLETE_KEY, ORDERS_WITH_COUNTS);
      }
    } catch (RocksDBException e) {
      close();
      throw damaged(e);
    }
  }

  /** Writes the keys of every stored message, in batches of 10,000. */
  private void buildOrders(ColumnFamilyHandle family) throws RocksDBException {
    Map<String, java.util.Collection<String>> queues = new java.util.LinkedHashMap<>();
    forEach(
        "queues",
        (k, v) -> {
          JournalEntry.QueuePut q = Codec.queue(v);
          queues.put(q.name(), partitioned(q));
        });
    Bytes.Strings strings = new Bytes.Strings();
    try (org.rocksdb.WriteOptions plain = new org.rocksdb.WriteOptions()) {
      for (Map.Entry<String, java.util.Collection<String>> q : queues.entrySet()) {
        String queue = q.getKey();
        WriteBatch batch = new WriteBatch();
        Map<String, long[]> counts = new java.util.TreeMap<>();
        try {
          for (MessageRecord m : messagesOf(queue, strings)) {
            Place place = Place.of(m, q.getValue());
            for (byte[] key : OrderKeys.of(queue, m.serial(), place)) {
              batch.put(family, key, EMPTY);
            }
            for (byte[] key : OrderKeys.counters(queue, place)) {
              counts
                  .computeIfAbsent(java.util.HexFormat.of().formatHex(key), k -> new long[1])[0]++;
            }
            if (batch.count() >= 10_000) {
              db.write(plain, batch);
              batch.close();
              batch = new WriteBatch();
            }
          }
          for (Map.Entry<String, long[]> c : counts.entrySet()) {
            batch.put(
                family,
                java.util.HexFormat.of().parseHex(c.getKey()),
                OrderKeys.count(c.getValue()[0]));
          }
          db.write(plain, batch);
        } finally {
          batch.close();
        }
      }
    }
  }

  /**
   * The attributes a queue's messages are partitioned by in the index: its indexed attributes, none
   * for a grouped queue (whose messages all stay in the heap).
   */
  private static java.util.Collection<String> partitioned(JournalEntry.QueuePut q) {
    return QueueRules.isGrouped(q.name()) ? List.of() : q.config().indexedAttributes();
  }

  private void deleteOrders(WriteBatch batch, String queue) throws RocksDBException {
    if (orders != null) {
      batch.deleteRange(orders, Codec.queuePrefix(queue), Codec.queueEnd(queue));
    }
  }

  /** Replaces the keys of a message's place before with those of its place after. */
  private void place(WriteBatch batch, JournalEntry.Placement p) throws RocksDBException {
    ColumnFamilyHandle family = orders;
    if (family == null) {
      return; // not maintained: the engine was told so and sends none
    }
    List<byte[]> before = OrderKeys.of(p.queue(), p.serial(), p.before());
    List<byte[]> after = OrderKeys.of(p.queue(), p.serial(), p.after());
    for (byte[] key : before) {
      if (!contains(after, key)) {
        batch.delete(family, key);
      }
    }
    for (byte[] key : after) {
      if (!contains(before, key)) {
        batch.put(family, key, EMPTY);
      }
    }
    List<byte[]> was = OrderKeys.counters(p.queue(), p.before());
    List<byte[]> is = OrderKeys.counters(p.queue(), p.after());
    for (byte[] key : was) {
      if (!contains(is, key)) {
        batch.merge(family, key, OrderKeys.count(-1));
      }
    }
    for (byte[] key : is) {
      if (!contains(was, key)) {
        batch.merge(family, key, OrderKeys.count(1));
      }
    }
  }

  private static boolean contains(List<byte[]> keys, byte[] key) {
    for (byte[] k : keys) {
      if (Arrays.equals(k, key)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Differences between the order index and the keys the stored messages call for (at most 10, one
   * sentence each); empty when they agree or the index is not kept. For tests: it reads every
   * message.
   */
  List<String> checkOrders() {
    ColumnFamilyHandle family = orders;
    if (family == null) {
      return List.of();
    }
    writer.awaitWritten();
    // one snapshot for messages and index: the engine may go on writing meanwhile (its timers)
    org.rocksdb.Snapshot snapshot = db.getSnapshot();
    try (ReadOptions at = new ReadOptions().setSnapshot(snapshot)) {
      Map<String, java.util.Collection<String>> queues = new java.util.LinkedHashMap<>();
      try (RocksIterator it = db.newIterator(cf.get("queues"), at)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          JournalEntry.QueuePut q = Codec.queue(it.value());
          queues.put(q.name(), partitioned(q));
        }
        checkStatus(it);
      }
      java.util.Set<String> expected = new java.util.TreeSet<>();
      List<String> countErrors = new ArrayList<>();
      for (Map.Entry<String, java.util.Collection<String>> q : queues.entrySet()) {
        String queue = q.getKey();
        java.util.Iterator<MessageRecord> scan =
            new QueueScan(queue, new Bytes.Strings(), snapshot);
        long[] states = new long[3];
        java.util.SortedMap<Integer, Long> byPriority =
            new java.util.TreeMap<>(java.util.Comparator.reverseOrder());
        Map<String, Long> byPartition = new java.util.TreeMap<>();
        Map<String, Long> byTenant = new java.util.TreeMap<>();
        while (scan.hasNext()) {
          MessageRecord m = scan.next();
          Place place = Place.of(m, q.getValue());
          for (byte[] key : OrderKeys.of(queue, m.serial(), place)) {
            expected.add(java.util.HexFormat.of().formatHex(key));
          }
          states[m.state()]++;
          byPriority.merge(m.priority(), 1L, Long::sum);
          if (place.partition() != null && m.state() == MessageRecord.AVAILABLE) {
            byPartition.merge(place.partition(), 1L, Long::sum);
          }
          if (m.groupId() != null
              && m.state() == MessageRecord.AVAILABLE
              && !QueueRules.isGrouped(queue)) {
            byTenant.merge(m.groupId(), 1L, Long::sum);
          }
        }
        try (RocksIterator it = db.newIterator(family, at)) {
          Map<String, Long> got = new java.util.TreeMap<>(tenantsAt(it, queue));
          checkStatus(it);
          if (!got.equals(byTenant)) {
            countErrors.add(
                "tenant counts of " + queue + " are " + got + ", its messages " + byTenant);
          }
        }
        try (RocksIterator it = db.newIterator(family, at)) {
          Map<String, Long> got = new java.util.TreeMap<>(partitionsAt(it, queue));
          checkStatus(it);
          if (!got.equals(byPartition)) {
            countErrors.add(
                "partition counts of " + queue + " are " + got + ", its messages " + byPartition);
          }
        }
        Orders.Counts want =
            new Orders.Counts(
                states[MessageRecord.AVAILABLE],
                states[MessageRecord.DELAYED],
                states[MessageRecord.IN_FLIGHT],
                byPriority);
        try (RocksIterator it = db.newIterator(family, at)) {
          Orders.Counts got = countsAt(it, queue);
          checkStatus(it);
          if (!got.equals(want)) {
            countErrors.add("counts of " + queue + " are " + got + ", its messages " + want);
          }
        }
      }
      java.util.Set<String> actual = new java.util.TreeSet<>();
      try (RocksIterator it = db.newIterator(family, at)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          byte[] key = it.key();
          if (key[Codec.queuePrefix(Codec.queueOf(key)).length] != OrderKeys.COUNTER) {
            actual.add(java.util.HexFormat.of().formatHex(key));
          }
        }
        checkStatus(it);
      }
      List<String> out = new ArrayList<>(countErrors.subList(0, Math.min(10, countErrors.size())));
      for (String key : expected) {
        if (!actual.contains(key) && out.size() < 10) {
          out.add("missing from the index: " + key);
        }
      }
      for (String key : actual) {
        if (!expected.contains(key) && out.size() < 10) {
          out.add("in the index for no stored message: " + key);
        }
      }
      return out;
    } finally {
      db.releaseSnapshot(snapshot);
    }
  }

  /** A queue's counters read with {@code it} (which sees a snapshot, or the store as it is). */
  private static Orders.Counts countsAt(RocksIterator it, String queue) {
    byte[] prefix = OrderKeys.start(queue, OrderKeys.COUNTER);
    int at = prefix.length;
    long available = 0;
    long delayed = 0;
    long inFlight = 0;
    java.util.SortedMap<Integer, Long> byPriority =
        new java.util.TreeMap<>(java.util.Comparator.reverseOrder());
    for (it.seek(prefix); it.isValid() && OrderKeys.startsWith(it.key(), prefix); it.next()) {
      byte[] key = it.key();
      long n = OrderKeys.countOf(it.value());
      switch (key[at]) {
        case 'a' -> available = n;
        case 'd' -> delayed = n;
        case 'f' -> inFlight = n;
        case 'q', 't' -> {} // a partition's or a tenant's count (partitionsAt, tenantsAt)
        default -> {
          if (n != 0) {
            byPriority.put(OrderKeys.priorityOf(key, at), n);
          }
        }
      }
    }
    return new Orders.Counts(available, delayed, inFlight, byPriority);
  }

  /** A queue's non-zero tenant counters read with {@code it}, by group id. */
  private static Map<String, Long> tenantsAt(RocksIterator it, String queue) {
    byte[] prefix =
        new Bytes.Writer(64).raw(OrderKeys.start(queue, OrderKeys.COUNTER)).b('t').toArray();
    Map<String, Long> out = new java.util.HashMap<>();
    for (it.seek(prefix); it.isValid() && OrderKeys.startsWith(it.key(), prefix); it.next()) {
      long n = OrderKeys.countOf(it.value());
      if (n != 0) {
        byte[] key = it.key();
        out.put(
            new String(
                Arrays.copyOfRange(key, prefix.length, key.length),
                java.nio.charset.StandardCharsets.UTF_8),
            n);
      }
    }
    return out;
  }

  /** A queue's non-zero partition counters read with {@code it}, by partition. */
  private static Map<String, Long> partitionsAt(RocksIterator it, String queue) {
    byte[] prefix =
        new Bytes.Writer(64).raw(OrderKeys.start(queue, OrderKeys.COUNTER)).b('q').toArray();
    Map<String, Long> out = new java.util.HashMap<>();
    for (it.seek(prefix); it.isValid() && OrderKeys.startsWith(it.key(), prefix); it.next()) {
      long n = OrderKeys.countOf(it.value());
      if (n != 0) {
        byte[] key = it.key();
        out.put(
            io.switchboard.queue.spi.Partitions.of(
                Arrays.copyOfRange(key, prefix.length, key.length)),
            n);
      }
    }
    return out;
  }

  /** The database, for this package's tests (RocksDB's per-thread read counters). */
  RocksDB db() {
    return db;
  }

  @Override
  public boolean maintainsOrders() {
    return orderIndex == OrderIndex.MAINTAINED;
  }

  @Override
  public Optional<Orders> orders() {
    return orders == null ? Optional.empty() : Optional.of(ordersReader);
  }

  /**
   * Reads of the order index. Each first waits for the writer to have written what was appended
   * before it, so it sees every change the engine journaled.
   */
  private final class RocksOrders implements Orders {

    @Override
    public List<Long> available(
        String queue, Order order, Orders.@Nullable After after, int limit) {
      return inDeliveryOrder(queue, OrderKeys.AVAILABLE, order, after, limit);
    }

    @Override
    public boolean keepsDelayedOrder() {
      return true;
    }

    @Override
    public List<Long> delayedInOrder(
        String queue, Order order, Orders.@Nullable After after, int limit) {
      return inDeliveryOrder(queue, OrderKeys.DELAYED_IN_ORDER, order, after, limit);
    }

    /** The keys of {@code kind} ({@code A} or {@code D}) in delivery order. */
    private List<Long> inDeliveryOrder(
        String queue, byte kindByte, Order order, Orders.@Nullable After after, int limit) {
      if (order == Order.FIFO) {
        return forward(queue, kindByte, OrderKeys.start(queue, kindByte), after, limit);
      }
      // LIFO: priority bands in order, each read from its end backwards
      checkLimit(limit);
      ColumnFamilyHandle family = ready();
      byte[] kind = OrderKeys.start(queue, kindByte);
      int prefixLength = Codec.queuePrefix(queue).length;
      List<Long> out = new ArrayList<>();
      try (PrefixIterator bounded = PrefixIterator.over(db, family, kind)) {
        RocksIterator it = bounded.it;
        if (after == null) {
          it.seek(kind);
        } else {
          byte[] from = OrderKeys.key(kindByte, queue, after.serial(), after.place());
          int priority = after.place().priority();
          it.seekForPrev(from);
          if (it.isValid() && Arrays.equals(it.key(), from)) {
            it.prev();
          }
          backwards(it, OrderKeys.band(queue, kindByte, priority), out, limit);
          it.seek(bandEnd(queue, kindByte, priority));
        }
        while (it.isValid() && out.size() < limit && OrderKeys.startsWith(it.key(), kind)) {
          int priority = OrderKeys.priorityOf(it.key(), prefixLength);
          byte[] end = bandEnd(queue, kindByte, priority);
          it.seekForPrev(end);
          backwards(it, OrderKeys.band(queue, kindByte, priority), out, limit);
          it.seek(end);
        }
        checkStatus(it);
      }
      return out;
    }

    @Override
    public boolean keepsPartitions() {
      return true;
    }

    @Override
    public List<Long> partition(
        String queue, Order order, String partition, Orders.@Nullable After after, int limit) {
      return line(
          queue,
          order,
          OrderKeys.PARTITION,
          OrderKeys.partitionLine(queue, partition),
          priority -> OrderKeys.partitionBand(queue, partition, priority),
          after,
          limit);
    }

    @Override
    public boolean keepsTenants() {
      return true;
    }

    @Override
    public List<Long> tenant(
        String queue, Order order, String groupId, Orders.@Nullable After after, int limit) {
      return line(
          queue,
          order,
          OrderKeys.TENANT,
          OrderKeys.tenantLine(queue, groupId),
          priority -> OrderKeys.tenantBand(queue, groupId, priority),
          after,
          limit);
    }

    @Override
    public Map<String, Long> tenants(String queue) {
      ColumnFamilyHandle family = ready();
      try (PrefixIterator bounded =
          PrefixIterator.over(db, family, OrderKeys.start(queue, OrderKeys.COUNTER))) {
        RocksIterator it = bounded.it;
        Map<String, Long> out = tenantsAt(it, queue);
        checkStatus(it);
        return out;
      }
    }

    /**
     * One line of {@code kind} ({@code P} a partition's, {@code F} a tenant's: {@code line}, then
     * priority', seq, serial) in delivery order; {@code band} gives the start of a priority's band.
     */
    private List<Long> line(
        String queue,
        Order order,
        byte kind,
        byte[] line,
        java.util.function.IntFunction<byte[]> band,
        Orders.@Nullable After after,
        int limit) {
      if (order == Order.FIFO) {
        return forward(queue, kind, line, after, limit);
      }
      // LIFO: priority bands in order, each read from its end backwards
      checkLimit(limit);
      ColumnFamilyHandle family = ready();
      List<Long> out = new ArrayList<>();
      try (PrefixIterator bounded = PrefixIterator.over(db, family, line)) {
        RocksIterator it = bounded.it;
        if (after == null) {
          it.seek(line);
        } else {
          byte[] from = OrderKeys.key(kind, queue, after.serial(), after.place());
          int priority = after.place().priority();
          it.seekForPrev(from);
          if (it.isValid() && Arrays.equals(it.key(), from)) {
            it.prev();
          }
          backwards(it, band.apply(priority), out, limit);
          it.seek(bandEnd(line, band, priority));
        }
        while (it.isValid() && out.size() < limit && OrderKeys.startsWith(it.key(), line)) {
          int priority = OrderKeys.priorityAt(it.key(), line.length);
          byte[] end = bandEnd(line, band, priority);
          it.seekForPrev(end);
          backwards(it, band.apply(priority), out, limit);
          it.seek(end);
        }
        checkStatus(it);
      }
      return out;
    }

    /** The first key after every key of {@code priority} in a line. */
    private static byte[] bandEnd(
        byte[] line, java.util.function.IntFunction<byte[]> band, int priority) {
      if (priority != Integer.MIN_VALUE) {
        return band.apply(priority - 1);
      }
      byte[] end = line.clone();
      end[end.length - 1] = 1; // the line ends with 0x00: this is past all of it
      return end;
    }

    @Override
    public Map<String, Long> partitions(String queue) {
      ColumnFamilyHandle family = ready();
      try (PrefixIterator bounded =
          PrefixIterator.over(db, family, OrderKeys.start(queue, OrderKeys.COUNTER))) {
        RocksIterator it = bounded.it;
        Map<String, Long> out = partitionsAt(it, queue);
        checkStatus(it);
        return out;
      }
    }

    /** Reads serials backwards from where {@code it} stands while the keys are in {@code band}. */
    private static void backwards(RocksIterator it, byte[] band, List<Long> out, int limit) {
      while (it.isValid() && out.size() < limit && OrderKeys.startsWith(it.key(), band)) {
        out.add(OrderKeys.serialOf(it.key()));
        it.prev();
      }
    }

    /**
     * The first key after every key of {@code kind} ({@code A} or {@code D}) of {@code priority}.
     */
    private static byte[] bandEnd(String queue, byte kind, int priority) {
      return priority == Integer.MIN_VALUE
          ? OrderKeys.start(queue, (byte) (kind + 1))
          : OrderKeys.band(queue, kind, priority - 1);
    }

    @Override
    public List<Long> delayed(String queue, Orders.@Nullable After after, int limit) {
      return forward(
          queue, OrderKeys.DELAYED, OrderKeys.start(queue, OrderKeys.DELAYED), after, limit);
    }

    @Override
    public List<Long> inFlight(String queue, Orders.@Nullable After after, int limit) {
      return forward(
          queue, OrderKeys.IN_FLIGHT, OrderKeys.start(queue, OrderKeys.IN_FLIGHT), after, limit);
    }

    @Override
    public List<Long> byExpiry(String queue, Orders.@Nullable After after, int limit) {
      return forward(
          queue, OrderKeys.EXPIRY, OrderKeys.start(queue, OrderKeys.EXPIRY), after, limit);
    }

    @Override
    public List<Long> byArrival(String queue, Orders.@Nullable After after, int limit) {
      return forward(
          queue, OrderKeys.ARRIVAL, OrderKeys.start(queue, OrderKeys.ARRIVAL), after, limit);
    }

    @Override
    public List<Long> group(String queue, String groupId, Orders.@Nullable After after, int limit) {
      return forward(queue, OrderKeys.GROUP, OrderKeys.groupLine(queue, groupId), after, limit);
    }

    @Override
    public Orders.Counts counts(String queue) {
      ColumnFamilyHandle family = ready();
      try (PrefixIterator bounded =
          PrefixIterator.over(db, family, OrderKeys.start(queue, OrderKeys.COUNTER))) {
        RocksIterator it = bounded.it;
        Orders.Counts counts = countsAt(it, queue);
        checkStatus(it);
        return counts;
      }
    }

    @Override
    public Optional<MessageRecord> read(String queue, long serial) {
      ready();
      byte[] key = Codec.messageKey(queue, serial);
      try {
        byte[] body = db.get(cf.get("bodies"), key);
        byte[] state = db.get(cf.get("states"), key);
        return body == null || state == null
            ? Optional.empty()
            : Optional.of(Codec.message(body, Codec.state(state)));
      } catch (RocksDBException e) {
        throw damaged(e);
      }
    }

    /**
     * One wait for the writer and one {@code multiGet} of the bodies and states of every serial,
     * rather than a wait and two reads per message.
     */
    @Override
    public List<Optional<MessageRecord>> readAll(String queue, List<Long> serials) {
      if (serials.isEmpty()) {
        return List.of();
      }
      ready();
      int n = serials.size();
      List<ColumnFamilyHandle> families = new ArrayList<>(2 * n);
      List<byte[]> keys = new ArrayList<>(2 * n);
      ColumnFamilyHandle bodies = cf.get("bodies");
      ColumnFamilyHandle states = cf.get("states");
      for (long serial : serials) {
        families.add(bodies);
        keys.add(Codec.messageKey(queue, serial));
      }
      for (int i = 0; i < n; i++) {
        families.add(states);
        keys.add(keys.get(i));
      }
      List<byte[]> values;
      try {
        values = db.multiGetAsList(families, keys);
      } catch (RocksDBException e) {
        throw damaged(e);
      }
      List<Optional<MessageRecord>> out = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        byte[] body = values.get(i);
        byte[] state = values.get(n + i);
        out.add(
            body == null || state == null
                ? Optional.empty()
                : Optional.of(Codec.message(body, Codec.state(state))));
      }
      return out;
    }

    /**
     * The serials of the keys of {@code kind} that begin with {@code prefix}, in key order, from
     * the start or strictly after the key {@code after} has.
     */
    private List<Long> forward(
        String queue, byte kind, byte[] prefix, Orders.@Nullable After after, int limit) {
      checkLimit(limit);
      ColumnFamilyHandle family = ready();
      byte[] from =
          after == null ? prefix : OrderKeys.key(kind, queue, after.serial(), after.place());
      List<Long> out = new ArrayList<>();
      try (PrefixIterator bounded = PrefixIterator.over(db, family, prefix)) {
        RocksIterator it = bounded.it;
        it.seek(from);
        if (after != null && it.isValid() && Arrays.equals(it.key(), from)) {
          it.next();
        }
        for (; it.isValid() && out.size() < limit; it.next()) {
          if (!OrderKeys.startsWith(it.key(), prefix)) {
            break;
          }
          out.add(OrderKeys.serialOf(it.key()));
        }
        checkStatus(it);
      }
      return out;
    }

    /** Waits for the writer, then gives the family (the store must be open and maintain it). */
    private ColumnFamilyHandle ready() {
      if (closed.get()) {
        throw new QueueException(ErrorCode.UNAVAILABLE, "the store is closed");
      }
      writer.awaitWritten();
      return Objects.requireNonNull(orders, "orders");
    }

    private static void checkLimit(int limit) {
      if (limit < 1) {
        throw new IllegalArgumentException("limit must be at least 1, was " + limit);
      }
    }
  }

  /** System records under {@code record/} in the default column family, written with fsync. */
  @Override
  public SystemRecords systemRecords() {
    return records;
  }

  /** Bytes on disk under the data directory (for soak tests and metrics). */
  public long sizeOnDisk() {
    try (var files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    } catch (IOException e) {
      return -1;
    }
  }

  /** Compacts every column family now (tests of storage growth; RocksDB also does it itself). */
  public void compact() {
    try {
      try (CompactRangeOptions options =
          new CompactRangeOptions()
              .setBottommostLevelCompaction(CompactRangeOptions.BottommostLevelCompaction.kForce)) {
        for (ColumnFamilyHandle h : handles) {
          db.compactRange(h, null, null, options);
        }
      }
    } catch (RocksDBException e) {
      throw new IllegalStateException("compaction failed: " + e, e);
    }
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    writer.close();
    synchronized (recordsLock) { // no system record call is in the database while it closes
      records.close();
      List<QueueScan> scans;
      synchronized (openScans) {
        scans = List.copyOf(openScans);
      }
      for (QueueScan scan : scans) {
        scan.close(); // a scan nobody read to its end: its iterators go before the database
      }
      flushMemtables();
      for (ColumnFamilyHandle h : handles) {
        h.close();
      }
      try {
        db.syncWal();
      } catch (RocksDBException e) {
        // closing anyway; the WAL was synced by the writer's last write in SYNC mode
      }
      db.close();
    }
    verified.close();
    dbOptions.close();
    cfOptions.close();
    if (sstFiles != null) {
      sstFiles.close();
    }
  }

  /**
   * Writes the memtables to table files, so that the next open has no log to replay: a clean
   * restart of a store with a million messages otherwise spends seconds re-inserting its log into
   * memtables and flushing them before it can read anything. After a crash the log is replayed.
   */
  private void flushMemtables() {
    try (FlushOptions options = new FlushOptions().setWaitForFlush(true)) {
      db.flush(options, handles);
    } catch (RocksDBException e) {
      // closing anyway: the log still holds everything, the next open replays it
    }
  }

  /**
   * The error a client gets for a write the store refused: retryable, and without RocksDB's
   * message, which names the server's files (the writer logs that instead).
   */
  static QueueException unavailable(String what, Exception cause) {
    return new QueueException(
        ErrorCode.UNAVAILABLE,
        "storage write failed (" + what + "): the store cannot write; retry later",
        cause);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
