package io.switchboard.queue;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * A typed message attribute value: a string, a number, binary data, or (natively) a list of strings
 * such as skills. The data type keeps an optional custom label after a dot ({@code Number.int},
 * {@code String.json}), as SQS does, so values round-trip exactly.
 */
public sealed interface AttributeValue {

  /**
   * The data type as sent: {@code String}, {@code Number}, {@code Binary} or {@code StringList},
   */
  String dataType();

  /** Bytes this value counts against the maximum message size (type name plus value). */
  int sizeInBytes();

  static AttributeValue string(String value) {
    return new StringValue("String", value);
  }

  static AttributeValue number(String value) {
    return new NumberValue("Number", value);
  }

  static AttributeValue number(long value) {
    return new NumberValue("Number", Long.toString(value));
  }

  static AttributeValue binary(byte[] value) {
    return new BinaryValue("Binary", value);
  }

  static AttributeValue stringList(List<String> values) {
    return new StringListValue("StringList", values);
  }

  static AttributeValue stringList(String... values) {
    return stringList(List.of(values));
  }

  /** A text value. */
  record StringValue(String dataType, String value) implements AttributeValue {
    public StringValue {
      checkType(dataType, "String");
      Objects.requireNonNull(value, "value");
    }

    @Override
    public int sizeInBytes() {
      return dataType.length() + utf8Length(value);
    }
  }

  /**
   * A decimal number kept as the text sent, so it round-trips exactly; {@link #decimal()} is its
   * value without trailing zeros (so {@code 1} and {@code 1.0} are equal numbers). Up to 38
   * significant digits, as SQS allows.
   *
   * @param decimal derived from {@code value}; whatever is passed is ignored
   */
  record NumberValue(String dataType, String value, BigDecimal decimal) implements AttributeValue {
    private static final int MAX_DIGITS = 38;

    public NumberValue {
      checkType(dataType, "Number");
      Objects.requireNonNull(value, "value");
      try {
        decimal = new BigDecimal(value.trim());
      } catch (NumberFormatException e) {
        throw QueueException.invalid(
            "a Number attribute must be a decimal number, got '" + value + "'");
      }
      if (decimal.precision() > MAX_DIGITS) {
        throw QueueException.invalid(
            "a Number attribute may have at most 38 significant digits, got "
                + decimal.precision());
      }
      decimal = decimal.stripTrailingZeros();
    }

    public NumberValue(String dataType, String value) {
      this(dataType, value, BigDecimal.ZERO); // ignored: derived from value
    }

    /** The key under which the attribute index files this number. */
    BigDecimal key() {
      return decimal;
    }

    @Override
    public int sizeInBytes() {
      return dataType.length() + value.length();
    }
  }

  /** Opaque bytes. */
  record BinaryValue(String dataType, byte[] value) implements AttributeValue {
    public BinaryValue {
      checkType(dataType, "Binary");
      value = Objects.requireNonNull(value, "value").clone();
    }

    @Override
    public byte[] value() {
      return value.clone();
    }

    @Override
    public int sizeInBytes() {
      return dataType.length() + value.length;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof BinaryValue b
          && dataType.equals(b.dataType)
          && Arrays.equals(value, b.value);
    }

    @Override
    public int hashCode() {
      return dataType.hashCode() * 31 + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
      return "BinaryValue[" + dataType + ", " + HexFormat.of().formatHex(value) + "]";
    }
  }

  /** A list of strings, such as an agent's skills. Natively only; SQS has no list type. */
  record StringListValue(String dataType, List<String> value) implements AttributeValue {
    public StringListValue {
      checkType(dataType, "StringList");
      value = List.copyOf(value);
    }

    @Override
    public int sizeInBytes() {
      int size = dataType.length();
      for (String s : value) {
        size += utf8Length(s);
      }
      return size;
    }
  }

  private static void checkType(String dataType, String base) {
    Objects.requireNonNull(dataType, "dataType");
    if (!dataType.equals(base)
        && !(dataType.startsWith(base + ".") && dataType.length() > base.length() + 1)) {
      throw QueueException.invalid(
          "attribute data type must be '"
              + base
              + "' or '"
              + base
              + ".<label>', got '"
              + dataType
              + "'");
    }
    if (dataType.length() > 256) {
      throw QueueException.invalid(
          "attribute data type must be at most 256 characters, got " + dataType.length());
    }
  }

  /**
   * The length of {@code s} in UTF-8, in bytes; an ASCII string (the usual case) is not encoded to
   * find it.
   */
  public static int utf8Length(String s) {
    int length = s.length();
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) >= 0x80) {
        return s.getBytes(StandardCharsets.UTF_8).length;
      }
    }
    return length;
  }
}
