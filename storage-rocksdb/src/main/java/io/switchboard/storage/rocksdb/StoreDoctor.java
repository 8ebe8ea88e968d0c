package io.switchboard.storage.rocksdb;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.LiveFileMetaData;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.SstFileReader;
import org.rocksdb.SstFileReaderIterator;
import org.rocksdb.WALRecoveryMode;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The store commands behind {@code switchboard store verify} and {@code switchboard store salvage}.
 * Both read a data directory (the queue store and, if present, the router store in {@code
 * routing/}) without changing anything in it: RocksDB is opened read-only, its own log goes to a
 * temporary directory.
 *
 * <ul>
 *   <li>{@link #verify}: reads every table file with its checksums, every write-ahead log, and
 *       every record; reports OK or each damage found.
 *   <li>{@link #salvage}: copies every readable record to a new store, skipping over damaged
 *       blocks, and reports exactly what could not be read: the table file, the key range per
 *       column family (with the queue and message serials it covers) and how many entries, the
 *       write-ahead log records dropped, and the messages left with a body but no state (or the
 *       reverse), which recovery drops.
 * </ul>
 */
public final class StoreDoctor {

  static {
    RocksDB.loadLibrary();
  }

  private StoreDoctor() {}

  /**
   * What a command found.
   *
   * @param damaged whether anything is damaged (verify) or was lost (salvage)
   * @param lines what to show, one finding a line
   */
  public record Report(boolean damaged, List<String> lines) {}

  /**
   * Reads everything in {@code dataDir}.
   *
   * @throws IllegalArgumentException when {@code dataDir} holds no store
   */
  public static Report verify(Path dataDir) {
    List<String> lines = new ArrayList<>();
    boolean damaged = false;
    for (Path store : stores(dataDir)) {
      damaged |= verifyOne(store, lines);
    }
    lines.add(damaged ? "DAMAGED: see above; salvage with `switchboard store salvage`" : "OK");
    return new Report(damaged, lines);
  }

  /**
   * Copies what is readable in {@code dataDir} to a new store in {@code to}, which must not exist
   * or be empty; {@code dataDir} is not changed.
   *
   * @throws IllegalArgumentException when {@code dataDir} holds no store or {@code to} is not empty
   */
  public static Report salvage(Path dataDir, Path to) {
    List<Path> stores = stores(dataDir);
    if (Files.exists(to)) {
      try (Stream<Path> s = Files.list(to)) {
        if (s.findAny().isPresent()) {
          throw new IllegalArgumentException(
              "--to must be a new or empty directory, got " + to + " (it holds files)");
        }
      } catch (IOException e) {
        throw new IllegalArgumentException("--to must be a directory, got " + to + ": " + e, e);
      }
    }
    if (to.toAbsolutePath().normalize().equals(dataDir.toAbsolutePath().normalize())) {
      throw new IllegalArgumentException("--to must differ from --data-dir, got " + to);
    }
    List<String> lines = new ArrayList<>();
    boolean lost = false;
    for (Path store : stores) {
      Path target = store.equals(dataDir) ? to : to.resolve(dataDir.relativize(store));
      lost |= salvageOne(store, target, lines);
    }
    lines.add(
        lost
            ? "SALVAGED with losses (listed above) into " + to
            : "SALVAGED everything into " + to + " (nothing was lost)");
    return new Report(lost, lines);
  }

  /**
   * The stores in a data directory: the queue store, the router store, then the router store of
   * each routing workspace ({@code workspaces/<name>}), by name.
   */
  private static List<Path> stores(Path dataDir) {
    List<Path> stores = new ArrayList<>();
    if (Files.exists(dataDir.resolve("CURRENT"))) {
      stores.add(dataDir);
    }
    if (Files.exists(dataDir.resolve("routing").resolve("CURRENT"))) {
      stores.add(dataDir.resolve("routing"));
    }
    Path workspaces = dataDir.resolve("workspaces");
    if (Files.isDirectory(workspaces)) {
      try (Stream<Path> all = Files.list(workspaces)) {
        all.filter(d -> Files.exists(d.resolve("CURRENT"))).sorted().forEach(stores::add);
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot list " + workspaces + ": " + e, e);
      }
    }
    if (stores.isEmpty()) {
      throw new IllegalArgumentException(
          "--data-dir must be a Switchboard data directory, got "
              + dataDir
              + " (no store in it: no CURRENT file)");
    }
    return stores;
  }

  // ---- verify ----------------------------------------------------------------------------

  private static boolean verifyOne(Path store, List<String> lines) {
    boolean damaged = false;
    for (WalCheck.Scan s : WalCheck.scanAll(store)) {
      switch (s.ending()) {
        case DAMAGED -> {
          lines.add("DAMAGED " + s.describe());
          damaged = true;
        }
        case TORN -> lines.add("WARNING " + s.describe());
        default -> {}
      }
    }
    try (ReadOnly db = ReadOnly.open(store)) {
      for (LiveFileMetaData f : db.db.getLiveFilesMetaData()) {
        String file = store.resolve(f.fileName().replaceFirst("^/", "")).toString();
        try (Options o = new Options();
            SstFileReader reader = new SstFileReader(o)) {
          reader.open(file);
          reader.verifyChecksum();
        } catch (RocksDBException e) {
          lines.add("DAMAGED table file " + file + ": " + e.getMessage());
          damaged = true;
        }
      }
      long records = 0;
      for (Map.Entry<String, ColumnFamilyHandle> cf : db.families.entrySet()) {
        try (ReadOptions ro = new ReadOptions().setVerifyChecksums(true).setFillCache(false);
            RocksIterator it = db.db.newIterator(cf.getValue(), ro)) {
          for (it.seekToFirst(); it.isValid(); it.next()) {
            records++;
          }
          it.status();
        } catch (RocksDBException e) {
          lines.add(
              "DAMAGED column family " + cf.getKey() + " in " + store + ": " + e.getMessage());
          damaged = true;
        }
      }
      if (!damaged) {
        lines.add(
            "ok "
                + store
                + ": "
                + records
                + " records in "
                + db.families.size()
                + " column families, "
                + db.db.getLiveFilesMetaData().size()
                + " table files, checksums verified");
      }
    } catch (RocksDBException e) {
      lines.add("DAMAGED " + store + " cannot be opened: " + e.getMessage());
      damaged = true;
    }
    return damaged;
  }

  // ---- salvage ---------------------------------------------------------------------------

  private static boolean salvageOne(Path store, Path target, List<String> lines) {
    boolean lost = false;
    for (WalCheck.Scan s : WalCheck.scanAll(store)) {
      if (s.ending() == WalCheck.Ending.DAMAGED || s.ending() == WalCheck.Ending.TORN) {
        lines.add("LOST " + s.describe());
        lost = true;
      }
    }
    try (ReadOnly src = ReadOnly.open(store)) {
      StoreFiles.createPrivateDirectory(target, "salvage directory");
      List<byte[]> names = new ArrayList<>();
      src.families.keySet().forEach(n -> names.add(n.getBytes(StandardCharsets.UTF_8)));
      try (Target dst = Target.create(target, names)) {
        long copied = 0;
        for (Map.Entry<String, ColumnFamilyHandle> cf : src.families.entrySet()) {
          Copy c = copyFamily(store, src, cf.getKey(), cf.getValue(), dst, lines);
          copied += c.copied;
          lost |= c.lost;
        }
        if (src.families.containsKey(RocksJournal.ORDERS)) {
          // the copy may have lost messages: the next open rebuilds the order index from them
          dst.db.delete(RocksJournal.ORDERS_COMPLETE_KEY);
        }
        dst.flush();
        lines.add("copied " + copied + " records of " + store + " to " + target);
        if (src.families.containsKey("bodies") && src.families.containsKey("states")) {
          lost |= orphans(dst, lines);
        }
      }
    } catch (RocksDBException e) {
      lines.add(
          "LOST everything in "
              + store
              + ": it cannot be opened ("
              + e.getMessage()
              + "); its MANIFEST or CURRENT file is damaged and this command does not rebuild"
              + " them");
      return true;
    }
    return lost;
  }

  private record Copy(long copied, boolean lost) {}

  /**
   * Copies one column family. When the scan stops on damage, the damaged table file is read from
   * both ends to find the first readable key after the damage, the loss is reported, and the scan
   * goes on from there.
   */
  private static Copy copyFamily(
      Path store,
      ReadOnly src,
      String family,
      ColumnFamilyHandle handle,
      Target dst,
      List<String> lines)
      throws RocksDBException {
    long copied = 0;
    boolean lost = false;
    ColumnFamilyHandle out = dst.families.get(family);
    try (ReadOptions ro = new ReadOptions().setVerifyChecksums(true).setFillCache(false);
        RocksIterator it = src.db.newIterator(handle, ro);
        WriteOptions wo = new WriteOptions()) {
      byte[] last = null;
      it.seekToFirst();
      WriteBatch batch = new WriteBatch();
      try {
        while (true) {
          for (; it.isValid(); it.next()) {
            batch.put(out, it.key(), it.value());
            last = it.key();
            copied++;
            if (batch.count() >= 10_000) {
              dst.db.write(wo, batch);
              batch.close();
              batch = new WriteBatch();
            }
          }
          try {
            it.status();
            break;
          } catch (RocksDBException e) {
            lost = true;
            byte[] resume =
                resumeAfter(
                    store,
                    src,
                    family,
                    last,
                    Objects.requireNonNull(e.getMessage(), "RocksDB's error"),
                    lines);
            if (resume == null) {
              break;
            }
            it.seek(resume);
          }
        }
        dst.db.write(wo, batch);
      } finally {
        batch.close();
      }
    }
    return new Copy(copied, lost);
  }

  /**
   * Reports the loss RocksDB's {@code error} describes, after key {@code last} of {@code family},
   * and returns the first readable key after it (null to stop: nothing readable follows).
   */
  private static byte @Nullable [] resumeAfter(
      Path store,
      ReadOnly src,
      String family,
      byte @Nullable [] last,
      String error,
      List<String> lines) {
    LiveFileMetaData file = null;
    for (LiveFileMetaData f : src.db.getLiveFilesMetaData()) {
      String name = f.fileName().replaceFirst("^/", "");
      if (new String(f.columnFamilyName(), StandardCharsets.UTF_8).equals(family)
          && error.contains(name)) {
        file = f;
      }
    }
    if (file == null) {
      lines.add(
          "LOST in column family "
              + family
              + ": every record after "
              + describeKey(family, last)
              + " ("
              + error
              + ")");
      return null;
    }
    Path path = store.resolve(file.fileName().replaceFirst("^/", ""));
    long readable = 0;
    byte[] resume = null;
    byte[] beforeDamage = last;
    try (Options o = new Options();
        SstFileReader reader = new SstFileReader(o)) {
      reader.open(path.toString());
      long entries = reader.getTableProperties().getNumEntries();
      try (ReadOptions ro = new ReadOptions().setVerifyChecksums(true);
          SstFileReaderIterator it = reader.newIterator(ro)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          readable++;
          beforeDamage = it.key();
        }
        for (it.seekToLast(); it.isValid(); it.prev()) {
          if (last != null && Arrays.compareUnsigned(it.key(), last) <= 0) {
            break;
          }
          readable++;
          resume = it.key();
        }
      }
      if (resume != null && last != null && Arrays.compareUnsigned(resume, last) <= 0) {
        resume = null;
      }
      lines.add(
          "LOST in column family "
              + family
              + ", table file "
              + path
              + ": about "
              + Math.max(0, entries - readable)
              + " of its "
              + entries
              + " entries, the keys after "
              + describeKey(family, beforeDamage)
              + (resume == null ? " to its end" : " and before " + describeKey(family, resume))
              + " ("
              + firstLine(error)
              + ")");
      if (resume == null) {
        byte[] largest = file.largestKey();
        byte[] after = Arrays.copyOf(largest, largest.length + 1); // the next key after largest
        return last != null && Arrays.compareUnsigned(after, last) <= 0 ? null : after;
      }
      return resume;
    } catch (RocksDBException e) {
      lines.add(
          "LOST in column family "
              + family
              + ": all of table file "
              + path
              + " ("
              + e.getMessage()
              + ")");
      byte[] largest = file.largestKey();
      return Arrays.copyOf(largest, largest.length + 1);
    }
  }

  /**
   * Messages with a body but no state, or a state but no body: recovery skips them, so they are
   * lost; listed per queue with their serials.
   */
  private static boolean orphans(Target dst, List<String> lines) throws RocksDBException {
    Map<String, List<Long>> noState = new TreeMap<>();
    Map<String, List<Long>> noBody = new TreeMap<>();
    try (RocksIterator bodies = dst.db.newIterator(dst.families.get("bodies"));
        RocksIterator states = dst.db.newIterator(dst.families.get("states"))) {
      bodies.seekToFirst();
      states.seekToFirst();
      while (bodies.isValid() || states.isValid()) {
        int cmp =
            !states.isValid()
                ? -1
                : !bodies.isValid() ? 1 : Arrays.compareUnsigned(bodies.key(), states.key());
        if (cmp < 0) {
          add(noState, bodies.key());
          bodies.next();
        } else if (cmp > 0) {
          add(noBody, states.key());
          states.next();
        } else {
          bodies.next();
          states.next();
        }
      }
    }
    for (var e : noState.entrySet()) {
      lines.add(
          "LOST queue "
              + e.getKey()
              + ": "
              + e.getValue().size()
              + " messages whose state was lost (body kept, not recovered), serials "
              + serials(e.getValue()));
    }
    for (var e : noBody.entrySet()) {
      lines.add(
          "LOST queue "
              + e.getKey()
              + ": "
              + e.getValue().size()
              + " messages whose body was lost, serials "
              + serials(e.getValue()));
    }
    return !noState.isEmpty() || !noBody.isEmpty();
  }

  private static void add(Map<String, List<Long>> into, byte[] key) {
    if (key.length >= 10) {
      into.computeIfAbsent(Codec.queueOf(key), q -> new ArrayList<>()).add(Codec.serialOf(key));
    }
  }

  private static String serials(List<Long> serials) {
    List<Long> sorted = serials.stream().sorted(Comparator.naturalOrder()).toList();
    if (sorted.size() <= 20) {
      return sorted.toString();
    }
    return sorted.subList(0, 10) + " ... " + sorted.subList(sorted.size() - 5, sorted.size());
  }

  /** A key, readable: queue and serial for message keys, else its text. */
  static String describeKey(String family, byte @Nullable [] key) {
    if (key == null) {
      return "the first";
    }
    boolean message =
        family.equals("bodies") || family.equals("states") || family.equals("history");
    if (message && key.length >= 10 && key[key.length - 9] == 0) {
      return "queue '" + Codec.queueOf(key) + "' serial " + Codec.serialOf(key);
    }
    StringBuilder b = new StringBuilder("'");
    for (byte c : key) {
      b.append(c >= 32 && c < 127 ? Character.toString(c) : String.format("\\x%02x", c & 0xff));
    }
    return b.append("'").toString();
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  // ---- stores ----------------------------------------------------------------------------

  /** A store opened read-only, with RocksDB's log in a temporary directory. */
  private static final class ReadOnly implements AutoCloseable {
    final RocksDB db;
    final Map<String, ColumnFamilyHandle> families;
    private final DBOptions options;
    private final List<ColumnFamilyHandle> handles;
    private final Path logDir;

    private ReadOnly(
        RocksDB db,
        Map<String, ColumnFamilyHandle> families,
        DBOptions options,
        List<ColumnFamilyHandle> handles,
        Path logDir) {
      this.db = db;
      this.families = families;
      this.options = options;
      this.handles = handles;
      this.logDir = logDir;
    }

    static ReadOnly open(Path store) throws RocksDBException {
      Path logDir;
      try {
        logDir = Files.createTempDirectory("switchboard-store-log");
      } catch (IOException e) {
        throw new IllegalStateException("cannot create a temporary directory: " + e, e);
      }
      List<byte[]> names;
      try (Options o = new Options().setDbLogDir(logDir.toString())) {
        names = RocksDB.listColumnFamilies(o, store.toString());
      } catch (RocksDBException e) {
        deleteTree(logDir);
        throw e;
      }
      if (names.stream().noneMatch(n -> Arrays.equals(n, RocksDB.DEFAULT_COLUMN_FAMILY))) {
        deleteTree(logDir);
        throw new RocksDBException(
            "Corruption: the MANIFEST in " + store + " lists no column families: it is damaged");
      }
      DBOptions options =
          new DBOptions()
              .setParanoidChecks(true)
              .setWalRecoveryMode(WALRecoveryMode.PointInTimeRecovery)
              .setDbLogDir(logDir.toString());
      List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
      for (byte[] n : names) {
        descriptors.add(
            new ColumnFamilyDescriptor(
                n,
                new org.rocksdb.ColumnFamilyOptions()
                    .setMergeOperator(RocksJournal.COUNTS_ADD))); // the index's counters
      }
      List<ColumnFamilyHandle> handles = new ArrayList<>();
      RocksDB db;
      try {
        db = RocksDB.openReadOnly(options, store.toString(), descriptors, handles);
      } catch (RocksDBException e) {
        options.close();
        deleteTree(logDir);
        throw e;
      }
      Map<String, ColumnFamilyHandle> families = new LinkedHashMap<>();
      for (int i = 0; i < names.size(); i++) {
        families.put(new String(names.get(i), StandardCharsets.UTF_8), handles.get(i));
      }
      return new ReadOnly(db, families, options, handles, logDir);
    }

    @Override
    public void close() {
      handles.forEach(ColumnFamilyHandle::close);
      db.close();
      options.close();
      deleteTree(logDir);
    }
  }

  /** The new store a salvage writes, with the source's column families. */
  private static final class Target implements AutoCloseable {
    final RocksDB db;
    final Map<String, ColumnFamilyHandle> families = new HashMap<>();
    private final DBOptions options;
    private final List<ColumnFamilyHandle> handles;

    private Target(RocksDB db, DBOptions options, List<ColumnFamilyHandle> handles) {
      this.db = db;
      this.options = options;
      this.handles = handles;
    }

    static Target create(Path dir, List<byte[]> names) throws RocksDBException {
      DBOptions options =
          new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
      List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
      for (byte[] n : names) {
        descriptors.add(
            new ColumnFamilyDescriptor(
                n,
                new org.rocksdb.ColumnFamilyOptions()
                    .setMergeOperator(RocksJournal.COUNTS_ADD))); // the index's counters
      }
      List<ColumnFamilyHandle> handles = new ArrayList<>();
      RocksDB db = RocksDB.open(options, dir.toString(), descriptors, handles);
      Target t = new Target(db, options, handles);
      for (int i = 0; i < names.size(); i++) {
        t.families.put(new String(names.get(i), StandardCharsets.UTF_8), handles.get(i));
      }
      return t;
    }

    void flush() throws RocksDBException {
      try (FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
        db.flush(f, handles);
      }
      db.syncWal();
    }

    @Override
    public void close() {
      handles.forEach(ColumnFamilyHandle::close);
      db.close();
      options.close();
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // a temporary directory: left for the system to clean
    }
  }
}
