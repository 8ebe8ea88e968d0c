package io.switchboard.client.wire;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.client.wire.NativeWire.Messages;
import io.switchboard.queue.Message;
import io.switchboard.queue.SendResult;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Reads the native API's busiest bodies in one pass with Jackson's parser, for the plain shape each
 * end writes: a receive's or browse's answer ({@code {"messages":[...], "nextCursor"?}}), a batch
 * send ({@code {"messages":[...]}}) and a batch ack ({@code {"receipts":[...]}}); each object's
 * known fields at most once, each of its exact JSON type, no attributes (or {@code {}}), no {@code
 * null}, nothing after the object (an answer's message is read by the binding's own reader, {@link
 * MessageJson#read}, in its plain mode). It gives up (null) on anything else, which the caller
 * ({@link Messages#read}, {@link NativeWire.SendBatch#read}, {@link NativeWire.AckBatch#read}) then
 * binds as before ({@link Json}): so for what it accepts it gives the record the binding would, and
 * for the rest the binding's result or error. The strict requests and the lenient answers differ
 * only where it gives up anyway (unknown fields).
 *
 * <p>The parser's factory ({@link Json#newFactory}) does no duplicate detection (the reader notices
 * a repeated known field itself and gives up on any unknown one), so that no set of field names is
 * made per object.
 */
final class OnePassReader {

  /**
   * A plain factory: no duplicate detection (see above), Jackson's buffers from the shared pool.
   */
  private static final JsonFactory FACTORY = Json.newFactory();

  private OnePassReader() {}

  /** Anything but the plain shape: the binding reads it instead. */
  private static final class NotPlain extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotPlain() {
      super("not the plain shape", null, false, false);
    }
  }

  private static final NotPlain NOT_PLAIN = new NotPlain();

  /** A batch send's message: {@link NativeWire.SendMessage}'s components. */
  private static final Form<NativeWire.SendMessage> SEND_MESSAGE =
      new Form<>(NativeWire.SendMessage.class);

  /** A batch send's record, or null if it is not the plain shape (or not JSON). */
  static NativeWire.@Nullable SendBatch sendBatch(byte[] body) {
    try (JsonParser p = FACTORY.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT
          || !"messages".equals(p.nextFieldName())
          || p.nextToken() != JsonToken.START_ARRAY) {
        return null;
      }
      List<NativeWire.SendMessage> messages = new ArrayList<>();
      while (p.nextToken() == JsonToken.START_OBJECT) {
        messages.add(sendMessage(p));
      }
      return p.currentToken() == JsonToken.END_ARRAY && end(p)
          ? new NativeWire.SendBatch(messages)
          : null;
    } catch (NotPlain | IOException e) {
      return null;
    }
  }

  /** A batch ack's record, or null if it is not the plain shape (or not JSON). */
  static NativeWire.@Nullable AckBatch ackBatch(byte[] body) {
    try (JsonParser p = FACTORY.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT
          || !"receipts".equals(p.nextFieldName())
          || p.nextToken() != JsonToken.START_ARRAY) {
        return null;
      }
      List<String> receipts = new ArrayList<>();
      for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
        receipts.add(text(p, t));
      }
      return end(p) ? new NativeWire.AckBatch(receipts) : null;
    } catch (NotPlain | IOException e) {
      return null;
    }
  }

  /** After the one field's value: the object ends, and nothing follows it. */
  private static boolean end(JsonParser p) throws IOException {
    return p.nextToken() == JsonToken.END_OBJECT && p.nextToken() == null;
  }

  private static NativeWire.SendMessage sendMessage(JsonParser p) throws IOException {
    return SEND_MESSAGE.read(p);
  }

  /** {@code seen} with {@code bit} added: a field met twice is not the plain shape. */
  private static int once(int seen, int bit) {
    if ((seen & bit) != 0) {
      throw NOT_PLAIN;
    }
    return seen | bit;
  }

  /** {@code {}}: anything else in attributes is left to the binding. */
  private static JsonNode emptyObject(JsonParser p, @Nullable JsonToken t) throws IOException {
    if (t != JsonToken.START_OBJECT || p.nextToken() != JsonToken.END_OBJECT) {
      throw NOT_PLAIN;
    }
    return Json.STRICT.getNodeFactory().objectNode();
  }

  /** A receive's request, or null if it is not the plain shape (or not JSON). */
  static NativeWire.@Nullable Receive receive(byte[] body) {
    try (JsonParser p = FACTORY.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      Integer maxMessages = null;
      Long visibilityTimeoutSeconds = null;
      Long waitTimeSeconds = null;
      String selector = null;
      int seen = 0;
      for (String f = p.nextFieldName(); f != null; f = p.nextFieldName()) {
        JsonToken t = p.nextToken();
        int bit;
        switch (f) {
          case "maxMessages" -> {
            bit = 1;
            maxMessages = integer(p, t);
          }
          case "visibilityTimeoutSeconds" -> {
            bit = 1 << 1;
            visibilityTimeoutSeconds = longInteger(p, t);
          }
          case "waitTimeSeconds" -> {
            bit = 1 << 2;
            waitTimeSeconds = longInteger(p, t);
          }
          case "selector" -> {
            bit = 1 << 3;
            selector = text(p, t);
          }
          default -> {
            return null;
          }
        }
        seen = once(seen, bit); // caught below: null
      }
      return p.currentToken() == JsonToken.END_OBJECT && p.nextToken() == null
          ? new NativeWire.Receive(maxMessages, visibilityTimeoutSeconds, waitTimeSeconds, selector)
          : null;
    } catch (NotPlain | IOException e) {
      return null;
    }
  }

  /** A batch send's answer, or null if it is not the plain shape (or not JSON). */
  static NativeWire.@Nullable SendResults sendResults(byte[] body) {
    try (JsonParser p = FACTORY.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT
          || !"results".equals(p.nextFieldName())
          || p.nextToken() != JsonToken.START_ARRAY) {
        return null;
      }
      List<SendResult> results = new ArrayList<>();
      while (p.nextToken() == JsonToken.START_OBJECT) {
        String id = null;
        long sequence = 0;
        boolean duplicate = false;
        int seen = 0;
        for (String f = p.nextFieldName(); f != null; f = p.nextFieldName()) {
          JsonToken t = p.nextToken();
          int bit;
          switch (f) {
            case "id" -> {
              bit = 1;
              id = text(p, t);
            }
            case "sequence" -> {
              bit = 1 << 1;
              sequence = longInteger(p, t);
            }
            case "duplicate" -> {
              bit = 1 << 2;
              duplicate = bool(t);
            }
            default -> throw NOT_PLAIN;
          }
          seen = once(seen, bit);
        }
        if (seen != 0b111 || id == null || p.currentToken() != JsonToken.END_OBJECT) {
          return null; // a field left out: the binding decides what that means
        }
        results.add(new SendResult(id, sequence, duplicate));
      }
      return p.currentToken() == JsonToken.END_ARRAY && end(p)
          ? new NativeWire.SendResults(results)
          : null;
    } catch (NotPlain | IOException e) {
      return null;
    }
  }

  /** A batch ack's answer, or null if it is not the plain shape (or not JSON). */
  static NativeWire.@Nullable AckResults ackResults(byte[] body) {
    try (JsonParser p = FACTORY.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT
          || !"results".equals(p.nextFieldName())
          || p.nextToken() != JsonToken.START_ARRAY) {
        return null;
      }
      List<NativeWire.Acked> results = new ArrayList<>();
      while (p.nextToken() == JsonToken.START_OBJECT) {
        String receipt = null;
        boolean acked = false;
        String code = null;
        String message = null;
        int seen = 0;
        for (String f = p.nextFieldName(); f != null; f = p.nextFieldName()) {
          JsonToken t = p.nextToken();
          int bit;
          switch (f) {
            case "receipt" -> {
              bit = 1;
              receipt = text(p, t);
            }
            case "acked" -> {
              bit = 1 << 1;
              acked = bool(t);
            }
            case "code" -> {
              bit = 1 << 2;
              code = text(p, t);
            }
            case "message" -> {
              bit = 1 << 3;
              message = text(p, t);
            }
            default -> throw NOT_PLAIN;
          }
          seen = once(seen, bit);
        }
        if ((seen & 0b11) != 0b11 || p.currentToken() != JsonToken.END_OBJECT) {
          return null; // receipt or acked left out: the binding decides
        }
        results.add(new NativeWire.Acked(receipt, acked, code, message));
      }
      return p.currentToken() == JsonToken.END_ARRAY && end(p)
          ? new NativeWire.AckResults(results)
          : null;
    } catch (NotPlain | IOException e) {
      return null;
    }
  }

  private static boolean bool(@Nullable JsonToken t) {
    if (t == JsonToken.VALUE_TRUE) {
      return true;
    }
    if (t == JsonToken.VALUE_FALSE) {
      return false;
    }
    throw NOT_PLAIN;
  }

  /** A receive's or browse's answer, or null if it is not the plain shape (or not JSON). */
  static @Nullable Messages messages(byte[] body) {
    try (JsonParser p = FACTORY.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      List<Message> messages = null;
      String cursor = null;
      for (String f = p.nextFieldName(); f != null; f = p.nextFieldName()) {
        switch (f) {
          case "messages" -> {
            if (messages != null || p.nextToken() != JsonToken.START_ARRAY) {
              return null;
            }
            messages = new ArrayList<>();
            while (p.nextToken() == JsonToken.START_OBJECT) {
              messages.add(message(p));
            }
            if (p.currentToken() != JsonToken.END_ARRAY) {
              return null;
            }
          }
          case "nextCursor" -> {
            if (cursor != null) {
              return null;
            }
            cursor = text(p, p.nextToken());
          }
          default -> {
            return null;
          }
        }
      }
      if (messages == null || p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
        return null;
      }
      return new Messages(messages, cursor);
    } catch (NotPlain | IOException | WireFormatException e) {
      return null; // the binding reads it again and words the error
    }
  }

  /** A message of the answer, by its record's components ({@link MessageJson}). */
  private static Message message(JsonParser p) throws IOException {
    return MessageJson.read(p, null);
  }

  private static String text(JsonParser p, @Nullable JsonToken t) throws IOException {
    if (t != JsonToken.VALUE_STRING) {
      throw NOT_PLAIN;
    }
    return p.getText();
  }

  private static int integer(JsonParser p, @Nullable JsonToken t) throws IOException {
    if (t != JsonToken.VALUE_NUMBER_INT || p.getNumberType() != JsonParser.NumberType.INT) {
      throw NOT_PLAIN;
    }
    return p.getIntValue();
  }

  private static long longInteger(JsonParser p, @Nullable JsonToken t) throws IOException {
    if (t != JsonToken.VALUE_NUMBER_INT
        || (p.getNumberType() != JsonParser.NumberType.INT
            && p.getNumberType() != JsonParser.NumberType.LONG)) {
      throw NOT_PLAIN;
    }
    return p.getLongValue();
  }

  /**
   * One object of the plain shape read into the record {@code R} from the record's own components:
   * each field is known by a component's name and read by its type (text for {@code String}, an
   * {@code int} or {@code long} number for {@code int}/{@code Integer} and {@code long}/{@code
   * Long}, {@code {}} for the attributes' {@link JsonNode}), at most once, and the components
   * marked {@link Json.Required} must be there. So a component added to the record is read here
   * with no line written for it, and one of a type it cannot read fails this class's initialisation
   * (and every test that reads an answer with it).
   */
  private static final class Form<R extends Record> {

    private static final byte TEXT = 0;
    private static final byte INT = 1;
    private static final byte LONG = 2;
    private static final byte EMPTY_OBJECT = 3;

    private final String[] names;
    private final byte[] kinds;

    /** What an absent field leaves: null, or 0 for a primitive component. */
    private final Object[] absent;

    /** The bits of the required components, by index. */
    private final int required;

    /** The canonical constructor, taking its arguments as one {@code Object[]}. */
    private final MethodHandle make;

    Form(Class<R> type) {
      RecordComponent[] components = type.getRecordComponents();
      if (components.length > 31) {
        throw new IllegalStateException(type + " has more components than an int has bits");
      }
      names = new String[components.length];
      kinds = new byte[components.length];
      absent = new Object[components.length];
      Class<?>[] types = new Class<?>[components.length];
      int requiredBits = 0;
      for (int i = 0; i < components.length; i++) {
        RecordComponent c = components[i];
        names[i] = c.getName();
        types[i] = c.getType();
        kinds[i] = kind(type, c.getType());
        absent[i] =
            c.getType() == int.class ? (Object) 0 : c.getType() == long.class ? (Object) 0L : null;
        try {
          if (type.getDeclaredField(c.getName()).isAnnotationPresent(Json.Required.class)) {
            requiredBits |= 1 << i;
          }
        } catch (NoSuchFieldException e) {
          throw new IllegalStateException(e);
        }
      }
      required = requiredBits;
      try {
        make =
            MethodHandles.lookup()
                .findConstructor(type, MethodType.methodType(void.class, types))
                .asSpreader(Object[].class, components.length)
                .asType(MethodType.methodType(Object.class, Object[].class));
      } catch (NoSuchMethodException | IllegalAccessException e) {
        throw new IllegalStateException(e);
      }
    }

    private static byte kind(Class<?> record, Class<?> t) {
      if (t == String.class) {
        return TEXT;
      }
      if (t == int.class || t == Integer.class) {
        return INT;
      }
      if (t == long.class || t == Long.class) {
        return LONG;
      }
      if (t == JsonNode.class) {
        return EMPTY_OBJECT;
      }
      throw new IllegalStateException(record + ": no one-pass reading for a component of " + t);
    }

    /**
     * The index of the component named {@code f}, trying {@code next} first (the writer's order).
     */
    private int index(String f, int next) {
      if (next < names.length && names[next].equals(f)) {
        return next;
      }
      for (int i = 0; i < names.length; i++) {
        if (names[i].equals(f)) {
          return i;
        }
      }
      throw NOT_PLAIN;
    }

    /** The object whose first field name is next in {@code p}; throws {@code NOT_PLAIN}. */
    @SuppressWarnings("unchecked")
    R read(JsonParser p) throws IOException {
      Object[] values = absent.clone();
      int seen = 0;
      int next = 0;
      for (String f = p.nextFieldName(); f != null; f = p.nextFieldName()) {
        JsonToken t = p.nextToken();
        int i = index(f, next);
        values[i] =
            switch (kinds[i]) {
              case TEXT -> text(p, t);
              case INT -> integer(p, t);
              case LONG -> longInteger(p, t);
              default -> emptyObject(p, t);
            };
        seen = once(seen, 1 << i); // a repeated field: the binding words the error
        next = i + 1;
      }
      if (p.currentToken() != JsonToken.END_OBJECT || (seen & required) != required) {
        throw NOT_PLAIN;
      }
      try {
        Object made = make.invokeExact(values); // the exact type (Object[])Object
        return (R) made;
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Throwable e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
