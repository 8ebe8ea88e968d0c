package io.switchboard.client.wire;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Instants as the wire carries them, {@link Instant#toString()}'s ISO-8601 ({@code
 * 2026-11-26T08:15:30.123Z}), written and read without {@code DateTimeFormatter} for the usual
 * ones: a receive's answer carries three or four per message, and formatting and parsing them
 * through {@code java.time.format} was the largest single cost of reading that answer
 * (docs/bench-history/native-e2e.md). The text is exactly {@link Instant#toString()}'s and the
 * instant exactly {@link Instant#parse}'s; anything outside the usual form (before 1970 or after
 * 9999 when written; lower case, an offset, a leap second and the like when read) goes through
 * {@code java.time} as before.
 */
final class InstantText {

  /** 10000-01-01T00:00:00Z: from here on {@link Instant#toString()} writes a {@code +} year. */
  private static final long END_OF_9999 = 253_402_300_800L;

  private static final int SECONDS_PER_DAY = 86_400;

  /** Days from 0000-03-01 to 1970-01-01 in the proleptic Gregorian calendar. */
  private static final long EPOCH_SHIFT = 719_468;

  private static final int DAYS_PER_ERA = 146_097;

  private InstantText() {}

  /** {@code t.toString()}. */
  static String format(Instant t) {
    long epochSecond = t.getEpochSecond();
    if (epochSecond < 0 || epochSecond >= END_OF_9999) {
      return t.toString();
    }
    int nano = t.getNano();
    long days = epochSecond / SECONDS_PER_DAY;
    int secondOfDay = (int) (epochSecond % SECONDS_PER_DAY);
    // civil date from days since 1970-01-01 (H. Hinnant's algorithm; days >= 0 here)
    long z = days + EPOCH_SHIFT;
    long era = z / DAYS_PER_ERA;
    long dayOfEra = z - era * DAYS_PER_ERA;
    long yearOfEra =
        (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / (DAYS_PER_ERA - 1)) / 365;
    long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    long shiftedMonth = (5 * dayOfYear + 2) / 153;
    int day = (int) (dayOfYear - (153 * shiftedMonth + 2) / 5 + 1);
    int month = (int) (shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9);
    int year = (int) (yearOfEra + era * 400 + (month <= 2 ? 1 : 0));

    int fraction = nano == 0 ? 0 : nano % 1_000_000 == 0 ? 3 : nano % 1_000 == 0 ? 6 : 9;
    byte[] out = new byte[20 + (fraction == 0 ? 0 : fraction + 1)];
    digits(out, 0, year, 4);
    out[4] = '-';
    digits(out, 5, month, 2);
    out[7] = '-';
    digits(out, 8, day, 2);
    out[10] = 'T';
    digits(out, 11, secondOfDay / 3600, 2);
    out[13] = ':';
    digits(out, 14, secondOfDay / 60 % 60, 2);
    out[16] = ':';
    digits(out, 17, secondOfDay % 60, 2);
    int at = 19;
    if (fraction > 0) {
      out[at++] = '.';
      int value = fraction == 3 ? nano / 1_000_000 : fraction == 6 ? nano / 1_000 : nano;
      digits(out, at, value, fraction);
      at += fraction;
    }
    out[at] = 'Z';
    return new String(out, StandardCharsets.ISO_8859_1);
  }

  /**
   * The instant of {@code text} in the form {@link #format} writes ({@code
   * yyyy-MM-ddTHH:mm:ss[.f{1,9}]Z}, a valid date and time), or null for anything else, which the
   * caller reads with {@link Instant#parse} (and its errors).
   */
  static @Nullable Instant parse(String text) {
    int n = text.length();
    if (n < 20
        || n == 21
        || n > 30
        || text.charAt(4) != '-'
        || text.charAt(7) != '-'
        || text.charAt(10) != 'T'
        || text.charAt(13) != ':'
        || text.charAt(16) != ':'
        || text.charAt(n - 1) != 'Z') {
      return null;
    }
    int year = number(text, 0, 4);
    int month = number(text, 5, 2);
    int day = number(text, 8, 2);
    int hour = number(text, 11, 2);
    int minute = number(text, 14, 2);
    int second = number(text, 17, 2);
    if (year < 0
        || month < 1
        || month > 12
        || day < 1
        || day > monthLength(year, month)
        || hour < 0
        || hour > 23
        || minute < 0
        || minute > 59
        || second < 0
        || second > 59) {
      return null;
    }
    int nano = 0;
    if (n > 20) {
      if (text.charAt(19) != '.') {
        return null;
      }
      int count = n - 21;
      nano = number(text, 20, count);
      if (nano < 0) {
        return null;
      }
      for (int i = count; i < 9; i++) {
        nano *= 10;
      }
    }
    // days since 1970-01-01 of a civil date (H. Hinnant's algorithm)
    long y = month <= 2 ? year - 1 : year;
    long era = Math.floorDiv(y, 400);
    long yearOfEra = y - era * 400;
    long dayOfYear = (153L * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
    long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    long days = era * DAYS_PER_ERA + dayOfEra - EPOCH_SHIFT;
    return Instant.ofEpochSecond(
        days * SECONDS_PER_DAY + hour * 3600L + minute * 60L + second, nano);
  }

  private static int monthLength(int year, int month) {
    return switch (month) {
      case 2 -> (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28;
      case 4, 6, 9, 11 -> 30;
      default -> 31;
    };
  }

  /** The decimal number of {@code count} ASCII digits at {@code at}, or -1 if one is not. */
  private static int number(String text, int at, int count) {
    int value = 0;
    for (int i = at; i < at + count; i++) {
      int d = text.charAt(i) - '0';
      if (d < 0 || d > 9) {
        return -1;
      }
      value = value * 10 + d;
    }
    return value;
  }

  private static void digits(byte[] out, int at, int value, int count) {
    for (int i = at + count - 1; i >= at; i--) {
      out[i] = (byte) ('0' + value % 10);
      value /= 10;
    }
  }
}
