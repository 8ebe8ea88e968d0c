package io.switchboard.storage.postgres;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.DedupScope;
import io.switchboard.queue.ExpiryAction;
import io.switchboard.queue.Order;
import io.switchboard.queue.Overflow;
import io.switchboard.queue.QueueConfig;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * How queue configurations and message attributes are stored: a configuration as one line of {@code
 * key=value} pairs (readable in {@code psql}), attributes as a compact binary map.
 */
final class Codecs {

  private Codecs() {}

  static String encodeConfig(QueueConfig c) {
    StringBuilder s = new StringBuilder();
    s.append("order=").append(c.order().name());
    s.append(";visibility=").append(c.visibilityTimeout().toMillis());
    s.append(";delay=").append(c.delay().toMillis());
    s.append(";retention=").append(c.retention().toMillis());
    s.append(";onExpire=").append(c.onExpire().name());
    s.append(";maxMessageSize=").append(c.maxMessageSize());
    s.append(";receiveWait=").append(c.receiveWait().toMillis());
    c.deadLetter()
        .ifPresent(
            d ->
                s.append(";dlTarget=")
                    .append(d.target())
                    .append(";dlMax=")
                    .append(d.maxReceiveCount()));
    c.maxDepth().ifPresent(d -> s.append(";maxDepth=").append(d));
    s.append(";overflow=").append(c.overflow().name());
    s.append(";contentDedup=").append(c.contentBasedDeduplication());
    s.append(";dedupScope=").append(c.dedupScope().name());
    s.append(";history=").append(c.historyRetention().toMillis());
    s.append(";indexed=").append(String.join(",", new TreeSet<>(c.indexedAttributes())));
    c.keyLimit().ifPresent(n -> s.append(";keyLimit=").append(n));
    // metadata keys and values are any text: percent-encoded, so ';' and '=' stay separators
    c.metadata()
        .forEach((k, v) -> s.append(";meta:").append(encode(k)).append('=').append(encode(v)));
    return s.toString();
  }

  static QueueConfig decodeConfig(String text) {
    Map<String, String> kv = new LinkedHashMap<>();
    Map<String, String> metadata = new TreeMap<>();
    for (String part : text.split(";")) {
      int eq = part.indexOf('=');
      String key = part.substring(0, eq);
      if (key.startsWith("meta:")) {
        metadata.put(decode(key.substring("meta:".length())), decode(part.substring(eq + 1)));
      } else {
        kv.put(key, part.substring(eq + 1));
      }
    }
    QueueConfig.Builder b =
        QueueConfig.builder()
            .order(Order.valueOf(required(kv, "order")))
            .visibilityTimeout(millis(kv, "visibility"))
            .delay(millis(kv, "delay"))
            .retention(millis(kv, "retention"))
            .maxMessageSize(Integer.parseInt(required(kv, "maxMessageSize")))
            .receiveWait(millis(kv, "receiveWait"))
            .contentBasedDeduplication(Boolean.parseBoolean(kv.get("contentDedup")))
            .dedupScope(DedupScope.valueOf(required(kv, "dedupScope")))
            .historyRetention(millis(kv, "history"));
    if (kv.containsKey("dlTarget")) {
      b.deadLetter(kv.get("dlTarget"), Integer.parseInt(required(kv, "dlMax")));
    }
    b.onExpire(ExpiryAction.valueOf(required(kv, "onExpire")));
    if (kv.containsKey("maxDepth")) {
      b.maxDepth(Long.parseLong(kv.get("maxDepth")), Overflow.valueOf(required(kv, "overflow")));
    }
    String indexed = kv.getOrDefault("indexed", "");
    b.indexedAttributes(indexed.isEmpty() ? Set.of() : Set.of(indexed.split(",")));
    b.metadata(metadata);
    if (kv.containsKey("keyLimit")) {
      b.keyLimit(Integer.parseInt(kv.get("keyLimit")));
    }
    return b.build();
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  private static Duration millis(Map<String, String> kv, String key) {
    return Duration.ofMillis(Long.parseLong(required(kv, key)));
  }

  /**
   * A key every stored configuration has: a damaged {@code sb_queue} row without it fails here,
   * naming the key, instead of with a NullPointerException or "Cannot parse null string".
   */
  private static String required(Map<String, String> kv, String key) {
    String value = kv.get(key);
    if (value == null) {
      throw new IllegalStateException(
          "the stored queue configuration has no '" + key + "' (a damaged sb_queue row): " + kv);
    }
    return value;
  }

  private static final byte STRING = 1;
  private static final byte NUMBER = 2;
  private static final byte BINARY = 3;
  private static final byte LIST = 4;

  /** Attributes as bytes; null for none. */
  static byte @Nullable [] encodeAttributes(Map<String, AttributeValue> attributes) {
    if (attributes.isEmpty()) {
      return null;
    }
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeShort(attributes.size());
      for (Map.Entry<String, AttributeValue> e : attributes.entrySet()) {
        out.writeUTF(e.getKey());
        switch (e.getValue()) {
          case AttributeValue.StringValue s -> {
            out.writeByte(STRING);
            out.writeUTF(s.dataType());
            writeLong(out, s.value());
          }
          case AttributeValue.NumberValue n -> {
            out.writeByte(NUMBER);
            out.writeUTF(n.dataType());
            out.writeUTF(n.value());
          }
          case AttributeValue.BinaryValue v -> {
            out.writeByte(BINARY);
            out.writeUTF(v.dataType());
            out.writeInt(v.value().length);
            out.write(v.value());
          }
          case AttributeValue.StringListValue l -> {
            out.writeByte(LIST);
            out.writeUTF(l.dataType());
            out.writeInt(l.value().size());
            for (String s : l.value()) {
              writeLong(out, s);
            }
          }
        }
      }
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Map<String, AttributeValue> decodeAttributes(byte @Nullable [] data) {
    if (data == null) {
      return Map.of();
    }
    try {
      DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(data));
      int n = in.readUnsignedShort();
      Map<String, AttributeValue> out = new LinkedHashMap<>();
      for (int i = 0; i < n; i++) {
        String name = in.readUTF();
        byte type = in.readByte();
        String dataType = in.readUTF();
        AttributeValue v =
            switch (type) {
              case STRING -> new AttributeValue.StringValue(dataType, readLong(in));
              case NUMBER -> new AttributeValue.NumberValue(dataType, in.readUTF());
              case BINARY -> {
                byte[] b = new byte[in.readInt()];
                in.readFully(b);
                yield new AttributeValue.BinaryValue(dataType, b);
              }
              case LIST -> {
                int size = in.readInt();
                List<String> values = new ArrayList<>(size);
                for (int j = 0; j < size; j++) {
                  values.add(readLong(in));
                }
                yield new AttributeValue.StringListValue(dataType, values);
              }
              default -> throw new IllegalStateException("unknown attribute type " + type);
            };
        out.put(name, v);
      }
      return java.util.Collections.unmodifiableMap(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A string that may exceed writeUTF's 64 KiB limit. */
  private static void writeLong(DataOutputStream out, String s) throws IOException {
    byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    out.writeInt(b.length);
    out.write(b);
  }

  private static String readLong(DataInputStream in) throws IOException {
    byte[] b = new byte[in.readInt()];
    in.readFully(b);
    return new String(b, java.nio.charset.StandardCharsets.UTF_8);
  }

  static boolean same(byte @Nullable [] a, byte @Nullable [] b) {
    return Arrays.equals(a, b);
  }
}
