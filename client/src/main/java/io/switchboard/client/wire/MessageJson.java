package io.switchboard.client.wire;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Message} in an answer, bound by Jackson from the record's own components: the core
 * record is the answer's form, with no view of its own. Each component is on the wire by its name
 * and as its type says: text for {@code String} (required) and {@code Optional<String>} (left out
 * when empty), a number for {@code int} and {@code long}, ISO-8601 text for {@code Instant} and
 * {@code Optional<Instant>} ({@link InstantText}), the wire name for the {@link MessageState}, and
 * {@link WireFormat#attributes}'s forms for the attributes (always there, {@code {}} for none).
 * What an answer leaves out reads as empty, 0, {@link Instant#EPOCH}, {@code AVAILABLE}, no
 * attributes; so a component added to {@code Message} is read here with no line written for it, and
 * one of a type not listed above fails this class's initialisation (and every test that reads an
 * answer).
 *
 * <p>Written by the fast writer ({@link StreamedAnswers}), the one hand-written form left on the
 * wire: the serializer below is it, so what the binding writes and what the busiest answers write
 * are the same bytes; {@code MessageFormsTest} fails for a component it leaves out. Errors read as
 * the binding of a record words them ({@link Json}: {@code field 'id' is required in messages[0]},
 * {@code field 'priority' must be an integer, got "x"}).
 */
final class MessageJson {

  private MessageJson() {}

  /** The serializer and deserializer of {@link Message}, for the API's mappers ({@link Json}). */
  static SimpleModule module() {
    return new SimpleModule("switchboard-message")
        .addSerializer(Message.class, new Writer())
        .addDeserializer(Message.class, READER);
  }

  private static final byte TEXT = 0;
  private static final byte OPTIONAL_TEXT = 1;
  private static final byte INT = 2;
  private static final byte LONG = 3;
  private static final byte INSTANT = 4;
  private static final byte OPTIONAL_INSTANT = 5;
  private static final byte STATE = 6;
  private static final byte ATTRIBUTES = 7;

  private static final RecordComponent[] COMPONENTS = Message.class.getRecordComponents();
  private static final String[] NAMES = new String[COMPONENTS.length];
  private static final byte[] KINDS = new byte[COMPONENTS.length];

  /** What an absent (or {@code null}) field reads as; null where the field is required. */
  private static final @Nullable Object[] ABSENT = new Object[COMPONENTS.length];

  /** The bits of the required components ({@code String}), by index. */
  private static final int REQUIRED;

  /** The canonical constructor, taking its arguments as one {@code Object[]}. */
  private static final MethodHandle MAKE;

  static {
    if (COMPONENTS.length > 31) {
      throw new IllegalStateException("Message has more components than an int has bits");
    }
    int required = 0;
    Class<?>[] types = new Class<?>[COMPONENTS.length];
    for (int i = 0; i < COMPONENTS.length; i++) {
      RecordComponent c = COMPONENTS[i];
      NAMES[i] = c.getName();
      types[i] = c.getType();
      KINDS[i] = kind(c);
      ABSENT[i] =
          switch (KINDS[i]) {
            case TEXT -> null;
            case OPTIONAL_TEXT, OPTIONAL_INSTANT -> Optional.empty();
            case INT -> 0;
            case LONG -> 0L;
            case INSTANT -> Instant.EPOCH;
            case STATE -> MessageState.AVAILABLE;
            default -> Map.of();
          };
      if (KINDS[i] == TEXT) {
        required |= 1 << i;
      }
    }
    REQUIRED = required;
    try {
      MAKE =
          MethodHandles.lookup()
              .findConstructor(Message.class, MethodType.methodType(void.class, types))
              .asSpreader(Object[].class, COMPONENTS.length)
              .asType(MethodType.methodType(Object.class, Object[].class));
    } catch (NoSuchMethodException | IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte kind(RecordComponent c) {
    Class<?> t = c.getType();
    if (t == String.class) {
      return TEXT;
    }
    if (t == int.class) {
      return INT;
    }
    if (t == long.class) {
      return LONG;
    }
    if (t == Instant.class) {
      return INSTANT;
    }
    if (t == MessageState.class) {
      return STATE;
    }
    Type g = c.getGenericType();
    if (t == Map.class
        && g instanceof ParameterizedType p
        && p.getActualTypeArguments()[1] == AttributeValue.class) {
      return ATTRIBUTES;
    }
    if (t == Optional.class && g instanceof ParameterizedType p) {
      Type element = p.getActualTypeArguments()[0];
      if (element == String.class) {
        return OPTIONAL_TEXT;
      }
      if (element == Instant.class) {
        return OPTIONAL_INSTANT;
      }
    }
    throw new IllegalStateException("Message." + c.getName() + ": no JSON form for " + g);
  }

  /** Writes a message as {@link StreamedAnswers} does. */
  private static final class Writer extends StdSerializer<Message> {
    private static final long serialVersionUID = 1L;

    Writer() {
      super(Message.class);
    }

    @Override
    public void serialize(Message m, JsonGenerator g, SerializerProvider provider)
        throws IOException {
      StreamedAnswers.message(g, m);
    }
  }

  private static final Reader READER = new Reader();

  /** Reads a message from its components' fields ({@link #read}). */
  private static final class Reader extends StdDeserializer<Message> {
    private static final long serialVersionUID = 1L;

    Reader() {
      super(Message.class);
    }

    @Override
    public Message deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (!p.isExpectedStartObjectToken() && !p.hasToken(JsonToken.FIELD_NAME)) {
        return (Message) ctxt.handleUnexpectedToken(Message.class, p);
      }
      return read(p, ctxt);
    }

    @Override
    public Collection<Object> getKnownPropertyNames() {
      return List.of((Object[]) NAMES);
    }
  }

  /**
   * The message whose object {@code p} is at the start of (or just inside); the object's end is the
   * current token after. With {@code ctxt} null (the one-pass reader, {@link OnePassReader}) it
   * reads only the plain shape: a field this class does not know, a {@code null}, or attributes
   * other than {@code {}} throw, and the caller leaves the answer to the binding.
   */
  static Message read(JsonParser p, @Nullable DeserializationContext ctxt) throws IOException {
    @Nullable Object[] values = ABSENT.clone();
    int seen = 0;
    int next = 0;
    String f = p.currentToken() == JsonToken.START_OBJECT ? p.nextFieldName() : p.currentName();
    for (; f != null; f = p.nextFieldName()) {
      JsonToken t = p.nextToken();
      int i = index(f, next);
      if (i < 0) {
        if (ctxt == null) {
          throw MismatchedInputException.from(p, Message.class, "unknown field " + f);
        }
        ctxt.handleUnknownProperty(p, READER, Message.class, f);
        continue;
      }
      if ((seen & (1 << i)) != 0) {
        throw JsonMappingException.wrapWithPath(
            MismatchedInputException.from(p, Message.class, "duplicate field " + f),
            Message.class,
            f);
      }
      seen |= 1 << i;
      next = i + 1;
      if (t == JsonToken.VALUE_NULL) {
        if (ctxt == null) {
          throw MismatchedInputException.from(p, Message.class, "null for " + f);
        }
        seen &= ~(1 << i); // a null is an absent field: required ones are refused below
        continue;
      }
      try {
        values[i] = value(p, t, KINDS[i], f, ctxt);
      } catch (IOException e) {
        throw JsonMappingException.wrapWithPath(e, Message.class, f);
      }
    }
    if ((seen & REQUIRED) != REQUIRED) {
      int missing = Integer.numberOfTrailingZeros(REQUIRED & ~seen);
      throw JsonMappingException.wrapWithPath(
          MismatchedInputException.from(p, String.class, "missing " + NAMES[missing]),
          Message.class,
          NAMES[missing]);
    }
    try {
      Object made = MAKE.invokeExact(values); // the exact type (Object[])Object
      return (Message) made;
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException(e);
    }
  }

  /** The index of the component named {@code f}, trying {@code next} first (the writer's order). */
  private static int index(String f, int next) {
    if (next < NAMES.length && NAMES[next].equals(f)) {
      return next;
    }
    for (int i = 0; i < NAMES.length; i++) {
      if (NAMES[i].equals(f)) {
        return i;
      }
    }
    return -1;
  }

  private static Object value(
      JsonParser p, JsonToken t, byte kind, String name, @Nullable DeserializationContext ctxt)
      throws IOException {
    return switch (kind) {
      case INT -> {
        number(p, t, int.class);
        yield p.getIntValue();
      }
      case LONG -> {
        number(p, t, long.class);
        yield p.getLongValue();
      }
      case ATTRIBUTES -> {
        if (ctxt == null) {
          if (t != JsonToken.START_OBJECT || p.nextToken() != JsonToken.END_OBJECT) {
            throw MismatchedInputException.from(p, Map.class, "attributes other than {}");
          }
          yield Map.of();
        }
        JsonNode node = ctxt.readTree(p);
        yield node.isNull() ? Map.of() : WireFormat.attributes(node);
      }
      default -> {
        if (t != JsonToken.VALUE_STRING) {
          throw MismatchedInputException.from(p, String.class, name + " must be a string");
        }
        String text = p.getText();
        yield switch (kind) {
          case TEXT -> text;
          case OPTIONAL_TEXT -> Optional.of(text);
          case INSTANT -> WireFormat.instant(name, text).orElseThrow();
          case OPTIONAL_INSTANT -> WireFormat.instant(name, text);
          default -> WireFormat.enumValue(MessageState.class, name, text);
        };
      }
    };
  }

  private static void number(JsonParser p, JsonToken t, Class<?> type) throws IOException {
    if (t != JsonToken.VALUE_NUMBER_INT) {
      throw MismatchedInputException.from(p, type, "not an integer");
    }
  }
}
