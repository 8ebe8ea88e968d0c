package io.switchboard.selector;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A LIKE pattern compiled once, at parse time, into the segments between its {@code %} signs.
 *
 * <p>Matching needs no backtracking. Each segment matches a fixed number of code points ({@code _}
 * is one of them), so the first segment must match at the start, the last at the end, and each
 * middle one is best taken at its leftmost occurrence after the previous one: any later occurrence
 * only leaves less room for the rest. The middle searches continue where the previous one ended, so
 * together they read the text once.
 *
 * <p>One search costs at most {@code n × ⌈c / 64⌉} word operations for a text of {@code n} code
 * points and a segment whose <em>core</em> (the segment without its leading and trailing {@code _})
 * is {@code c} code points long: {@code _} at either end only shifts where the core may start or
 * end, and the core is found with the bit-parallel Shift-And algorithm (Baeza-Yates and Gonnet, "A
 * new approach to text searching", CACM 35(10), 1992), which treats {@code _} inside it as a
 * position every character satisfies. A short plain core (64 characters or fewer) uses {@link
 * String#indexOf} instead, at most {@code 64 n} comparisons and usually far fewer. Selectors are at
 * most 4 KiB, so {@code ⌈c / 64⌉ ≤ 64}: a match is linear in the text with a bounded factor, {@code
 * '%a%a%a%b'} and {@code '%' + 4,000 × '_' + 'X%'} against a megabyte included, where a
 * backtracking or naive matcher takes {@code n × m}.
 */
final class LikePattern {

  private static final int ANY_ONE = -1;

  private final Segment[] segments;

  private LikePattern(Segment[] segments) {
    this.segments = segments;
  }

  /**
   * Compiles {@code pattern}, in which {@code escape} (one code point, when present) makes the next
   * {@code %}, {@code _} or escape character literal.
   *
   * @throws IllegalArgumentException for an escape string longer than one character, or an escape
   *     character followed by anything else
   */
  static LikePattern compile(String pattern, Optional<String> escape) {
    int escapeChar = escape.map(LikePattern::escapeCodePoint).orElse(-2);
    List<Segment> segments = new ArrayList<>();
    List<Integer> current = new ArrayList<>();
    for (int i = 0; i < pattern.length(); ) {
      int c = pattern.codePointAt(i);
      i += Character.charCount(c);
      if (c == escapeChar) {
        int next = i < pattern.length() ? pattern.codePointAt(i) : -1;
        if (next != '%' && next != '_' && next != escapeChar) {
          throw new IllegalArgumentException(badEscape(escapeChar, next));
        }
        current.add(next);
        i += Character.charCount(next);
      } else if (c == '%') {
        segments.add(Segment.of(current));
        current.clear();
      } else {
        current.add(c == '_' ? ANY_ONE : c);
      }
    }
    segments.add(Segment.of(current));
    return new LikePattern(segments.toArray(Segment[]::new));
  }

  private static int escapeCodePoint(String escape) {
    if (escape.isEmpty() || escape.codePointCount(0, escape.length()) != 1) {
      throw new IllegalArgumentException(
          "expected a one-character string after ESCAPE, found string '" + escape + "'");
    }
    return escape.codePointAt(0);
  }

  private static String badEscape(int escapeChar, int next) {
    String escape = Character.toString(escapeChar);
    return "expected '%', '_' or '"
        + escape
        + "' after the escape character '"
        + escape
        + "' in the LIKE pattern, found "
        + (next < 0 ? "end of pattern" : "'" + Character.toString(next) + "'");
  }

  boolean matches(String text) {
    Segment first = segments[0];
    if (segments.length == 1) {
      return first.matchAt(text, 0, text.length()) == text.length();
    }
    int position = first.matchAt(text, 0, text.length());
    if (position < 0) {
      return false;
    }
    Segment last = segments[segments.length - 1];
    int tailStart = last.startOfSuffix(text, position);
    if (tailStart < 0 || last.matchAt(text, tailStart, text.length()) < 0) {
      return false;
    }
    for (int i = 1; i < segments.length - 1 && position >= 0; i++) {
      position = segments[i].find(text, position, tailStart);
    }
    return position >= 0;
  }

  /** Code points to match one by one ({@link #ANY_ONE} for {@code _}), between two {@code %}. */
  private static final class Segment {

    private static final int INDEX_OF_MAX = 64;

    private final int[] codePoints;

    /** How many {@code _} the segment starts and ends with; the core lies between them. */
    private final int lead;

    private final int trail;

    /** The core as a string when it has no {@code _} and is short: found with indexOf. */
    private final @Nullable String plainCore;

    /** The core's Shift-And masks, when it is not found with indexOf. */
    private final @Nullable CoreMasks masks;

    private Segment(int[] codePoints) {
      this.codePoints = codePoints;
      int lead = 0;
      while (lead < codePoints.length && codePoints[lead] == ANY_ONE) {
        lead++;
      }
      int trail = 0;
      while (trail < codePoints.length - lead
          && codePoints[codePoints.length - 1 - trail] == ANY_ONE) {
        trail++;
      }
      this.lead = lead;
      this.trail = trail;
      int[] core = java.util.Arrays.copyOfRange(codePoints, lead, codePoints.length - trail);
      String plain = null;
      if (core.length > 0 && java.util.Arrays.stream(core).noneMatch(c -> c == ANY_ONE)) {
        String literal = new String(core, 0, core.length);
        plain = literal.length() <= INDEX_OF_MAX ? literal : null;
      }
      this.plainCore = plain;
      this.masks = core.length == 0 || plain != null ? null : new CoreMasks(core);
    }

    static Segment of(List<Integer> codePoints) {
      return new Segment(codePoints.stream().mapToInt(Integer::intValue).toArray());
    }

    /** The end of this segment matched at {@code from}, not passing {@code limit}, or -1. */
    int matchAt(String text, int from, int limit) {
      int position = from;
      for (int expected : codePoints) {
        if (position >= limit) {
          return -1;
        }
        int actual = text.codePointAt(position);
        if (expected != ANY_ONE && expected != actual) {
          return -1;
        }
        position += Character.charCount(actual);
      }
      return position;
    }

    /** The end of the leftmost match at or after {@code from} that ends by {@code limit}, or -1. */
    int find(String text, int from, int limit) {
      int coreStart = skip(text, from, lead, limit);
      if (coreStart < 0) {
        return -1;
      }
      int coreEnd;
      if (plainCore != null) {
        int start = text.indexOf(plainCore, coreStart);
        coreEnd = start < 0 ? -1 : start + plainCore.length();
      } else if (masks != null) {
        coreEnd = masks.findEnd(text, coreStart, limit);
      } else {
        coreEnd = coreStart; // only _: it matches right away
      }
      if (coreEnd < 0 || coreEnd > limit) {
        return -1;
      }
      return skip(text, coreEnd, trail, limit);
    }

    /** The position {@code count} code points after {@code from}, or -1 past {@code limit}. */
    private static int skip(String text, int from, int count, int limit) {
      int position = from;
      for (int i = 0; i < count; i++) {
        if (position >= limit) {
          return -1;
        }
        position += Character.charCount(text.codePointAt(position));
      }
      return position;
    }

    /** Where this segment must start to end the text, not before {@code from}; -1 if too short. */
    int startOfSuffix(String text, int from) {
      int position = text.length();
      for (int i = 0; i < codePoints.length; i++) {
        if (position <= from) {
          return -1;
        }
        boolean pair =
            position - 2 >= from
                && Character.isLowSurrogate(text.charAt(position - 1))
                && Character.isHighSurrogate(text.charAt(position - 2));
        position -= pair ? 2 : 1;
      }
      return position;
    }
  }

  /**
   * Shift-And over a core of {@code length} code points: bit {@code i} of the state says whether
   * the last {@code i + 1} code points read match the core's first {@code i + 1}. Each code point
   * read shifts the state by one and keeps the bits its mask allows; a {@code _} position is in
   * every mask. The core starts and ends with a literal, so {@code length ≥ 1}.
   */
  private static final class CoreMasks {

    private static final int ASCII = 128;

    private final int length;
    private final int words;
    private final long[][] ascii = new long[ASCII][];
    private final int[] others;
    private final long[][] otherMasks;
    private final long[] wildcards;

    CoreMasks(int[] core) {
      this.length = core.length;
      this.words = (core.length + 63) >>> 6;
      this.wildcards = new long[words];
      java.util.TreeMap<Integer, long[]> byCodePoint = new java.util.TreeMap<>();
      for (int i = 0; i < core.length; i++) {
        if (core[i] == ANY_ONE) {
          wildcards[i >>> 6] |= 1L << i;
        } else {
          byCodePoint.computeIfAbsent(core[i], c -> new long[words])[i >>> 6] |= 1L << i;
        }
      }
      byCodePoint
          .values()
          .forEach(
              mask -> {
                for (int w = 0; w < words; w++) {
                  mask[w] |= wildcards[w];
                }
              });
      this.others =
          byCodePoint.keySet().stream().filter(c -> c >= ASCII).mapToInt(c -> c).toArray();
      this.otherMasks = new long[others.length][];
      for (int i = 0; i < others.length; i++) {
        otherMasks[i] = byCodePoint.get(others[i]);
      }
      byCodePoint.headMap(ASCII).forEach((c, mask) -> ascii[c] = mask);
    }

    private long[] maskOf(int c) {
      if (c < ASCII) {
        long[] mask = ascii[c];
        return mask == null ? wildcards : mask;
      }
      int i = java.util.Arrays.binarySearch(others, c);
      return i < 0 ? wildcards : otherMasks[i];
    }

    /** The end of the leftmost occurrence starting at or after {@code from}, or -1 by limit. */
    int findEnd(String text, int from, int limit) {
      return words == 1 ? findEndOneWord(text, from, limit) : findEndWords(text, from, limit);
    }

    private int findEndOneWord(String text, int from, int limit) {
      long found = 1L << (length - 1);
      long state = 0;
      for (int position = from; position < limit; ) {
        int c = text.codePointAt(position);
        position += Character.charCount(c);
        state = ((state << 1) | 1L) & maskOf(c)[0];
        if ((state & found) != 0) {
          return position;
        }
      }
      return -1;
    }

    private int findEndWords(String text, int from, int limit) {
      int last = (length - 1) >>> 6;
      long found = 1L << ((length - 1) & 63);
      long[] state = new long[words];
      for (int position = from; position < limit; ) {
        int c = text.codePointAt(position);
        position += Character.charCount(c);
        long[] mask = maskOf(c);
        for (int w = words - 1; w > 0; w--) {
          state[w] = ((state[w] << 1) | (state[w - 1] >>> 63)) & mask[w];
        }
        state[0] = ((state[0] << 1) | 1L) & mask[0];
        if ((state[last] & found) != 0) {
          return position;
        }
      }
      return -1;
    }
  }
}
