package io.switchboard.bench.dynamodb;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The size of an item as DynamoDB bills it ("DynamoDB item sizes and formats", the developer
 * guide's CapacityUnitCalculations page): the UTF-8 length of each attribute name plus its value's
 * size, where a string is its UTF-8 bytes, a binary its raw bytes (not the base64 sent), a number
 * one byte per two significant digits (leading and trailing zeroes trimmed) plus one, a Boolean or
 * null one byte, a set the sum of its elements, and a list or map 3 bytes plus, per element, its
 * size and one byte (a map's element names counted like attribute names).
 *
 * <p>And the units: a write is billed per started 1 KB of the item written, a read per started 4
 * KB, half that when eventually consistent.
 */
public final class ItemSize {

  /** One write unit covers this many bytes of an item. */
  public static final int WRITE_UNIT_BYTES = 1024;

  /** One read unit (strongly consistent) covers this many bytes. */
  public static final int READ_UNIT_BYTES = 4096;

  private ItemSize() {}

  /** The billed size of a whole item (0 for none). */
  public static long of(@Nullable Map<String, AttributeValue> item) {
    if (item == null) {
      return 0;
    }
    long size = 0;
    for (Map.Entry<String, AttributeValue> e : item.entrySet()) {
      size += utf8(e.getKey()) + value(e.getValue());
    }
    return size;
  }

  /** The billed size of one value, without its name. */
  public static long value(AttributeValue v) {
    return switch (v.type()) {
      case S -> utf8(v.s());
      case N -> number(v.n());
      case B -> v.b().asByteArrayUnsafe().length;
      case BOOL, NUL -> 1;
      case SS -> v.ss().stream().mapToLong(ItemSize::utf8).sum();
      case NS -> v.ns().stream().mapToLong(ItemSize::number).sum();
      case BS -> v.bs().stream().mapToLong(b -> b.asByteArrayUnsafe().length).sum();
      case L -> 3 + v.l().stream().mapToLong(e -> value(e) + 1).sum();
      case M ->
          3
              + v.m().entrySet().stream()
                  .mapToLong(e -> utf8(e.getKey()) + value(e.getValue()) + 1)
                  .sum();
      case UNKNOWN_TO_SDK_VERSION ->
          throw new IllegalArgumentException("an attribute value of no known type: " + v);
    };
  }

  /**
   * A number's size: one byte per two significant digits (leading and trailing zeroes trimmed,
   * rounded up) and one byte.
   */
  public static long number(String n) {
    String digits = new BigDecimal(n).unscaledValue().abs().toString();
    int end = digits.length();
    while (end > 1 && digits.charAt(end - 1) == '0') {
      end--;
    }
    int significant = digits.equals("0") ? 1 : end;
    return (significant + 1) / 2 + 1;
  }

  /** Write units for a write of an item of {@code bytes}: per started 1 KB, at least one. */
  public static long writeUnits(long bytes) {
    return Math.max(1, (bytes + WRITE_UNIT_BYTES - 1) / WRITE_UNIT_BYTES);
  }

  /**
   * Read units for reading {@code bytes} in one request (a whole query's items summed first): per
   * started 4 KB, at least one; half when eventually consistent.
   */
  public static double readUnits(long bytes, boolean consistent) {
    long units = Math.max(1, (bytes + READ_UNIT_BYTES - 1) / READ_UNIT_BYTES);
    return consistent ? units : units / 2.0;
  }

  static long utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }
}
