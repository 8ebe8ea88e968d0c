package io.switchboard.queue.spi;

import io.switchboard.queue.AttributeValue;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The canonical encoding of a message's attribute partition (docs/design.md, "The hot window of
 * attribute partitions"): its values of the queue's indexed attributes, in the attributes' name
 * order, one after another. A store files an available message's key in its partition's line under
 * it, and counts each partition's available messages under it; the engine reads it back into the
 * values its attribute index keys a partition by ({@link #decode}).
 *
 * <p>Per value a type byte, then the value: {@code 1} absent; {@code 2} a string, its UTF-8 bytes;
 * {@code 3} a number, the text of its value without trailing zeros ({@code 1} and {@code 1.0} are
 * one partition, as the selector compares them); {@code 4} a string list, its elements sorted, each
 * as a string; {@code 5} binary, its data type then its bytes. Every string of bytes is written
 * with {@code 0x00} escaped as {@code 0x00 0xFF} and ends with {@code 0x00 0x01}; a list ends with
 * {@code 0x00 0x02}. So every encoding is self-delimiting: no partition's encoding begins with
 * another's, and a store may end it with a {@code 0x00} and put anything after. The encoding is
 * held as a string of the chars 0 to 255, one per byte ({@link #bytes}).
 */
public final class Partitions {

  private static final int ABSENT = 1;
  private static final int STRING = 2;
  private static final int NUMBER = 3;
  private static final int LIST = 4;
  private static final int BINARY = 5;

  private Partitions() {}

  /**
   * The partition of a message whose attribute values {@code value} gives, in a queue indexing
   * {@code indexed}; null when it indexes none.
   */
  public static @Nullable String encode(
      Collection<String> indexed, Function<String, @Nullable AttributeValue> value) {
    if (indexed.isEmpty()) {
      return null;
    }
    String[] names = indexed.toArray(String[]::new);
    Arrays.sort(names);
    ByteArrayOutputStream out = new ByteArrayOutputStream(16 * names.length);
    for (String name : names) {
      switch (value.apply(name)) {
        case null -> out.write(ABSENT);
        case AttributeValue.StringValue s -> {
          out.write(STRING);
          text(out, s.value().getBytes(StandardCharsets.UTF_8));
        }
        case AttributeValue.NumberValue n -> {
          out.write(NUMBER);
          text(out, n.decimal().toString().getBytes(StandardCharsets.US_ASCII));
        }
        case AttributeValue.StringListValue l -> {
          out.write(LIST);
          for (String element : l.value().stream().sorted().toList()) {
            text(out, element.getBytes(StandardCharsets.UTF_8));
          }
          out.write(0);
          out.write(2);
        }
        case AttributeValue.BinaryValue b -> {
          out.write(BINARY);
          text(out, b.dataType().getBytes(StandardCharsets.UTF_8));
          text(out, b.value());
        }
      }
    }
    return new String(out.toByteArray(), StandardCharsets.ISO_8859_1);
  }

  /** The bytes of an encoding. */
  public static byte[] bytes(String partition) {
    return partition.getBytes(StandardCharsets.ISO_8859_1);
  }

  /** An encoding from its bytes. */
  public static String of(byte[] bytes) {
    return new String(bytes, StandardCharsets.ISO_8859_1);
  }

  /**
   * The values an encoding holds, one per indexed attribute in name order: null (absent), a String,
   * a BigDecimal, a sorted List of String, or an {@link AttributeValue.BinaryValue}.
   */
  public static List<@Nullable Object> decode(String partition) {
    byte[] b = bytes(partition);
    List<@Nullable Object> out = new ArrayList<>();
    int[] at = {0};
    while (at[0] < b.length) {
      int type = b[at[0]++];
      switch (type) {
        case ABSENT -> out.add(null);
        case STRING -> out.add(new String(text(b, at), StandardCharsets.UTF_8));
        case NUMBER -> out.add(new BigDecimal(new String(text(b, at), StandardCharsets.US_ASCII)));
        case LIST -> {
          List<String> elements = new ArrayList<>();
          while (!(b[at[0]] == 0 && b[at[0] + 1] == 2)) {
            elements.add(new String(text(b, at), StandardCharsets.UTF_8));
          }
          at[0] += 2;
          out.add(List.copyOf(elements));
        }
        case BINARY -> {
          String dataType = new String(text(b, at), StandardCharsets.UTF_8);
          out.add(new AttributeValue.BinaryValue(dataType, text(b, at)));
        }
        default ->
            throw new IllegalArgumentException(
                "not a partition encoding: type " + type + " at byte " + (at[0] - 1));
      }
    }
    return out;
  }

  private static void text(ByteArrayOutputStream out, byte[] bytes) {
    for (byte x : bytes) {
      out.write(x);
      if (x == 0) {
        out.write(0xFF);
      }
    }
    out.write(0);
    out.write(1);
  }

  private static byte[] text(byte[] b, int[] at) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int i = at[0];
    while (true) {
      if (b[i] == 0) {
        if ((b[i + 1] & 0xFF) == 0xFF) {
          out.write(0);
          i += 2;
          continue;
        }
        i += 2; // 0x00 0x01: the end
        break;
      }
      out.write(b[i++]);
    }
    at[0] = i;
    return out.toByteArray();
  }
}
