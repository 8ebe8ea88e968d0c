package io.switchboard.storage.rocksdb;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * Reads RocksDB's write-ahead logs ({@code *.log} in a store's directory) before RocksDB recovers
 * them, to say what recovery will drop. RocksDB runs in point-in-time recovery mode: it replays a
 * log up to its first bad record and silently drops the rest. That is right for the one kind of
 * damage a crash makes, a last record that was being written (a torn tail: cut short or with a
 * checksum that does not match, and nothing valid after it); this check logs what that drops. A bad
 * record <em>followed by good ones</em> is not a crash but damage, and recovering past it would
 * silently drop writes that were acknowledged: that is refused, naming the log file.
 *
 * <p>The format is RocksDB's log format: 32 KiB blocks of records with a 7-byte header (masked
 * CRC32C of type and payload, length, type: full, first, middle, last); each logical record is a
 * write batch that starts with its sequence number and count.
 */
final class WalCheck {

  private static final int BLOCK = 32 * 1024;
  private static final int HEADER = 7;
  private static final int FULL = 1;
  private static final int FIRST = 2;
  private static final int MIDDLE = 3;
  private static final int LAST = 4;
  private static final int MASK_DELTA = 0xa282ead8;

  private WalCheck() {}

  /** How one log file ends. */
  enum Ending {
    /** Every record is whole. */
    CLEAN,
    /** The last record is incomplete or bad, with nothing valid after it: a crash's torn tail. */
    TORN,
    /** A bad record with valid records after it: damage. */
    DAMAGED,
    /** A record of a kind this check does not know; not judged. */
    UNKNOWN
  }

  /**
   * One log file read.
   *
   * @param goodBytes bytes up to the end of the last whole write before any problem
   * @param writes whole writes (batches) before any problem
   * @param lastSequence the last sequence number of those writes (0 if none)
   * @param droppedBytes bytes after {@code goodBytes}, which recovery drops
   * @param validAfter whole writes found after the bad record (lost if recovered past; DAMAGED)
   * @param why what is wrong at {@code goodBytes}, or empty
   */
  record Scan(
      Path file,
      Ending ending,
      long goodBytes,
      long writes,
      long lastSequence,
      long droppedBytes,
      long validAfter,
      String why) {

    /** One sentence for the log and for {@code store verify}. */
    String describe() {
      return switch (ending) {
        case CLEAN, UNKNOWN -> file.getFileName() + ": " + writes + " writes, whole";
        case TORN ->
            "write-ahead log "
                + file
                + " ends in an incomplete write ("
                + why
                + "): recovery keeps its "
                + writes
                + " whole writes (up to sequence "
                + lastSequence
                + ") and drops the last "
                + droppedBytes
                + " bytes, a write that a crash interrupted (a send in it was not acknowledged in"
                + " sync durability)";
        case DAMAGED ->
            "write-ahead log "
                + file
                + " is damaged at byte "
                + goodBytes
                + " ("
                + why
                + "), with "
                + validAfter
                + " whole writes after it that recovery would drop";
      };
    }
  }

  /**
   * Reads every log in {@code dir} before the store opens.
   *
   * @return one warning per log with a torn tail (what recovery drops), for the log
   * @throws StoreDamagedException when a log is damaged
   */
  static List<String> beforeOpen(Path dir) {
    List<String> warnings = new ArrayList<>();
    for (Scan s : scanAll(dir)) {
      if (s.ending() == Ending.DAMAGED) {
        throw new StoreDamagedException(dataDirOf(dir), dir, s.describe(), null);
      }
      if (s.ending() == Ending.TORN) {
        warnings.add(s.describe());
      }
    }
    return warnings;
  }

  /** The data directory that holds {@code store} (its parent for the routing store). */
  static Path dataDirOf(Path store) {
    Path name = store.getFileName();
    return name != null && name.toString().equals("routing") && store.getParent() != null
        ? store.getParent()
        : store;
  }

  /** Scans every {@code *.log} in {@code dir}, in file-number order. */
  static List<Scan> scanAll(Path dir) {
    List<Path> logs;
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      logs =
          files.filter(p -> p.getFileName().toString().matches("[0-9]+\\.log")).sorted().toList();
    } catch (IOException e) {
      throw new IllegalStateException("cannot list " + dir + ": " + e, e);
    }
    List<Scan> scans = new ArrayList<>();
    for (Path log : logs) {
      try (FileChannel channel = FileChannel.open(log, StandardOpenOption.READ)) {
        if (channel.size() > Integer.MAX_VALUE) {
          scans.add(new Scan(log, Ending.UNKNOWN, 0, 0, 0, 0, 0, "larger than 2 GiB, not read"));
          continue;
        }
        // mapped, not read into the heap: a log can be hundreds of megabytes
        scans.add(scan(log, channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size())));
      } catch (IOException e) {
        throw new IllegalStateException("cannot read write-ahead log " + log + ": " + e, e);
      }
    }
    return scans;
  }

  /** Reads one log's bytes. */
  static Scan scan(Path file, ByteBuffer data) {
    ByteBuffer buf = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int size = buf.limit();
    int pos = 0;
    long writes = 0;
    long lastSequence = 0;
    long good = 0;
    java.io.ByteArrayOutputStream fragments = null;
    while (pos < size) {
      int leftInBlock = BLOCK - pos % BLOCK;
      if (leftInBlock < HEADER) {
        pos += leftInBlock; // block trailer: zero padding
        continue;
      }
      if (size - pos < HEADER) {
        return torn(file, writes, lastSequence, good, size, "a record header cut short");
      }
      int stored = buf.getInt(pos);
      int length = Short.toUnsignedInt(buf.getShort(pos + 4));
      int type = Byte.toUnsignedInt(buf.get(pos + 6));
      if (type == 0 && length == 0) {
        // preallocated space never written: the end of what was written
        return new Scan(file, Ending.CLEAN, good, writes, lastSequence, 0, 0, "");
      }
      if ((type & 0x80) != 0) {
        pos += HEADER + length; // a record kind RocksDB marks as safe to ignore
        continue;
      }
      if (type < FULL || type > LAST) {
        return new Scan(file, Ending.UNKNOWN, good, writes, lastSequence, 0, 0, "type " + type);
      }
      if (pos + HEADER + length > size) {
        return torn(file, writes, lastSequence, good, size, "the last record is cut short");
      }
      if (crc(buf, pos, length) != stored) {
        long after = countValidAfter(buf, size, pos + HEADER + length);
        String why = "checksum mismatch in the record at byte " + pos;
        if (after == 0) {
          return torn(file, writes, lastSequence, good, size, why);
        }
        return new Scan(file, Ending.DAMAGED, good, writes, lastSequence, size - good, after, why);
      }
      int payload = pos + HEADER;
      pos = payload + length;
      switch (type) {
        case FULL -> {
          if (length >= 12) {
            lastSequence = buf.getLong(payload) + Math.max(0, buf.getInt(payload + 8) - 1);
          }
          writes++;
          good = pos;
          fragments = null;
        }
        case FIRST -> {
          fragments = new java.io.ByteArrayOutputStream();
          fragments.write(bytes(buf, payload, length), 0, length);
        }
        case MIDDLE -> {
          if (fragments != null) {
            fragments.write(bytes(buf, payload, length), 0, length);
          }
        }
        default -> { // LAST
          if (fragments != null) {
            fragments.write(bytes(buf, payload, length), 0, length);
            byte[] batch = fragments.toByteArray();
            if (batch.length >= 12) {
              ByteBuffer b = ByteBuffer.wrap(batch).order(ByteOrder.LITTLE_ENDIAN);
              lastSequence = b.getLong(0) + Math.max(0, b.getInt(8) - 1);
            }
            writes++;
            good = pos;
          }
          fragments = null;
        }
      }
    }
    if (fragments != null) {
      return torn(file, writes, lastSequence, good, size, "the last write is cut short");
    }
    return new Scan(file, Ending.CLEAN, good, writes, lastSequence, 0, 0, "");
  }

  private static Scan torn(
      Path file, long writes, long lastSequence, long good, long size, String why) {
    return new Scan(file, Ending.TORN, good, writes, lastSequence, size - good, 0, why);
  }

  /**
   * Whole records (full or last fragments with a good checksum) from the next block boundary after
   * {@code from}: what a recovery that stops at a bad record would drop.
   */
  private static long countValidAfter(ByteBuffer buf, int size, int from) {
    int pos = from;
    long count = 0;
    while (pos + HEADER <= size) {
      int leftInBlock = BLOCK - pos % BLOCK;
      if (leftInBlock < HEADER) {
        pos += leftInBlock;
        continue;
      }
      int stored = buf.getInt(pos);
      int length = Short.toUnsignedInt(buf.getShort(pos + 4));
      int type = Byte.toUnsignedInt(buf.get(pos + 6));
      if (type == 0 && length == 0) {
        break;
      }
      boolean fits = pos + HEADER + length <= size;
      if (fits && type >= FULL && type <= LAST && crc(buf, pos, length) == stored) {
        if (type == FULL || type == LAST) {
          count++;
        }
        pos += HEADER + length;
      } else {
        pos += leftInBlock; // resynchronise at the next block
      }
    }
    return count;
  }

  /** The masked CRC32C of the type byte and payload of the record at {@code pos}. */
  private static int crc(ByteBuffer buf, int pos, int length) {
    CRC32C crc = new CRC32C();
    crc.update(buf.slice(pos + 6, 1 + length));
    return mask((int) crc.getValue());
  }

  private static byte[] bytes(ByteBuffer buf, int from, int length) {
    byte[] out = new byte[length];
    buf.get(from, out);
    return out;
  }

  private static int mask(int crc) {
    return ((crc >>> 15) | (crc << 17)) + MASK_DELTA;
  }
}
