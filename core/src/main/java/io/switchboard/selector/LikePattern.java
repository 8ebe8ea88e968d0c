package io.switchboard.selector;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A LIKE pattern compiled once, at parse time, into the segments between its {@code %} signs.
 *
 * <p>Matching needs no backtracking. Each segment matches a fixed number of code points ({@code _}
 * is one of them), so the first segment must match at the start, the last at the end, and each
 * middle one is best taken at its leftmost occurrence after the previous one: any later occurrence
 * only leaves less room for the rest. A match therefore costs one scan per segment: linear for
 * segments without {@code _} (they use {@link String#indexOf}), at most text × segment length for
 * the others. {@code '%a%a%a%b'} against a long run of {@code a} stays linear, where a regular
 * expression engine would backtrack.
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
  private record Segment(int[] codePoints, String literal) {

    static Segment of(List<Integer> codePoints) {
      int[] array = codePoints.stream().mapToInt(Integer::intValue).toArray();
      boolean plain = codePoints.stream().noneMatch(c -> c == ANY_ONE);
      return new Segment(array, plain ? new String(array, 0, array.length) : null);
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
      if (literal != null) {
        int start = text.indexOf(literal, from);
        return start < 0 || start + literal.length() > limit ? -1 : start + literal.length();
      }
      for (int start = from;
          start <= limit;
          start += Character.charCount(text.codePointAt(start))) {
        int end = matchAt(text, start, limit);
        if (end >= 0 || start == limit) {
          return end;
        }
      }
      return -1;
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
}
