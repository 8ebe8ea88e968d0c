package io.switchboard.server.config;

import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * An amount of memory as a setting gives it: a number of bytes ({@code 1048576}, {@code 64k},
 * {@code 512m}, {@code 2g}; binary units) or, where the setting allows it, a share of the JVM's
 * maximum heap ({@code 50%}), resolved when the server starts.
 *
 * @param bytes the bytes, when {@code percent} is 0
 * @param percent the share of the max heap, 1..100, or 0 for a number of bytes
 */
public record ByteAmount(long bytes, int percent) {

  public static ByteAmount ofBytes(long bytes) {
    return new ByteAmount(bytes, 0);
  }

  public static ByteAmount ofHeapPercent(int percent) {
    return new ByteAmount(0, percent);
  }

  /** The bytes meant, on a JVM whose maximum heap is {@code maxHeap} bytes. */
  public long resolve(long maxHeap) {
    return percent > 0 ? Math.max(1, maxHeap / 100 * percent) : bytes;
  }

  /**
   * Reads {@code 50%}, {@code 1048576}, {@code 64k}, {@code 512m}, {@code 2g}, {@code 1t} (case
   * ignored); null when the text is none of them.
   */
  static @Nullable ByteAmount parse(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.isEmpty()) {
      return null;
    }
    try {
      if (t.endsWith("%")) {
        return ofHeapPercent(Integer.parseInt(t.substring(0, t.length() - 1)));
      }
      long unit =
          switch (t.charAt(t.length() - 1)) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            case 'g' -> 1L << 30;
            case 't' -> 1L << 40;
            default -> 1;
          };
      String digits = unit == 1 ? t : t.substring(0, t.length() - 1);
      return ofBytes(Math.multiplyExact(Long.parseLong(digits), unit));
    } catch (NumberFormatException | ArithmeticException e) {
      return null;
    }
  }

  @Override
  public String toString() {
    if (percent > 0) {
      return percent + "%";
    }
    for (String[] u : new String[][] {{"t", "40"}, {"g", "30"}, {"m", "20"}, {"k", "10"}}) {
      long unit = 1L << Integer.parseInt(u[1]);
      if (bytes >= unit && bytes % unit == 0) {
        return bytes / unit + u[0];
      }
    }
    return Long.toString(bytes);
  }
}
