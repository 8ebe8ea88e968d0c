package io.switchboard.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * A growable big-endian byte writer and a matching reader: the raw material of the embedded store's
 * codec and of the router's record codec. Internal to Switchboard: public only so that core's
 * packages and the store modules can share it; not an API.
 */
public final class Bytes {

  private Bytes() {}

  /** Appends primitives and strings. */
  public static final class Writer {
    private byte[] buf;
    private int len;

    public Writer(int capacity) {
      buf = new byte[Math.max(16, capacity)];
    }

    private void ensure(int n) {
      if (len + n > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + n));
      }
    }

    public Writer b(int v) {
      ensure(1);
      buf[len++] = (byte) v;
      return this;
    }

    public Writer i(int v) {
      ensure(4);
      buf[len++] = (byte) (v >>> 24);
      buf[len++] = (byte) (v >>> 16);
      buf[len++] = (byte) (v >>> 8);
      buf[len++] = (byte) v;
      return this;
    }

    public Writer l(long v) {
      i((int) (v >>> 32));
      return i((int) v);
    }

    public Writer bytes(byte[] v) {
      i(v.length);
      ensure(v.length);
      System.arraycopy(v, 0, buf, len, v.length);
      len += v.length;
      return this;
    }

    public Writer raw(byte[] v) {
      ensure(v.length);
      System.arraycopy(v, 0, buf, len, v.length);
      len += v.length;
      return this;
    }

    /** A string, or null (length -1). */
    public Writer s(@Nullable String v) {
      if (v == null) {
        return i(-1);
      }
      return bytes(v.getBytes(StandardCharsets.UTF_8));
    }

    public byte[] toArray() {
      return Arrays.copyOf(buf, len);
    }
  }

  /** Reads what a {@link Writer} wrote, in the same order. */
  public static final class Reader {
    private final byte[] buf;
    private int pos;

    public Reader(byte[] buf) {
      this.buf = buf;
    }

    public int b() {
      return buf[pos++];
    }

    public int i() {
      int v =
          ((buf[pos] & 0xFF) << 24)
              | ((buf[pos + 1] & 0xFF) << 16)
              | ((buf[pos + 2] & 0xFF) << 8)
              | (buf[pos + 3] & 0xFF);
      pos += 4;
      return v;
    }

    public long l() {
      return ((long) i() << 32) | (i() & 0xFFFFFFFFL);
    }

    /** How many bytes were read so far: the offset of the next one. */
    public int position() {
      return pos;
    }

    public byte[] bytes() {
      int n = i();
      byte[] v = Arrays.copyOfRange(buf, pos, pos + n);
      pos += n;
      return v;
    }

    public @Nullable String s() {
      return s(null);
    }

    /** A string that was written non-null; a record with null there is corrupt. */
    public String text() {
      String v = s(null);
      if (v == null) {
        throw new IllegalStateException("a stored record has no value where a string is required");
      }
      return v;
    }

    /** As {@link #text()}, through {@code strings} (when not null) if it is one that recurs. */
    public String text(@Nullable Strings strings) {
      String v = s(strings);
      if (v == null) {
        throw new IllegalStateException("a stored record has no value where a string is required");
      }
      return v;
    }

    /** A string, or null; through {@code strings} (when not null) if it is one that recurs. */
    public @Nullable String s(@Nullable Strings strings) {
      int n = i();
      if (n < 0) {
        return null;
      }
      String v =
          strings == null
              ? new String(buf, pos, n, StandardCharsets.UTF_8)
              : strings.decode(buf, pos, n);
      pos += n;
      return v;
    }

    public boolean done() {
      return pos == buf.length;
    }
  }

  /**
   * Decodes each short string once while a store is loaded. A million messages carry a few dozen
   * distinct attribute names, types and values and group ids; decoding them into a new {@code
   * String} each time was a fifth of recovery. A direct-mapped table keyed by the bytes (no
   * allocation on a hit); a collision only costs a decode. Not thread-safe: one per load.
   */
  public static final class Strings {
    private static final int SLOTS = 1 << 12;
    private static final int MAX_LENGTH = 64;
    private final byte[][] keys = new byte[SLOTS][];
    private final String[] values = new String[SLOTS];

    public String decode(byte[] buf, int off, int n) {
      if (n > MAX_LENGTH) {
        return new String(buf, off, n, StandardCharsets.UTF_8);
      }
      int h = n;
      for (int i = off; i < off + n; i++) {
        h = 31 * h + buf[i];
      }
      int slot = (h ^ (h >>> 16)) & (SLOTS - 1);
      byte[] key = keys[slot];
      if (key != null && Arrays.equals(key, 0, key.length, buf, off, off + n)) {
        return values[slot];
      }
      String v = new String(buf, off, n, StandardCharsets.UTF_8);
      keys[slot] = Arrays.copyOfRange(buf, off, off + n);
      values[slot] = v;
      return v;
    }
  }
}
